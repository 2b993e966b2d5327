"""The languages the notes gate reads, registered by file suffix.

The gate, the snapshot reader, the release-history replay and the notes
chapters never name a language: they ask this registry which language a path
is in and what it calls its own. Adding a language is therefore one module
that builds a :class:`Language` and registers it, and nothing else:

* **in cvlib**: a module under ``cvlib/notes/`` that calls
  :func:`register_language` on import, named in :data:`BUILTIN_MODULES`
  (Python and Rust are registered this way, by :mod:`cvlib.notes.python` and
  :mod:`cvlib.notes.rust`);
* **from an installed package**: an entry point in the group
  :data:`ENTRY_POINT_GROUP` (``cvlib.notes.languages``) naming a
  :class:`Language` object, read the first time the registry is asked, like
  the executors' ``cvlib.policies`` group;
* **from a script**: :func:`register_language` called before the gate runs.

The registry imports no language module by name at import time (it loads the
built-ins with :func:`importlib.import_module` on first use), so the languages
sit above it and the gate stays free of import cycles.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .errors import NotesError, UnparsableSource
from .symbols import Symbol

__all__ = [
    "BUILTIN_MODULES",
    "DEFAULT_LANGUAGE",
    "ENTRY_POINT_GROUP",
    "Language",
    "SourceFile",
    "UnknownLanguage",
    "analyser_for",
    "language_for",
    "language_named",
    "languages",
    "register_language",
    "suffixes",
    "unregister_language",
]

#: The entry-point group installed packages announce a :class:`Language` in.
ENTRY_POINT_GROUP: str = "cvlib.notes.languages"

#: The modules of cvlib that register a language when imported, in the order the pages list languages.
BUILTIN_MODULES: tuple[str, ...] = ("cvlib.notes.python", "cvlib.notes.rust")

#: The language of a path without any suffix (``"<snapshot>"``, a bare excerpt).
DEFAULT_LANGUAGE: str = "Python"


class SourceFile(Protocol):
    """What a language gives the gate for one parsed file."""

    path: str

    def rows(self) -> list[Symbol]:
        """Every symbol of the file, hashed, in source order."""

    def dependencies(self, qualname: str, rule: str = "precise") -> dict[str, str]:
        """Label -> canonical text of every dependency of one symbol (``rule``: ``"precise"`` or ``"wide"``)."""

    def fallback_reason(self, qualname: str) -> str:
        """Why the precise rule fell back to the wide one for this symbol ('' when it did not)."""

    def dependency_depths(self, qualname: str) -> dict[str, int]:
        """Label -> distance from the symbol in the dependency graph (0: its own binding), precise rule."""


class UnknownLanguage(UnparsableSource):
    """A file's suffix belongs to no registered language (a note on it is UNPARSABLE, saying so)."""


@dataclass(frozen=True, slots=True)
class Language:
    """One language the gate reads.

    Attributes
    ----------
    name
        How tables and pages name it (``"Python"``); unique in the registry.
    suffixes
        The file suffixes it owns, each with its dot (``(".py",)``); no two
        languages share one.
    analyse
        ``analyse(source, path)`` parses one file into a :class:`SourceFile`;
        it raises :class:`~cvlib.notes.errors.UnparsableSource` for text that
        does not parse.
    fallback_reasons
        Why its precise rule may fall back to the wide one, in the order the
        fallback table lists them (empty when it never does).
    build_folders
        ``(marker file, folder)`` pairs: a folder beside the marker holds
        build output and is not read (Rust's ``("Cargo.toml", "target")``).
    """

    name: str
    suffixes: tuple[str, ...]
    analyse: Callable[[str, str], SourceFile]
    fallback_reasons: tuple[str, ...] = ()
    build_folders: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise NotesError(f"a language needs a non-empty name, got {self.name!r}")
        if isinstance(self.suffixes, str) or not self.suffixes or not all(
                isinstance(s, str) and s.startswith(".") and len(s) > 1 for s in self.suffixes):
            raise NotesError(f"language {self.name!r}: suffixes must be a tuple like ('.py',), got {self.suffixes!r}")
        if not callable(self.analyse):
            raise NotesError(f"language {self.name!r}: analyse must be callable as analyse(source, path), "
                             f"got {type(self.analyse).__name__}")


