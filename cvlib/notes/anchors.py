"""Find the symbols of a source file and fingerprint them: as written, as parsed, and what they depend on.

A note about code is only as good as the code it was written against, so the
gate needs a fingerprint that changes exactly when the code's meaning could
have changed. Three per symbol:

* the **raw hash**: SHA-256 of the symbol's source lines as written (from its
  first decorator or attribute to its last line). Any edit at all changes it.
* the **normalized hash**: SHA-256 of a canonical serialisation of the
  symbol's syntax tree, with comments and formatting gone, every docstring
  (Python) or doc comment (Rust) dropped, and the symbol's own name left out,
  so that a rename can be recognised as the same body elsewhere. Everything
  else counts: constants, operators, names, argument names, defaults,
  decorators and attributes, annotations, nested definitions.
* the **dependency hash**: SHA-256 over what the symbol's behaviour depends on
  inside its file -- the names it reads, transitively, the imports behind
  them, its class's header and attributes for a method, and which binding of
  its own name is in effect. Each dependency is normalized the same way, so a
  cosmetic edit to a dependency changes nothing. What counts, language by
  language, is in :mod:`cvlib.notes.python` and :mod:`cvlib.notes.rust`.

Which language reads a file is decided by its suffix in the registry of
:mod:`cvlib.notes.languages`: Python files are read with :mod:`ast` and
``symtable``, Rust files with tree-sitter (loaded only when a ``.rs`` file is
met), and any language registered there the same way.

:data:`~cvlib.notes.symbols.MIN_IDENTIFIABLE_NODES`: a normalized tree with fewer nodes than this
is too small to identify -- ``def f(self): pass`` has 4 nodes, ``def f(self):
return self._x`` has 6. Such bodies recur all over real code, so finding one
elsewhere is no evidence that *this* one moved there; the gate never turns
them into a RENAMED hint.

Reading a working tree (:func:`read_snapshot`) is safe against hostile trees:
only regular files are read, never a FIFO or a device (a FIFO named ``x.py``
cannot make a check wait), a symlink is followed only to a file inside the
repository, and a file that cannot be read (a symlink loop, a dangling link,
permission denied, a file over :data:`MAX_FILE_BYTES`) becomes an
:class:`Unreadable` entry, which notes on it report as status UNREADABLE.
"""

from __future__ import annotations

import errno
import os
import stat
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from .errors import NotesError
from .languages import SourceFile, analyser_for, language_for, languages
from .symbols import DEP_LABEL_HEX_DIGITS, Symbol, sha256

#: Files larger than this are not read and are reported UNREADABLE (no source file is this large).
MAX_FILE_BYTES: int = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A file of a snapshot that could not be read, and why (notes on it are UNREADABLE)."""

    reason: str

    def __str__(self) -> str:
        return self.reason


def language_of(path: str) -> str | None:
    """The name of the registered language that reads ``path`` (``"Python"``, ``"Rust"``), or None."""
    found = language_for(path)
    return None if found is None else found.name


def analyse(source: str, path: str = "<snapshot>") -> SourceFile:
    """Parse one file with the language its suffix is registered to (:mod:`cvlib.notes.languages`).

    A path without a suffix is read as :data:`~cvlib.notes.languages.DEFAULT_LANGUAGE` (Python).

    Raises
    ------
    UnparsableSource
        If the source does not parse, or (:class:`~cvlib.notes.languages.UnknownLanguage`)
        its suffix belongs to no registered language.
    """
    return analyser_for(path).analyse(source, path)


def symbols(source: str, path: str = "<snapshot>") -> list[Symbol]:
    """Every anchorable symbol of one file, in source order.

    Raises
    ------
    UnparsableSource
        If ``source`` does not parse.
    """
    return analyse(source, path).rows()


def dependency_fingerprint(texts: Mapping[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The dependency hash (64 hex) and the per-dependency short hashes of label -> canonical text.

    Returns
    -------
    tuple
        ``(dep_hash, ((label, short_hash), ...))`` with labels sorted.
    """
    full = {label: sha256(text) for label, text in texts.items()}
    digest = sha256("".join(f"{label}\x00{full[label]}\n" for label in sorted(full)))
    return digest, tuple((label, full[label][:DEP_LABEL_HEX_DIGITS]) for label in sorted(full))


