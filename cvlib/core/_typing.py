"""The few :mod:`typing` names the core uses at run time, without importing :mod:`typing`.

:mod:`typing` is the largest module a run of one scenario would load (more
than any of cvlib's own), and with ``from __future__ import annotations`` the
annotations never need it at run time. What still runs is a class statement
or a decorator: ``class Policy(Protocol)``, ``class CSR(NamedTuple)``,
``@overload``. This module gives those names to type checkers as
:mod:`typing`'s own and to the interpreter as small stand-ins that behave the
same for how cvlib uses them:

* :data:`Protocol`: a plain base class (structural typing is the type
  checker's business; nothing in cvlib calls ``isinstance`` on a protocol);
* :data:`NamedTuple`: a tuple subclass made by :func:`collections.namedtuple`
  from the annotated fields, with the class body's methods and docstring;
* :func:`overload`: returns the function unchanged (the implementation that
  follows replaces it, as with :mod:`typing`'s).

Every other name (``Any``, ``TypeVar``, ...) is imported under
``if TYPE_CHECKING:`` in the module that uses it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - what type checkers see
    from typing import NamedTuple as NamedTuple
    from typing import Protocol as Protocol
    from typing import overload as overload
else:
    from collections import namedtuple as _namedtuple

    class Protocol:
        """Base of the interfaces cvlib describes structurally (:mod:`typing`'s ``Protocol`` to type checkers)."""

        __slots__ = ()

    #: Class-body names that are not copied onto the named tuple.
    _OWN = frozenset({"__module__", "__qualname__", "__annotations__", "__dict__", "__weakref__"})

    class _NamedTupleMeta(type):
        def __new__(mcls, name, bases, namespace):  # noqa: N804 - a metaclass's first argument
            fields = tuple(namespace.get("__annotations__", {}))
            defaults = tuple(namespace[f] for f in fields if f in namespace)
            made = _namedtuple(name, fields, defaults=defaults, module=namespace.get("__module__"))
            made.__annotations__ = dict(namespace.get("__annotations__", {}))
            for key, value in namespace.items():
                if key not in _OWN and key not in fields:
                    setattr(made, key, value)
            made.__qualname__ = namespace.get("__qualname__", name)
            return made

    _NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    def NamedTuple(*_args, **_kwargs):  # noqa: N802 - typing's spelling
        """Only for ``class Name(NamedTuple):``; the functional form is :func:`collections.namedtuple`.

        Parameters
        ----------
        *_args, **_kwargs
            Refused: called, it raises :class:`TypeError`.

        Returns
        -------
        None
            It never returns.
        """
        raise TypeError("cvlib.core._typing.NamedTuple is for class statements only")

    NamedTuple.__mro_entries__ = lambda bases: (_NamedTupleBase,)

    def overload(func):
        """The function unchanged: the implementation defined after the overloads replaces it.

        Parameters
        ----------
        func : callable
            One overload's signature.

        Returns
        -------
        callable
            ``func`` itself.
        """
        return func
