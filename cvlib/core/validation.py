"""Argument checks, written once and used by every layer.

Papermill passes parameters as whatever type the command line or YAML gave
(``-p depth 6`` is an int, ``-r depth 6`` a string, ``-p depth 6.0`` a float),
so every public entry point checks what it got and says so, naming the
parameter, when it is wrong. Each check returns the value in the form the
library works with (a plain ``int``, a ``float``, a list), so callers write
``depth = require_int("depth", depth, minimum=1)`` and go on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral, Real

from cvlib.core.errors import ParameterError

__all__ = [
    "require_bool",
    "require_choice",
    "require_int",
    "require_ints",
    "require_name",
    "require_probabilities",
    "require_probability",
]


def require_int(name: str, value: object, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer (not a bool) within ``[minimum, maximum]``.

    Integer types other than ``int`` (``numpy.int64`` from an ``arange`` a
    notebook loops over) are accepted and returned as plain ``int``, so results
    stay JSON-safe; floats, even whole ones like ``6.0``, are refused rather
    than silently truncated.

    Parameters
    ----------
    name : str
        The parameter's name as the caller knows it, used in the error.
    value : object
        What was given.
    minimum, maximum : int or None
        Inclusive bounds; None for no bound.

    Returns
    -------
    int
        ``value`` as a plain int.
    """
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, Integral)):
        raise ParameterError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ParameterError(f"{name} must be >= {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise ParameterError(f"{name} must be <= {maximum}, got {number}")
    return number


def require_ints(name: str, values: object, *, minimum: int | None = None) -> list[int]:
    """Return ``values`` as a non-empty list of ints, each checked like :func:`require_int`.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error (an element is called "each of NAME").
    values : object
        An iterable of integers (a string is refused, not read digit by digit).
    minimum : int or None
        Inclusive lower bound for every element.

    Returns
    -------
    list of int
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ParameterError(f"{name} must be a list of integers, got {type(values).__name__} {values!r}")
    out = [require_int(f"each of {name}", v, minimum=minimum) for v in values]
    if not out:
        raise ParameterError(f"{name} must list at least one value, got an empty list")
    return out


def require_probability(name: str, value: object) -> float:
    """Return ``value`` as a float if it is a real number in [0, 1] (not a bool).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error.
    value : object
        What was given.

    Returns
    -------
    float
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ParameterError(f"{name} must be a probability (a number in [0, 1]), got {type(value).__name__} {value!r}")
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise ParameterError(f"{name} must be in [0, 1], got {value!r}")
    return number


def require_probabilities(name: str, values: object) -> list[float]:
    """Return ``values`` as a non-empty list of probabilities, each checked like :func:`require_probability`.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error.
    values : object
        A sequence of numbers in [0, 1].

    Returns
    -------
    list of float
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise ParameterError(f"{name} must be a non-empty list of probabilities, got {values!r}")
    return [require_probability(f"each of {name}", v) for v in values]


def require_choice(name: str, value: object, options: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``options``; the error lists them.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error.
    value : object
        What was given.
    options : sequence of str
        The accepted values.

    Returns
    -------
    str
    """
    if not isinstance(value, str) or value not in options:
        raise ParameterError(f"{name} must be one of {', '.join(options)}; got {value!r}")
    return value


def require_name(name: str, value: object) -> str:
    """Return ``value`` if it is a non-empty string (a fact, step or resource id).

    Parameters
    ----------
    name : str
        What the value names, used in the error.
    value : object
        What was given.

    Returns
    -------
    str
    """
    if not isinstance(value, str) or not value:
        raise ParameterError(f"{name} must be a non-empty string, got {type(value).__name__} {value!r}")
    return value


def require_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is a real bool; strings such as ``"false"`` are refused rather than read as true.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error.
    value : object
        What was given.

    Returns
    -------
    bool
    """
    if not isinstance(value, bool):
        raise ParameterError(f"{name} must be true or false, got {type(value).__name__} {value!r}")
    return value
