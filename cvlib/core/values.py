"""Frozen value classes that cost almost nothing to define: the core's own small ``@dataclass``.

Every value of the core (a fact, an event, a step, the rules, an executor's
result, a scenario's set-up) is a frozen, slotted record compared and hashed
by its fields. :mod:`dataclasses` makes such classes, but importing it costs
more than the whole of the original implementation's start-up (it imports
:mod:`inspect`, which imports :mod:`ast`, :mod:`dis`, :mod:`tokenize` and
more), and it compiles five or six functions per class. The core defines some
twenty value classes on the way to running one scenario, so it uses
:func:`value_class` instead: the same semantics for what the core needs (fields in
order from the annotations, defaults, :func:`field` with a
``default_factory``, ``__post_init__``, frozen or not, slots, ``__eq__``,
``__hash__``, ``__repr__``, ``__match_args__``, pickling), one small
``__init__`` per class, compiled the first time the class is called or its
``__init__`` looked up (so a run pays only for the classes it uses; ``==``,
``hash`` and ``repr`` are shared functions over the field names), and no
import beyond the interpreter's own.

:func:`replace`, :func:`asdict` and :func:`fields` do for these classes what
their namesakes in :mod:`dataclasses` do for dataclasses (and accept
dataclasses too, so callers need not know which they hold).
"""

from __future__ import annotations

from operator import attrgetter
from types import CodeType, FunctionType

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - what type checkers see
    from collections.abc import Callable
    from typing import Any, TypeVar
    from typing import dataclass_transform as _transform

    T = TypeVar("T")
else:

    def _transform(**_: object) -> Callable[[T], T]:
        return lambda f: f


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen value (like :class:`dataclasses.FrozenInstanceError`)."""


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """A field's default or default factory, as :func:`field` gives it (read by :func:`value_class`)."""

    __slots__ = ("default", "default_factory", "repr", "compare", "name")

    def __init__(self, default: Any, default_factory: Any, repr: bool, compare: bool) -> None:
        self.default, self.default_factory, self.repr, self.compare = default, default_factory, repr, compare
        self.name = ""

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


def field(*, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True, compare: bool = True) -> Any:
    """A field with a default factory (a fresh mutable default per value) or one left out of ``repr`` or ``==``.

    Parameters
    ----------
    default : object
        The default value.
    default_factory : callable
        Called with no arguments for each new value that is not given this field.
    repr, compare : bool
        Whether the field appears in ``repr`` and takes part in ``==`` and ``hash``.

    Returns
    -------
    Field
    """
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("a field has a default or a default_factory, not both")
    return Field(default, default_factory, repr, compare)


