"""Argument checks shared by generators, scenarios and sweeps.

Papermill passes parameters as whatever type the command line or YAML gave
(``-p depth 6`` is an int, ``-r depth 6`` a string, ``-p depth 6.0`` a float),
so every public entry point checks types itself and says what it got.
"""

from __future__ import annotations

from .errors import ParameterError


def require_int(name: str, value: object, *, minimum: int | None = None) -> int:
    """Return ``value`` if it is an int (not a bool) no smaller than ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(
            f"{name} must be an integer, got {type(value).__name__} {value!r}"
        )
    if minimum is not None and value < minimum:
        raise ParameterError(f"{name} must be >= {minimum}, got {value}")
    return value


def require_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ParameterError(f"{name} must be true or false, got {type(value).__name__} {value!r}")
    return value
