"""Argument checks shared by generators, scenarios and sweeps.

Papermill passes parameters as whatever type the command line or YAML gave
(``-p depth 6`` is an int, ``-r depth 6`` a string, ``-p depth 6.0`` a float),
so every public entry point checks types itself and says what it got.
"""

from __future__ import annotations

from numbers import Integral

from cvlib.core.errors import ParameterError


def require_int(name: str, value: object, *, minimum: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer (not a bool) no smaller than ``minimum``.

    Integer types other than ``int`` (``numpy.int64`` from an ``arange`` a
    notebook loops over) are accepted and returned as plain ``int``, so results
    stay JSON-safe; floats, even whole ones like ``6.0``, are refused rather
    than silently truncated.
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ParameterError(
            f"{name} must be an integer, got {type(value).__name__} {value!r}"
        )
    value = int(value)
    if minimum is not None and value < minimum:
        raise ParameterError(f"{name} must be >= {minimum}, got {value}")
    return value


def require_name(name: str, value: object) -> str:
    """Return ``value`` if it is a non-empty string (a fact or step id)."""
    if not isinstance(value, str) or not value:
        raise ParameterError(f"{name} must be a non-empty string, got {type(value).__name__} {value!r}")
    return value


def require_bool(name: str, value: object) -> bool:
    """``value`` if it is a real bool; else a :class:`~cvlib.errors.ParameterError` naming ``name``.

    Strings such as ``"false"`` are refused rather than read as true.
    """
    if not isinstance(value, bool):
        raise ParameterError(f"{name} must be true or false, got {type(value).__name__} {value!r}")
    return value
