"""What a Python function's code does, read off its tree, and the vocabulary of the precise rule.

Predicates the member rules of :mod:`cvlib.notes.python_members` ask of one
method (its first parameter, the methods it calls on ``self``, whether it
sets attributes by computed name), the slicing of a setter method down to the
statements that set one attribute (:func:`_prune`), the names and constants the
rule treats specially, and :data:`FALLBACK_REASONS`, why the precise rule may
fall back to the wide one.
"""

from __future__ import annotations

import ast
import builtins
import copy
from collections.abc import Iterator
from typing import cast

from .python_syntax import _DEF_TYPES, _Binding, _headers, _Scope


def _declaration(binding: _Binding) -> bool:
    """An annotated name without a value (``x: int``): no attribute is bound."""
    return binding.kind == "annassign" and cast(ast.AnnAssign, binding.node).value is None


def _in_context(item: tuple[str, str, str], scope: str, receiver: str) -> tuple[str, str, str]:
    """A read of class ``scope``'s code, made for an instance of its subclass ``receiver``.

    ``self.x`` in a base's method, reached from a subclass, looks ``x`` up on
    that subclass (its overrides, its bases, its own subclasses), never on a
    sibling class that shares the base; the statements of a base's method
    that set ``self.x`` are read in the same context.
    """
    kind, where, name = item
    if where != scope:
        return item
    if kind == "m":
        return ("m", receiver, name)
    if kind == "sets" and name.count(" ") == 1:
        return ("sets", scope, f"{name} {receiver}")
    return item


def _all_args(func: ast.AST) -> list[ast.arg]:
    args = func.args  # type: ignore[attr-defined]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *[a for a in (args.vararg, args.kwarg) if a is not None]]


def _first_is_instance(func: ast.AST) -> bool:
    """Whether a method's first parameter is an instance (not a classmethod's class)."""
    return not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in func.decorator_list)  # type: ignore[attr-defined]


def _member_of_class(scope: _Scope) -> tuple[str, str, str]:
    """The item of a class's whole binding in its parent scope."""
    assert scope.parent is not None and isinstance(scope.node, ast.ClassDef)
    return ("m", scope.parent.qualname, scope.node.name)


def _member_of(scope: _Scope) -> tuple[str, str, str]:
    """The item of a function scope's own binding in its parent (its whole code)."""
    assert scope.parent is not None and scope.node is not None
    return ("m", scope.parent.qualname, scope.node.name)  # type: ignore[attr-defined]


def _first_param(func: ast.AST) -> str | None:
    """``self``/``cls`` of a method: its first positional parameter, unless it is a staticmethod."""
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list):  # type: ignore[attr-defined]
        return None
    params = func.args.posonlyargs + func.args.args  # type: ignore[attr-defined]
    return params[0].arg if params else None