def _is_classvar(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return isinstance(text, str) and (text.startswith(("ClassVar", "typing.ClassVar")) or text == "ClassVar")


def _make_repr(shown: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if not names:
        return lambda _: ()
    get = attrgetter(*names)
    return get if len(names) > 1 else lambda obj: (get(obj),)


def _make_eq(names: tuple[str, ...]) -> Callable[[Any, Any], Any]:
    key = _key(names)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return key(self) == key(other)

    return __eq__


def _make_hash(names: tuple[str, ...]) -> Callable[[Any], int]:
    key = _key(names)

    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


#: Compiled ``__init__`` code, by the number of fields, the positions with a default factory and
#: whether ``__post_init__`` is called. Classes of one shape share one compilation; each gets its own
#: copy of the code with its field names put in (:meth:`types.CodeType.replace`), its defaults and
#: its factories.
_INIT_CODE: dict[tuple[int, tuple[int, ...], bool], CodeType] = {}


def _init_code(count: int, factories: tuple[int, ...], post_init: bool) -> CodeType:
    """The ``__init__`` of a shape, its fields called ``_0``, ``_1``, ... (in parameters and constants alike)."""
    key = (count, factories, post_init)
    code = _INIT_CODE.get(key)
    if code is None:
        params = [f"_{i}" for i in range(count)]
        body = [
            f"  setter(self, {p!r}, factory_{i}() if {p} is MISSING else {p})" if i in factories
            else f"  setter(self, {p!r}, {p})"
            for i, p in enumerate(params)
        ]
        if post_init:
            body.append("  self.__post_init__()")
        namespace: dict[str, Any] = {}
        exec("\n".join([f"def __init__({', '.join(['self', *params])}):", *(body or ["  pass"])]), namespace)
        code = _INIT_CODE[key] = namespace["__init__"].__code__
    return code


class _LazyInit:
    """A value class's ``__init__`` until it is first needed: then made, put in its place and returned.

    Any lookup of ``__init__`` (a call of the class, :func:`inspect.signature`,
    autodoc) goes through :meth:`__get__`, so nothing ever sees this object
    in place of the function, and once made the class holds the plain
    function (no cost per call).
    """

    __slots__ = ("names", "defaults", "factories", "post_init", "owner")

    def __init__(self, specs: dict[str, Field], post_init: bool) -> None:
        self.names = tuple(specs)
        if "self" in self.names:
            raise TypeError("a value class may not have a field called 'self'")
        # Defaults are a suffix (checked by _process); a field with a factory defaults to MISSING.
        self.defaults = tuple(
            spec.default if spec.default_factory is MISSING else MISSING
            for spec in specs.values()
            if spec.default is not MISSING or spec.default_factory is not MISSING
        )
        self.factories = {i: spec.default_factory for i, spec in enumerate(specs.values()) if spec.default_factory is not MISSING}
        self.post_init = post_init
        self.owner: type | None = None  # the class, set once it is made

    def function(self) -> Callable[..., None]:
        """The ``__init__``, now the owner's own."""
        template = _init_code(len(self.names), tuple(self.factories), self.post_init)
        real = {f"_{i}": name for i, name in enumerate(self.names)}
        qualname = f"{self.owner.__qualname__ if self.owner else '?'}.__init__"
        code = template.replace(
            co_varnames=("self", *self.names),
            co_consts=tuple(real.get(c, c) if type(c) is str else c for c in template.co_consts),
            co_qualname=qualname,
        )
        scope: dict[str, Any] = {"MISSING": MISSING, "setter": object.__setattr__}
        scope.update((f"factory_{i}", factory) for i, factory in self.factories.items())
        function: Callable[..., None] = FunctionType(code, scope, "__init__", self.defaults or None)
        function.__qualname__ = qualname
        if self.owner is not None:
            function.__module__ = self.owner.__module__
            type.__setattr__(self.owner, "__init__", function)
        return function

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        function = self.function()
        return function if obj is None else function.__get__(obj, owner)


def _frozen_setattr(self: object, name: str, _: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")


def _getstate(self: object) -> tuple[object, ...]:
    return tuple(getattr(self, name) for name in self.__value_fields__)  # type: ignore[attr-defined]


def _setstate(self: object, state: tuple[object, ...]) -> None:
    for name, item in zip(self.__value_fields__, state):  # type: ignore[attr-defined]
        object.__setattr__(self, name, item)


@_transform(field_specifiers=(field,))
def value_class(cls: type[T] | None = None, /, *, frozen: bool = True, slots: bool = True, eq: bool = True) -> Any:
    """Make ``cls`` a value class: an ``__init__`` from its annotated fields, ``==``, ``hash``, ``repr``, frozen.

    Parameters
    ----------
    cls : type
        The class (``@value_class``), or None (``@value_class(frozen=False)``).
    frozen : bool
        Refuse assignment after ``__init__`` (:class:`FrozenInstanceError`); frozen values are hashable.
    slots : bool
        Give the class ``__slots__`` (no per-instance dict).
    eq : bool
        Compare by fields.

    Returns
    -------
    type
        The class (a new one when ``slots``), with the methods added.
    """

    def wrap(klass: type[T]) -> type[T]:
        return _process(klass, frozen, slots, eq)

    return wrap if cls is None else wrap(cls)


def _process(cls: type[T], frozen: bool, slots: bool, eq: bool) -> type[T]:
    own = cls.__dict__.get("__annotations__", {})
    inherited: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        inherited.update(getattr(base, "__value_field_specs__", {}))
    specs = dict(inherited)
    for name, annotation in own.items():
        if _is_classvar(annotation):
            continue
        default = cls.__dict__.get(name, MISSING)
        spec = default if isinstance(default, Field) else Field(default, MISSING, True, True)
        spec.name = name
        specs[name] = spec
    names = tuple(specs)
    seen_default = False
    for name in names:
        has = specs[name].default is not MISSING or specs[name].default_factory is not MISSING
        if seen_default and not has:
            raise TypeError(f"non-default field {name!r} follows a default field in {cls.__name__}")
        seen_default = seen_default or has
    namespace: dict[str, Any] = {}
    compared = tuple(n for n in names if specs[n].compare)
    shown = tuple(n for n in names if specs[n].repr)
    lazy_init = _LazyInit(specs, hasattr(cls, "__post_init__"))
    namespace["__repr__"] = _make_repr(shown)
    if eq:
        namespace["__eq__"] = _make_eq(compared)
        if frozen:
            namespace["__hash__"] = _make_hash(compared)
    body_dict = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__")}
    for name in names:
        if isinstance(body_dict.get(name), Field):
            spec = specs[name]
            if spec.default is MISSING:
                del body_dict[name]
            else:
                body_dict[name] = spec.default
    if "__init__" not in cls.__dict__:
        body_dict["__init__"] = lazy_init
    for method in ("__repr__", "__eq__", "__hash__"):
        if method in namespace and method not in cls.__dict__:
            function = namespace[method]
            function.__qualname__ = f"{cls.__qualname__}.{method}"
            body_dict[method] = function
    if eq and not frozen and "__hash__" not in cls.__dict__:
        body_dict["__hash__"] = None
    if frozen:
        body_dict["__setattr__"] = _frozen_setattr
        body_dict["__delattr__"] = _frozen_delattr
    body_dict["__getstate__"] = _getstate
    body_dict["__setstate__"] = _setstate
    body_dict["__match_args__"] = names
    body_dict["__value_fields__"] = names
    body_dict["__value_field_specs__"] = specs
    if slots:
        own_names = tuple(n for n in names if n not in inherited)
        for name in own_names:
            body_dict.pop(name, None)  # a class attribute would shadow the slot
        body_dict["__slots__"] = own_names
        metaclass: Any = type(cls)
        new: type[T] = metaclass(cls.__name__, cls.__bases__, body_dict)
        new.__qualname__ = cls.__qualname__
        lazy_init.owner = new
        return new
    for name, item in body_dict.items():
        if name not in cls.__dict__ or cls.__dict__[name] is not item:
            setattr(cls, name, item)
    lazy_init.owner = cls
    return cls


def fields(obj: Any) -> tuple[str, ...]:
    """The field names of a value (or of a dataclass), in order.

    Parameters
    ----------
    obj : object
        A value made by :func:`value_class` (or a dataclass instance or class).

    Returns
    -------
    tuple of str
    """
    names = getattr(obj, "__value_fields__", None)
    if names is not None:
        return tuple(names)
    if hasattr(obj, "__dataclass_fields__"):
        import dataclasses

        return tuple(f.name for f in dataclasses.fields(obj))
    raise TypeError(f"{type(obj).__name__} is not a value class")


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of ``obj`` with some fields changed, built through ``__init__`` (so its checks run again).

    Parameters
    ----------
    obj : object
        A value (or a dataclass instance).
    **changes : object
        New values by field name.

    Returns
    -------
    object
        A new value of the same class.
    """
    if not hasattr(obj, "__value_fields__"):
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var,unused-ignore]
    names = obj.__value_fields__
    unknown = set(changes) - set(names)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    return type(obj)(**{name: changes[name] if name in changes else getattr(obj, name) for name in names})


def asdict(obj: Any) -> dict[str, Any]:
    """A value's fields as a dict, nested values (and lists, tuples and dicts of them) converted too.

    Parameters
    ----------
    obj : object
        A value (or a dataclass instance).

    Returns
    -------
    dict
    """
    if not hasattr(obj, "__value_fields__"):
        import dataclasses

        return dataclasses.asdict(obj)
    return {name: _plain(getattr(obj, name)) for name in obj.__value_fields__}


def _plain(item: Any) -> Any:
    if hasattr(item, "__value_fields__"):
        return asdict(item)
    if hasattr(item, "__dataclass_fields__") and not isinstance(item, type):
        import dataclasses

        return dataclasses.asdict(item)
    if isinstance(item, (list, tuple)) and not hasattr(item, "_fields"):
        return type(item)(_plain(x) for x in item)
    if isinstance(item, dict):
        return type(item)((_plain(k), _plain(v)) for k, v in item.items())
    return item
