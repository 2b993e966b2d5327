"""One way to open a model: :func:`open_model`, and the backends it asks.

A spec is a string: a bundled model's name (``qwen2.5-coder-0.5b``), a path
to any GGUF file, an OpenAI-compatible server's URL
(``http://127.0.0.1:8080/v1#model-name``), or a recording to answer from
(``replay:PATH``). Each backend says which specs it claims; exactly one must
claim a spec, so a spec never means two things.

Backends are announced in the entry-point group ``cvlib.models``, the
built-in ones too (see ``pyproject.toml``), so a new backend is one module
and one line: an object (or a class, instantiated once) with a ``name``, an
``accepts`` sentence for error messages, ``claims(spec) -> bool`` and
``open(spec) -> LanguageModel``. :func:`register_backend` adds one at run time
(a notebook's own backend), :func:`unregister_backend` takes it back.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from cvlib.core.errors import ParameterError
from cvlib.models.interface import LanguageModel

__all__ = [
    "ENTRY_POINT_GROUP",
    "ModelBackend",
    "backends",
    "open_model",
    "register_backend",
    "unregister_backend",
]

#: The entry-point group backends are announced in.
ENTRY_POINT_GROUP = "cvlib.models"


@runtime_checkable
class ModelBackend(Protocol):
    """What :func:`open_model` asks of a backend."""

    name: str
    accepts: str

    def claims(self, spec: str) -> bool:
        """Whether this backend opens ``spec``."""

    def open(self, spec: str) -> LanguageModel:
        """The model ``spec`` names."""


_REGISTERED: dict[str, ModelBackend] = {}
_LOADED = False


def _instance(name: str, loaded: Any) -> ModelBackend:
    backend = loaded() if isinstance(loaded, type) else loaded
    missing = [a for a in ("name", "accepts", "claims", "open") if not hasattr(backend, a)]
    if missing:
        raise ParameterError(
            f"model backend {name!r} lacks {', '.join(missing)}; a backend has name, accepts, claims(spec) and open(spec)"
        )
    return backend  # type: ignore[no-any-return]


def _load_entry_points() -> None:
    global _LOADED
    if _LOADED:
        return
    from importlib.metadata import entry_points

    found: dict[str, ModelBackend] = {}
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
        if point.name in found:
            continue  # the same backend from two installed copies: the first by value wins, deterministically
        try:
            loaded = point.load()
        except Exception as exc:  # a broken plug-in names itself, in one line
            raise ParameterError(f"model backend {point.name!r} ({point.value}) failed to load: {exc}") from None
        found[point.name] = _instance(point.name, loaded)
    for name, backend in found.items():
        _REGISTERED.setdefault(name, backend)
    _LOADED = True


def backends() -> dict[str, ModelBackend]:
    """Every backend, by name: those installed (entry points) and those registered here.

    Returns
    -------
    dict of str to ModelBackend
    """
    _load_entry_points()
    return dict(sorted(_REGISTERED.items()))


def register_backend(backend: ModelBackend | Callable[[], ModelBackend]) -> ModelBackend:
    """Add a backend (an object, or a class to instantiate) under its ``name``; a name in use is refused.

    Parameters
    ----------
    backend : ModelBackend or type
        The backend.

    Returns
    -------
    ModelBackend
        The registered instance.
    """
    _load_entry_points()
    instance = _instance(getattr(backend, "name", "?"), backend)
    if instance.name in _REGISTERED:
        raise ParameterError(f"a model backend named {instance.name!r} is already registered; unregister it first")
    _REGISTERED[instance.name] = instance
    return instance


def unregister_backend(name: str) -> None:
    """Remove the backend ``name`` (an installed one comes back only in a new process).

    Parameters
    ----------
    name : str
        The backend's name.
    """
    _load_entry_points()
    if name not in _REGISTERED:
        raise ParameterError(f"no model backend named {name!r}; registered: {', '.join(sorted(_REGISTERED)) or 'none'}")
    del _REGISTERED[name]


def open_model(spec: str | os.PathLike[str]) -> LanguageModel:
    """The model ``spec`` names, opened by the one backend that claims it.

    Parameters
    ----------
    spec : str or os.PathLike
        A bundled model's name, a GGUF path, a server URL (``http://host:port/v1#name``) or ``replay:PATH``.

    Returns
    -------
    LanguageModel
        Not loaded yet: the first call (or :meth:`~cvlib.models.interface.LanguageModel.prepare`) loads it.
    """
    if not isinstance(spec, str | os.PathLike) or not os.fspath(spec):
        raise ParameterError(f"model must be a bundled name, a GGUF path or a server URL, got {spec!r}")
    text = os.fspath(spec)
    registered = backends()
    claiming = [b for b in registered.values() if b.claims(text)]
    if not claiming:
        choices = "; ".join(f"{b.name}: {b.accepts}" for b in registered.values())
        raise ParameterError(f"no model backend opens {text!r}; expected {choices}")
    if len(claiming) > 1:
        names = ", ".join(b.name for b in claiming)
        raise ParameterError(f"model {text!r} is claimed by several backends ({names}); unregister one")
    return claiming[0].open(text)