def _flat_body(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a body, descending into if/try/with/for/while/match blocks (not into defs)."""
    for stmt in body:
        yield stmt
        if not isinstance(stmt, _DEF_TYPES):
            for _, inner, _, _ in _headers(stmt):
                yield from _flat_body(inner)


#: What constructing an instance runs, besides the class header (a metaclass makes the class not plain).
_CONSTRUCTION: tuple[str, ...] = ("__new__", "__init__", "__post_init__")

#: Members that decide ``isinstance``/``issubclass``/``except`` beyond the header.
_HOOKS: tuple[str, ...] = ("__subclasshook__", "__instancecheck__", "__subclasscheck__")

#: Builtin types a plain class may derive from (their metaclass is ``type``).
_BUILTIN_TYPES: frozenset[str] = frozenset(
    n for n in dir(builtins) if isinstance(getattr(builtins, n), type) and type(getattr(builtins, n)) is type
)

#: Builtins that call special methods of what they are given (``len(self)`` runs ``__len__``).
_BUILTIN_CALLS: frozenset[str] = frozenset({
    "len", "str", "repr", "iter", "next", "hash", "bool", "int", "float", "complex", "format", "bytes", "abs",
    "round", "reversed", "sorted", "list", "tuple", "set", "frozenset", "dict", "enumerate", "zip", "map",
    "filter", "sum", "min", "max", "any", "all", "divmod", "pow", "print", "ascii", "aiter", "anext",
})

#: Special methods by the operation on the instance.
_SPECIAL_BY_USE: dict[str, frozenset[str]] = {
    "subscript": frozenset({"__getitem__", "__setitem__", "__delitem__", "__missing__", "__class_getitem__"}),
    "arithmetic": frozenset(f"__{p}{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod",
                                                       "divmod", "pow", "lshift", "rshift", "and", "or", "xor")
                            for p in ("", "r", "i")),
    "unary": frozenset({"__neg__", "__pos__", "__invert__", "__bool__", "__len__"}),
    "compare": frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__", "__hash__",
                          "__iter__", "__getitem__", "__len__"}),
    "truth": frozenset({"__bool__", "__len__"}),
    "iteration": frozenset({"__iter__", "__next__", "__getitem__", "__len__", "__aiter__", "__anext__"}),
    "context": frozenset({"__enter__", "__exit__", "__aenter__", "__aexit__"}),
    "format": frozenset({"__format__", "__str__", "__repr__"}),
}

#: Special methods an operation on ``self`` may call implicitly (``len(self)``, ``self[k]``, ``str(self)``...).
_DUNDERS: tuple[str, ...] = (
    "__new__", "__init__", "__call__", "__len__", "__iter__", "__next__", "__reversed__", "__contains__",
    "__getitem__", "__setitem__", "__delitem__", "__missing__", "__bool__", "__eq__", "__ne__", "__lt__",
    "__le__", "__gt__", "__ge__", "__hash__", "__str__", "__repr__", "__format__", "__bytes__", "__index__",
    "__int__", "__float__", "__complex__", "__enter__", "__exit__", "__aenter__", "__aexit__", "__aiter__",
    "__anext__", "__await__", "__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__",
    "__pow__", "__and__", "__or__", "__xor__", "__neg__", "__pos__", "__invert__", "__copy__", "__deepcopy__",
    "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__", "__fspath__", "__round__", "__abs__",
)


def _self_calls(func: ast.AST, first: str) -> set[str]:
    """Names called through ``self.m(...)`` or ``super().m(...)`` in a method."""
    out = set()
    for sub in ast.walk(func):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            value = sub.func.value
            if (isinstance(value, ast.Name) and value.id == first) or (
                    isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"):
                out.add(sub.func.attr)
    return out


def _sets_by_name_only(func: ast.AST, module_functions: set[str]) -> bool:
    """A method whose only defeat of the analysis is ``setattr``/``delattr`` on its first parameter.

    No ``getattr``/``hasattr`` on it (which may read any member), no
    ``vars()`` or ``__dict__``, and it is not handed to a function of the
    file.
    """
    first = _first_param(func)
    if first is None:
        return False
    found = False
    for sub in ast.walk(func):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            on_self = bool(sub.args) and _refers_to_self(sub.args[0], first)
            if sub.func.id in ("getattr", "hasattr") and on_self:
                return False
            if sub.func.id in ("setattr", "delattr") and on_self:
                found = True
            if sub.func.id == "vars" and (not sub.args or on_self):
                return False
            if sub.func.id in module_functions and any(
                    _refers_to_self(a, first) for a in list(sub.args) + [k.value for k in sub.keywords]):
                return False
        if isinstance(sub, ast.Attribute) and sub.attr == "__dict__" and _refers_to_self(sub.value, first):
            return False
    return found


def _sets_dynamically(func: ast.AST) -> bool:
    """``setattr``/``delattr`` on the first parameter, or its ``__dict__`` or ``vars()`` used, in a method."""
    first = _first_param(func)
    if first is None:
        return False
    for sub in ast.walk(func):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            if sub.func.id in ("setattr", "delattr") and sub.args and _refers_to_self(sub.args[0], first):
                return True
            if sub.func.id == "vars" and (not sub.args or _refers_to_self(sub.args[0], first)):
                return True
        if isinstance(sub, ast.Attribute) and sub.attr == "__dict__" and _refers_to_self(sub.value, first):
            return True
    return False


_EXITS = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Assert)


def _mentions_attr(node: ast.AST, first: str, attr: str) -> bool:
    return any(isinstance(sub, ast.Attribute) and sub.attr == attr and isinstance(sub.value, ast.Name)
               and sub.value.id == first for sub in ast.walk(node))


def _without_message_text(stmt: ast.stmt) -> ast.stmt:
    """An exit of a setting method's slice with the text of its message left out.

    ``raise Error(f"bad {url!r}: try https://")`` keeps its exception, the
    values it formats and every call (they may act on the locals the slice
    follows), but not the literal text: a string constant passed to the
    exception, or the constant parts of an f-string passed to it, never
    reaches the attribute the slice is about (the method stops there; a
    ``try`` that could catch it inside the method is kept whole, text and
    all). An ``assert``'s message is treated the same way.
    """
    if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call):
        call = stmt.exc
        blank = ast.Call(func=call.func, args=[_blank_text(a) for a in call.args],
                         keywords=[ast.keyword(arg=k.arg, value=_blank_text(k.value)) for k in call.keywords])
        return ast.Raise(exc=blank, cause=stmt.cause)
    if isinstance(stmt, ast.Assert) and stmt.msg is not None:
        return ast.Assert(test=stmt.test, msg=_blank_text(stmt.msg))
    return stmt


def _blank_messages(stmt: ast.stmt) -> ast.stmt:
    """A statement kept whole in a slice, with :func:`_without_message_text` applied to the exits in its blocks.

    Only through ``if``, ``for``, ``while`` and ``match`` blocks: an exception
    raised inside a ``try`` or a ``with`` may be caught or seen there (its
    handler or the context manager's ``__exit__`` gets the exception), so
    those are left as they are.
    """
    if isinstance(stmt, (ast.Raise, ast.Assert)):
        return _without_message_text(stmt)
    if isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While)):
        block = copy.copy(stmt)
        block.body = [_blank_messages(s) for s in stmt.body]
        block.orelse = [_blank_messages(s) for s in stmt.orelse]
        return block
    if isinstance(stmt, ast.Match):
        match = copy.copy(stmt)
        cases = []
        for case in stmt.cases:
            c = copy.copy(case)
            c.body = [_blank_messages(s) for s in case.body]
            cases.append(c)
        match.cases = cases
        return match
    return stmt


def _blank_text(expr: ast.expr) -> ast.expr:
    """A string constant as ``""``, an f-string with its literal parts as ``""``; anything else as it is."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return ast.Constant(value="")
    if isinstance(expr, ast.JoinedStr):
        return ast.JoinedStr(values=[v if isinstance(v, ast.FormattedValue) else ast.Constant(value="") for v in expr.values])
    return expr


def _relevant(stmt: ast.stmt, first: str, attr: str, setters: set[str], wanted: set[str]) -> bool:
    """A simple statement (or a nested def/class) that can decide ``self.attr``."""
    if _mentions_attr(stmt, first, attr):
        return True
    if _self_calls(stmt, first) & setters:
        return True
    return any(isinstance(sub, ast.Name) and sub.id in wanted for sub in ast.walk(stmt))


def _header_nodes(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions and targets of a compound statement's header(s)."""
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return list(stmt.items)
    if isinstance(stmt, ast.Match):
        nodes: list[ast.AST] = [stmt.subject]
        return nodes + [c.pattern for c in stmt.cases] + [c.guard for c in stmt.cases if c.guard]
    return []


def _prune(body: list[ast.stmt], first: str, attr: str, setters: set[str], wanted: set[str]) -> list[ast.stmt]:
    """The statements of a body that can decide ``self.attr`` (see :meth:`PythonFile._slice_record`)."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, _EXITS):
            if isinstance(stmt, ast.Assert) or _relevant(stmt, first, attr, setters, wanted):
                out.append(_without_message_text(stmt))
            else:
                out.append(type(stmt)())  # the exit counts, not what it returns or raises
            continue
        if isinstance(stmt, _DEF_TYPES) or not any(True for _ in _headers(stmt)):
            if _relevant(stmt, first, attr, setters, wanted):
                out.append(stmt)
            continue
        if any(isinstance(sub, ast.Name) and sub.id in wanted for sub in _header_nodes(stmt) for sub in ast.walk(sub)):
            out.append(_blank_messages(stmt))  # its header binds or reads a local the slice needs: kept whole
            continue
        if isinstance(stmt, (ast.Try, ast.TryStar)):
            parts = [stmt.body, stmt.orelse, stmt.finalbody] + [h.body for h in stmt.handlers]
            if any(_prune(part, first, attr, setters, wanted) for part in parts):
                out.append(stmt)  # whether a handler runs depends on the whole try body
            continue
        clone = copy.copy(stmt)
        kept = False
        for fld in ("body", "orelse"):
            if hasattr(stmt, fld):
                inner = _prune(getattr(stmt, fld), first, attr, setters, wanted)
                setattr(clone, fld, inner)
                kept = kept or bool(inner)
        if isinstance(stmt, ast.Match):
            cases = []
            for case in stmt.cases:
                inner = _prune(case.body, first, attr, setters, wanted)
                kept = kept or bool(inner)
                c = copy.copy(case)
                c.body = inner or [ast.Pass()]
                cases.append(c)
            clone.cases = cases  # type: ignore[attr-defined]
        if kept:
            for fld in ("body",):
                if hasattr(clone, fld) and not getattr(clone, fld):
                    setattr(clone, fld, [ast.Pass()])
            out.append(clone)
    return out


#: Names whose use in a file means some of its code may read annotations (:meth:`PythonFile._annotations_unread`).
_ANNOTATION_READERS: frozenset[str] = frozenset({
    "__annotations__", "__annotate__", "get_type_hints", "get_annotations", "signature", "Signature", "from_callable",
    "getfullargspec", "getargspec", "singledispatch", "singledispatchmethod", "__signature__", "__wrapped__",
})

#: Standard library decorators (and decorator factories) that never read the annotations of what they wrap.
_INERT_STDLIB_DECORATORS: frozenset[str] = frozenset({
    "builtins.staticmethod", "builtins.classmethod", "builtins.property",
    "functools.wraps", "functools.cached_property", "functools.lru_cache", "functools.cache",
    "abc.abstractmethod", "contextlib.contextmanager", "contextlib.asynccontextmanager",
    "typing.overload", "typing.final", "typing_extensions.overload", "typing_extensions.final",
})

#: Builtins that compile source with the calling module's ``__future__`` features (:meth:`PythonFile._compiles_code`).
_COMPILERS: frozenset[str] = frozenset({"compile", "exec", "eval"})

#: The dependency item of a module's ``__future__`` imports.
_FUTURE_ITEM: tuple[str, str, str] = ("future", "", "")

#: Functions that copy a function's name, docstring and annotations onto a wrapper without reading them, by their arity.
_WRAPPER_COPIERS: dict[str, int] = {"functools.wraps": 1, "functools.update_wrapper": 2}

#: What a decorator may read off the function it is given without reading its annotations.
_NAME_ATTRIBUTES: frozenset[str] = frozenset({"__name__", "__qualname__", "__module__", "__doc__"})

#: Why the precise rule gave way to the wide one for a method (see :meth:`~cvlib.notes.python.PythonRows.fallback_reason`).
FALLBACK_REASONS: tuple[str, ...] = (
    "metaclass", "class decorator", "dynamic attribute access", "descriptor defined in the file",
    "getattr/setattr on self", "vars(self) or self.__dict__", "self passed to a function of the file",
)

#: The dependency rules :meth:`~cvlib.notes.python.PythonFile.dependencies` knows.
RULES: tuple[str, ...] = ("precise", "wide")

_BY_NAME = {"getattr", "setattr", "delattr", "hasattr"}


def _is_type_of(expr: ast.AST, first: str | None) -> bool:
    """``type(self)`` or ``self.__class__`` for the method's first parameter."""
    if first is None:
        return False
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "type"
            and len(expr.args) == 1 and isinstance(expr.args[0], ast.Name) and expr.args[0].id == first):
        return True
    return (isinstance(expr, ast.Attribute) and expr.attr == "__class__" and isinstance(expr.value, ast.Name)
            and expr.value.id == first)


def _refers_to_self(expr: ast.AST, first: str) -> bool:
    return (isinstance(expr, ast.Name) and expr.id == first) or _is_type_of(expr, first)


def _method_fallback(method: ast.AST, module_functions: set[str]) -> str:
    """A reason in the method's own code: attributes by computed name, the instance's dict, self handed to the file's code."""
    first = _first_param(method)
    if first is None:
        return ""
    for sub in ast.walk(method):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            if sub.func.id in _BY_NAME and sub.args and _refers_to_self(sub.args[0], first):
                return "getattr/setattr on self"
            if sub.func.id == "vars" and (not sub.args or _refers_to_self(sub.args[0], first)):
                return "vars(self) or self.__dict__"
            if sub.func.id in module_functions and any(
                    _refers_to_self(a, first) for a in list(sub.args) + [k.value for k in sub.keywords]):
                return "self passed to a function of the file"
        if isinstance(sub, ast.Attribute) and sub.attr == "__dict__" and _refers_to_self(sub.value, first):
            return "vars(self) or self.__dict__"
    return ""
