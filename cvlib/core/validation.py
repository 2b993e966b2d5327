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

from cvlib.core.errors import ParameterError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from numbers import Integral, Real
    from typing import TypeGuard

__all__ = [
    "MAX_INT_DIGITS",
    "decimal_digits",
    "parse_int",
    "require_bool",
    "require_choice",
    "require_int",
    "require_ints",
    "require_name",
    "require_probabilities",
    "require_probability",
    "shown",
]

#: Most digits an integer typed as text may have; more is never a count cvlib can use.
MAX_INT_DIGITS = 30

_SHOWN_CHARS = 80


def _is_ascii_int(text: str) -> bool:
    """Whether ``text`` is an optional sign and one or more ASCII digits 0-9, nothing else."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    return digits.isascii() and digits.isdigit()  # "".isdigit() is False; among ASCII, only 0-9 are digits


def _is_integral(value: object) -> TypeGuard[Integral]:
    """``isinstance(value, numbers.Integral)``, loading :mod:`numbers` only when a value is not a plain int."""
    from numbers import Integral

    return isinstance(value, Integral)


def _is_real(value: object) -> TypeGuard[Real]:
    """``isinstance(value, numbers.Real)``, loading :mod:`numbers` only when a value is not a float or an int."""
    if type(value) is float or type(value) is int:
        return True
    from numbers import Real

    return isinstance(value, Real)


def decimal_digits(number: int) -> int:
    """How many decimal digits ``abs(number)`` has, without printing it (Python refuses past 4,300 digits).

    Parameters
    ----------
    number : int

    Returns
    -------
    int
    """
    number = abs(number)
    if number < 10:
        return 1
    digits = int((number.bit_length() - 1) * 0.30102999566398120) + 1  # a lower bound, exact or one short
    return digits + 1 if number >= 10**digits else digits


def shown(value: object) -> str:
    """``repr(value)`` for an error message: one line, at most about 80 characters.

    A value typed by a hostile user can be a megabyte of text or an integer of
    a million digits (which Python refuses to print); the message shows its
    start and says how long it was, so every error stays one readable line.

    Parameters
    ----------
    value : object
        Any value.

    Returns
    -------
    str
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**_SHOWN_CHARS:
        return f"{'-' if value < 0 else ''}<an integer of {decimal_digits(value):,} digits>"
    try:
        text = repr(value)
    except Exception:  # a repr that fails must not hide the error it was meant to describe
        return f"<{type(value).__name__}>"
    if len(text) > _SHOWN_CHARS:
        return f"{text[:_SHOWN_CHARS - 20]}... ({len(text):,} characters)"
    return text


def parse_int(name: str, text: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Read an integer typed as text: ASCII digits with an optional sign, nothing else.

    Python's ``int()`` also accepts other scripts' digits (``int("٣") == 3``),
    underscores (``int("1_0") == 10``) and surrounding whitespace; a command
    line that quietly read ``depth=٣`` as 3 would run something the user did
    not see. Surrounding spaces are allowed, everything else is refused.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error.
    text : str
        What was typed.
    minimum, maximum : int or None
        Inclusive bounds, checked like :func:`require_int`.

    Returns
    -------
    int
    """
    if not isinstance(text, str):
        raise ParameterError(f"{name} must be an integer written as text, got {type(text).__name__} {shown(text)}")
    stripped = text.strip()
    if not _is_ascii_int(stripped):
        raise ParameterError(f"{name} must be an integer, got {shown(text)} (only ASCII digits 0-9, with an optional sign)")
    digits = len(stripped.lstrip("+-"))
    if digits > MAX_INT_DIGITS:
        raise ParameterError(f"{name} must be an integer of at most {MAX_INT_DIGITS} digits, got one of {digits:,} digits")
    return require_int(name, int(stripped), minimum=minimum, maximum=maximum)


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
    if type(value) is not int and (isinstance(value, bool) or not _is_integral(value)):
        raise ParameterError(f"{name} must be an integer, got {type(value).__name__} {shown(value)}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ParameterError(f"{name} must be >= {minimum}, got {shown(number)}")
    if maximum is not None and number > maximum:
        raise ParameterError(f"{name} must be <= {maximum}, got {shown(number)}")
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
        raise ParameterError(f"{name} must be a list of integers, got {type(values).__name__} {shown(values)}")
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
    if isinstance(value, bool) or not _is_real(value):
        raise ParameterError(f"{name} must be a probability (a number in [0, 1]), got {type(value).__name__} {shown(value)}")
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise ParameterError(f"{name} must be in [0, 1], got {shown(value)}")
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
        raise ParameterError(f"{name} must be a non-empty list of probabilities, got {shown(values)}")
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
        raise ParameterError(f"{name} must be one of {', '.join(options)}; got {shown(value)}")
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
        raise ParameterError(f"{name} must be a non-empty string, got {type(value).__name__} {shown(value)}")
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
        raise ParameterError(f"{name} must be true or false, got {type(value).__name__} {shown(value)}")
    return value