def read_source(data: bytes) -> str:
    """Decode a Python file's bytes the way Python would (PEP 263 coding line, BOM).

    Undecodable bytes are kept as surrogates, so the text fails to parse later
    (and notes on it become UNPARSABLE) instead of failing the whole snapshot.
    """
    try:
        encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        text = data.decode(encoding, errors="surrogateescape")
    except LookupError:
        text = data.decode("utf-8", errors="surrogateescape")
    return text[1:] if text.startswith("\ufeff") else text


def _read_file(full: Path, root: Path) -> str | Unreadable:
    """One file's text, or why it cannot be read; never blocks, never leaves ``root``."""
    try:
        if full.is_symlink():
            try:
                target = full.resolve(strict=True)
            except RuntimeError:  # Python < 3.13 reports a loop this way
                return Unreadable("a symlink loop")
            except OSError as err:
                if err.errno == errno.ELOOP:
                    return Unreadable("a symlink loop")
                return Unreadable("a dangling symlink (its target does not exist)")
            if not target.is_relative_to(root):
                return Unreadable("a symlink to a file outside the repository (not followed)")
        fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return Unreadable("not a regular file (a FIFO, socket or device)")
            if info.st_size > MAX_FILE_BYTES:
                return Unreadable(f"larger than {MAX_FILE_BYTES} bytes")
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
                if sum(map(len, chunks)) > MAX_FILE_BYTES:
                    return Unreadable(f"larger than {MAX_FILE_BYTES} bytes")
        finally:
            os.close(fd)
    except PermissionError:
        return Unreadable("permission denied")
    except OSError as err:
        return Unreadable(f"cannot be read ({err.strerror or type(err).__name__})")
    return read_source(b"".join(chunks))


def read_snapshot(root: str | os.PathLike[str]) -> dict[str, str | Unreadable]:
    """Read every file of a registered language under ``root``: POSIX relative path -> source text.

    Hidden directories (``.git``, ``.venv``, ...), ``__pycache__`` and the
    build folders languages name (a ``target`` folder beside ``Cargo.toml``)
    are skipped, and so are symlinked directories (no loop,
    no escape). A file that cannot be read maps to an :class:`Unreadable`
    saying why. Keys come out sorted, so the same tree gives the same snapshot
    on every machine.

    Raises
    ------
    NotesError
        If ``root`` is not a directory.
    """
    root_path = Path(root)
    try:
        real_root = root_path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise NotesError(f"repository directory {str(root)!r} does not exist or is not a directory") from None
    if not real_root.is_dir():
        raise NotesError(f"repository directory {str(root)!r} does not exist or is not a directory")
    snapshot: dict[str, str | Unreadable] = {}
    build_folders = {pair for language in languages() for pair in language.build_folders}
    for dirpath, dirnames, filenames in os.walk(real_root, followlinks=False):
        skipped = {folder for marker, folder in build_folders if marker in filenames}
        dirnames[:] = sorted(
            d for d in dirnames
            if not d.startswith(".") and d != "__pycache__" and d not in skipped
            and not os.path.islink(os.path.join(dirpath, d))
        )
        for filename in sorted(filenames):
            if language_for(filename) is None:
                continue
            full = Path(dirpath) / filename
            snapshot[full.relative_to(real_root).as_posix()] = _read_file(full, real_root)
    return dict(sorted(snapshot.items()))


def check_snapshot(snapshot: object) -> Mapping[str, str | Unreadable]:
    """Refuse anything but a mapping of str paths to str sources (or :class:`Unreadable`), naming the first bad entry."""
    if not isinstance(snapshot, Mapping):
        raise NotesError(f"a snapshot must be a mapping of file path -> source text, got {type(snapshot).__name__}")
    for path, source in snapshot.items():
        if not isinstance(path, str) or not isinstance(source, (str, Unreadable)):
            raise NotesError(
                f"a snapshot maps str paths to str sources; entry {path!r} -> {type(source).__name__} is not one"
            )
    return snapshot