_BY_NAME: dict[str, Language] = {}
_BY_SUFFIX: dict[str, Language] = {}
_LOADED = {"builtins": False, "entry_points": False}


def register_language(language: Language) -> Language:
    """Make the gate read ``language``'s files: by suffix in snapshots, by name in tables and pages.

    Parameters
    ----------
    language : Language
        A new language; neither its name nor any of its suffixes may be taken.

    Returns
    -------
    Language
        ``language`` itself, so a module can write ``LANGUAGE = register_language(Language(...))``.

    Raises
    ------
    NotesError
        If it is not a :class:`Language`, or its name or a suffix is already registered.
    """
    if not isinstance(language, Language):
        raise NotesError(f"register_language() takes a cvlib.notes.languages.Language, got {type(language).__name__}")
    if language.name in _BY_NAME:
        raise NotesError(f"a language called {language.name!r} is already registered")
    taken = [s for s in language.suffixes if s in _BY_SUFFIX]
    if taken:
        raise NotesError(f"language {language.name!r}: suffix {taken[0]!r} already belongs to "
                         f"{_BY_SUFFIX[taken[0]].name!r}")
    _BY_NAME[language.name] = language
    _BY_SUFFIX.update((s, language) for s in language.suffixes)
    return language


def unregister_language(name: str) -> None:
    """Forget the language called ``name`` (its files are read by nothing afterwards).

    Raises
    ------
    NotesError
        If no language of that name is registered.
    """
    _load()
    language = _BY_NAME.pop(name, None)
    if language is None:
        raise NotesError(f"no language called {name!r} is registered; registered: {_names() or 'none'}")
    for suffix in language.suffixes:
        _BY_SUFFIX.pop(suffix, None)


def _load() -> None:
    """Import the built-in language modules, then the installed packages' entry points, each once."""
    if not _LOADED["builtins"]:
        _LOADED["builtins"] = True
        for module in BUILTIN_MODULES:
            importlib.import_module(module)
    if not _LOADED["entry_points"]:
        _LOADED["entry_points"] = True
        from importlib.metadata import entry_points

        for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
            origin = f"entry point {point.name} = {point.value} ({ENTRY_POINT_GROUP})"
            try:
                loaded = point.load()
            except Exception as exc:  # a broken plugin must not pass silently
                raise NotesError(f"{origin} cannot be loaded: {type(exc).__name__}: {exc}") from None
            if not isinstance(loaded, Language):
                raise NotesError(f"{origin} must name a cvlib.notes.languages.Language, got {type(loaded).__name__}")
            if loaded.name not in _BY_NAME:
                register_language(loaded)


def _rank(language: Language) -> int:
    """A built-in's place in :data:`BUILTIN_MODULES` (whichever was imported first), after them the others'."""
    module = getattr(language.analyse, "__module__", "")
    return BUILTIN_MODULES.index(module) if module in BUILTIN_MODULES else len(BUILTIN_MODULES)


def _names() -> str:
    return ", ".join(language.name for language in languages())


def languages() -> list[Language]:
    """Every registered language: the built-ins first (Python, Rust), then the others in registration order."""
    _load()
    return sorted(_BY_NAME.values(), key=_rank)  # stable: the others keep their registration order


def suffixes() -> tuple[str, ...]:
    """Every suffix the gate reads, sorted."""
    _load()
    return tuple(sorted(_BY_SUFFIX))


def language_named(name: str) -> Language:
    """The registered language called ``name``.

    Raises
    ------
    NotesError
        If none is, naming the registered ones.
    """
    _load()
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise NotesError(f"no language called {name!r} is registered; registered: {_names()}") from None


def language_for(path: str) -> Language | None:
    """The language that owns ``path``'s suffix, or None when no registered language does."""
    _load()
    return _BY_SUFFIX.get(os.path.splitext(path)[1])


def analyser_for(path: str) -> Language:
    """The language to parse ``path`` with: by its suffix, :data:`DEFAULT_LANGUAGE` when it has none.

    Raises
    ------
    UnknownLanguage
        If the suffix belongs to no registered language, naming it and the registered suffixes.
    """
    suffix = os.path.splitext(path)[1]
    if not suffix:
        return language_named(DEFAULT_LANGUAGE)
    found = language_for(path)
    if found is None:
        raise UnknownLanguage(f"{path!r}: no registered language reads {suffix!r} files; "
                              f"the gate reads {', '.join(suffixes())}")
    return found
