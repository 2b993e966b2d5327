"""A notebook's papermill parameters, checked by the names the reader passed.

Papermill delivers a parameter the way the command line spelled it:
``-p depth 6`` is an int, but ``-p depths '[1, 2, 4]'`` is the *string*
``"[1, 2, 4]"`` (only ``-y 'depths: [1, 2, 4]'`` gives a list). A library
function handed that string would fail with a message about its own argument,
or worse, not fail at all. So each chapter annotates its parameters cell
(``depths: list[int] = [1, 2, 3]``, which ``papermill --help-notebook`` also
shows as the type) and calls :func:`check_parameters` right after it: every
annotated parameter is checked against its type, a string given for a
non-string parameter is read as YAML first, and a wrong value fails with a
:class:`~cvlib.core.errors.ParameterError` that names the parameter as the reader
typed it. A parameter called ``policies`` (the executors a chapter compares,
``policies: list[str] = ["baseline", "validity_aware"]``) must also name
registered executors or ``module:attribute`` references, checked before
anything runs.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, MutableMapping
from numbers import Integral, Real
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import resolve_policies

#: The parameter name under which a chapter takes the executors it compares.
POLICIES_PARAMETER = "policies"

#: Names an annotation written as a string (``"Optional[int]"``) may use.
_ANNOTATION_NAMES: dict[str, Any] = {
    "int": int,
    "float": float,
    "str": str,
    "bool": bool,
    "list": list,
    "dict": dict,
    "Optional": typing.Optional,
    "None": type(None),
}

_WORDS = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
_PLURAL = {int: "integers", float: "numbers", str: "strings", bool: "true/false values"}


def check_parameters(
    namespace: MutableMapping[str, Any],
    *,
    minimum: Mapping[str, int | float] | None = None,
    maximum: Mapping[str, int | float] | None = None,
) -> None:
    """Check a notebook's annotated parameters and replace them by their checked values.

    Called as ``check_parameters(globals())`` in the cell after the
    parameters cell, so the names the rest of the notebook uses hold values of
    the annotated types whichever way papermill spelled them.

    Parameters
    ----------
    namespace
        The notebook's globals: the annotated names (its ``__annotations__``)
        are the parameters; each is read, checked and written back.
    minimum, maximum
        Optional bounds by parameter name, checked on a number or on every
        number of a list, so a range error names the parameter the reader
        passed rather than a library argument it is handed on to.

    Raises
    ------
    ParameterError
        A value does not fit its parameter's type or bounds, or a string
        given for a list or mapping parameter is not valid YAML.

    Parameters
    ----------
    namespace:
        The notebook's globals (``globals()``).
    minimum:
        Smallest allowed value per parameter name, if any.
    maximum:
        Largest allowed value per parameter name, if any.

    Returns
    -------
    None
        The checked values replace the raw ones in ``namespace``.
    """
    __tracebackhide__ = True  # IPython shows the notebook's line and the message, not this frame
    annotations = dict(namespace.get("__annotations__", {}))
    if not annotations:
        raise ParameterError("no annotated parameters found: annotate the parameters cell, e.g. `depth: int = 4`")
    bounds = {"minimum": dict(minimum or {}), "maximum": dict(maximum or {})}
    for key in (*bounds["minimum"], *bounds["maximum"]):
        if key not in annotations:
            raise ParameterError(f"a bound is given for {key!r}, which is not a parameter; parameters: {', '.join(annotations)}")
    checked: dict[str, Any] = {}
    problem = None
    for name, annotation in annotations.items():
        if name not in namespace:
            problem = f"parameter {name} is annotated but has no value"
            break
        try:
            value = check_value(name, namespace[name], resolve_annotation(name, annotation))
            _check_bounds(name, value, bounds["minimum"].get(name), bounds["maximum"].get(name))
            if name == POLICIES_PARAMETER:
                _check_policies(value)
        except ParameterError as err:
            problem = str(err)
            break
        checked[name] = value
    if problem is not None:
        # Raised here, outside the handler, so the notebook shows this one frame and the message.
        raise ParameterError(problem)
    namespace.update(checked)  # nothing is replaced unless every parameter is good


def _check_policies(value: Any) -> None:
    """The ``policies`` parameter: executors that exist, each named once (the message names the parameter)."""
    try:
        resolve_policies(value)
    except ParameterError as err:
        raise ParameterError(f"parameter {POLICIES_PARAMETER}: {err}") from None


def resolve_annotation(name: str, annotation: Any) -> Any:
    """The type an annotation stands for (a string annotation such as ``"Optional[int]"`` is evaluated).

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    annotation : object
        Its annotation, a type or a string.

    Returns
    -------
    object
        The type it stands for.
    """
    __tracebackhide__ = True
    if isinstance(annotation, str):
        try:
            return eval(annotation, {"__builtins__": {}}, _ANNOTATION_NAMES)  # noqa: S307 - closed namespace
        except Exception:
            raise ParameterError(
                f"parameter {name}: cannot read its annotation {annotation!r}; "
                f"use {', '.join(sorted(_ANNOTATION_NAMES))}"
            ) from None
    return annotation


def check_value(name: str, value: Any, kind: Any) -> Any:
    """``value`` as ``kind`` (int, float, str, bool, ``list[...]``, ``dict[..., ...]``, ``Optional[...]``).

    A string given where something else is expected is read as YAML first,
    which is how papermill's ``-p NAME '[1, 2]'`` and ``-r NAME 6`` arrive.

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    value : object
        The value papermill passed.
    kind : object
        The type it must have.

    Returns
    -------
    object
        The value, converted to ``kind``.
    """
    __tracebackhide__ = True
    if kind is Any:
        return value
    if isinstance(value, str) and kind is not str and not _accepts_str(kind):
        value = _from_yaml(name, value, kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if value is None and len(options) < len(args):
            return None
        for option in options:
            try:
                return check_value(name, value, option)
            except ParameterError:
                continue
        raise ParameterError(f"parameter {name} must be {describe(kind)}, got {_shown(value)}")
    if origin is list or kind is list:
        item = args[0] if args else Any
        if not isinstance(value, (list, tuple)):
            raise ParameterError(f"parameter {name} must be {describe(kind)}, got {_shown(value)}")
        return [check_value(f"{name}[{i}]", v, item) for i, v in enumerate(value)]
    if origin is dict or kind is dict:
        key_kind, value_kind = args if args else (Any, Any)
        if not isinstance(value, Mapping):
            raise ParameterError(f"parameter {name} must be {describe(kind)}, got {_shown(value)}")
        return {
            check_value(f"{name} key {k!r}", k, key_kind): check_value(f"{name}[{k!r}]", v, value_kind)
            for k, v in value.items()
        }
    if kind is bool:
        if isinstance(value, bool):
            return value
    elif kind is int:
        if isinstance(value, Integral) and not isinstance(value, bool):
            return int(value)
    elif kind is float:
        if isinstance(value, Real) and not isinstance(value, bool):
            return float(value)
    elif kind is str:
        if isinstance(value, str):
            return value
        raise ParameterError(
            f"parameter {name} must be a string, got {_shown(value)}; to pass a number as text use papermill's -r {name} VALUE"
        )
    else:
        raise ParameterError(f"parameter {name}: unsupported annotation {kind!r}")
    raise ParameterError(f"parameter {name} must be {describe(kind)}, got {_shown(value)}")


def describe(kind: Any) -> str:
    """Words for a parameter type: ``list[int]`` is 'a list of integers'.

    Parameters
    ----------
    kind:
        A parameter type.

    Returns
    -------
    str
        The type in words.
    """
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        options = [describe(a) for a in args if a is not type(None)]
        text = " or ".join(options)
        return f"{text} or None" if type(None) in args else text
    if origin is list or kind is list:
        return f"a list of {_plural(args[0])}" if args else "a list"
    if origin is dict or kind is dict:
        return "a mapping"
    return _WORDS.get(kind, getattr(kind, "__name__", str(kind)))


def _plural(kind: Any) -> str:
    if kind in _PLURAL:
        return _PLURAL[kind]
    if typing.get_origin(kind) is list or kind is list:
        args = typing.get_args(kind)
        return f"lists of {_plural(args[0])}" if args else "lists"
    if typing.get_origin(kind) is dict or kind is dict:
        return "mappings"
    return "values"


def _accepts_str(kind: Any) -> bool:
    return kind is str or (
        typing.get_origin(kind) in (typing.Union, types.UnionType) and str in typing.get_args(kind)
    )


def _from_yaml(name: str, text: str, kind: Any) -> Any:
    __tracebackhide__ = True
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        problem = getattr(err, "problem", None) or "not valid YAML"
        raise ParameterError(
            f"parameter {name} must be {describe(kind)}, got the text {text!r}, which is not valid YAML ({problem}); "
            f"write it as -p {name} '[1, 2, 3]' or -y '{name}: [1, 2, 3]'"
        ) from None


def _check_bounds(name: str, value: Any, low: int | float | None, high: int | float | None) -> None:
    __tracebackhide__ = True
    items = value if isinstance(value, list) else [value]
    for i, item in enumerate(items):
        label = f"{name}[{i}]" if isinstance(value, list) else name
        if isinstance(item, Real) and not isinstance(item, bool):
            number = float(item)
            if low is not None and number < low:
                raise ParameterError(f"parameter {label} must be >= {low}, got {item}")
            if high is not None and number > high:
                raise ParameterError(f"parameter {label} must be <= {high}, got {item}")


def _shown(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"
