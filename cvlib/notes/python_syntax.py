"""Python syntax as the notes gate reads it: parsing, canonical text, node counts, scopes and binding records.

The pieces of :class:`cvlib.notes.python.PythonFile` share these: the
canonical serialisation that makes a cosmetic edit invisible (:func:`canon`,
:func:`nameless`), the size of a normalized tree (:func:`count_nodes`), the
names a statement binds or reads, and the two records every rule walks, a
scope (module, class or function) and a binding of one name in it.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from .errors import UnparsableSource

_FUNC_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEF_TYPES = _FUNC_TYPES + (ast.ClassDef,)
_DOCSTRING_HOLDERS = _DEF_TYPES + (ast.Module,)


def parse(source: str, path: str = "<snapshot>") -> ast.Module:
    """Parse ``source`` or raise :class:`UnparsableSource` naming ``path`` and the parser's complaint."""
    try:
        return ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        raise UnparsableSource(f"{path!r} does not parse as Python: {type(err).__name__}: {err}") from None


def _is_docstring(stmt: ast.AST) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def canon(node: object) -> str:
    """Deterministic, Python-version-stable text of an AST: no positions, no empty fields, no docstrings.

    Our own serialisation rather than :func:`ast.dump`, whose text differs
    between Python versions (3.12 added ``type_params``; 3.13 hides empty
    fields); this one skips empty and ``None`` fields, so a hash computed on
    3.11 stays the hash on 3.13 for code both can parse.
    """
    if isinstance(node, ast.AST):
        parts = []
        for name in node._fields:
            value = getattr(node, name, None)
            if name == "body" and isinstance(node, _DOCSTRING_HOLDERS) and value and _is_docstring(value[0]):
                value = value[1:]
            if value is None or (isinstance(value, list) and not value):
                continue
            parts.append(f"{name}={canon(value)}")
        return f"{type(node).__name__}({','.join(parts)})"
    if isinstance(node, list):
        return "[" + ",".join(canon(item) for item in node) + "]"
    return repr(node)


def _behaviour_canon(node: object, in_function: bool = False, bare: Callable[[ast.AST], bool] | None = None) -> str:
    """:func:`canon` without the annotations of annotated assignments inside function bodies.

    Python never evaluates such an annotation (``x: Foo = 1`` or ``self.a:
    Foo = 1`` in a function body only assigns; the annotation is not stored
    either): the compiler evaluates the annotation of an annotated assignment
    only at module or class level. The assignment, its target and its value
    stay, read as the plain assignment ``x = 1`` it compiles to, and so does
    a bare ``x: Foo``, which still makes ``x`` local. A
    class body inside a function is class level again, so its annotations
    count. Parameter and return annotations always count (they are evaluated
    or stored when the function is defined, and read by ``typing.get_type_hints``),
    except for a def ``bare`` accepts: its parameter and return annotations
    are left out (:meth:`PythonFile._inert_signature` says when nothing can
    see them); for a class ``bare`` accepts, so are the annotations of the
    annotated assignments of its body (an annotation without a value still
    records that the name is declared).
    """
    if in_function and isinstance(node, ast.AnnAssign) and node.value is not None:
        return _behaviour_canon(ast.Assign(targets=[node.target], value=node.value), in_function, bare)
    if isinstance(node, ast.AST):
        parts = []
        unsigned = bare is not None and isinstance(node, _FUNC_TYPES) and bare(node)
        for name in node._fields:
            if name == "annotation" and in_function and isinstance(node, ast.AnnAssign):
                continue
            if unsigned and name == "returns":
                continue
            value = getattr(node, name, None)
            if unsigned and name == "args":
                value = _unannotated(cast(ast.arguments, value))
            if name == "body" and bare is not None and isinstance(node, ast.ClassDef) and bare(node):
                value = [_declared_only(stmt) if isinstance(stmt, ast.AnnAssign) else stmt for stmt in node.body]
            if name == "body" and isinstance(node, _DOCSTRING_HOLDERS) and value and _is_docstring(value[0]):
                value = value[1:]
            if value is None or (isinstance(value, list) and not value):
                continue
            inner = in_function
            if name == "body" and isinstance(node, _DEF_TYPES + (ast.Lambda,)):
                inner = not isinstance(node, ast.ClassDef)
            parts.append(f"{name}={_behaviour_canon(value, inner, bare)}")
        return f"{type(node).__name__}({','.join(parts)})"
    if isinstance(node, list):
        return "[" + ",".join(_behaviour_canon(item, in_function, bare) for item in node) + "]"
    return repr(node)


def _declared_only(stmt: ast.AnnAssign) -> ast.AnnAssign:
    """A class-level annotated assignment with its annotation left out (the name and value stay)."""
    return ast.AnnAssign(target=stmt.target, annotation=ast.Constant(value=None), value=stmt.value, simple=stmt.simple)


def _unevaluated_annotations(node: ast.AST, in_function: bool = False) -> Iterator[ast.AST]:
    """The annotations of annotated assignments in function bodies under ``node`` (see :func:`_behaviour_canon`)."""
    if isinstance(node, ast.AnnAssign) and in_function:
        yield node.annotation
    for name, value in ast.iter_fields(node):
        inner = in_function
        if name == "body" and isinstance(node, _DEF_TYPES + (ast.Lambda,)):
            inner = not isinstance(node, ast.ClassDef)
        if name == "annotation" and isinstance(node, ast.AnnAssign) and in_function:
            continue
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST):
                yield from _unevaluated_annotations(child, inner)


def count_nodes(node: ast.AST) -> int:
    """Nodes of the normalized tree: docstrings and expression contexts not counted."""
    count = 0
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.expr_context):
            continue
        count += 1
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, list):
                items = value
                if name == "body" and isinstance(current, _DEF_TYPES) and items and _is_docstring(items[0]):
                    items = items[1:]
                stack.extend(item for item in items if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
    return count


def nameless(node: ast.AST, name: str) -> str:
    """Canonical text of a symbol with its own name left out (so a rename keeps the hash)."""
    if isinstance(node, _DEF_TYPES):
        old = node.name
        node.name = ""
        try:
            return canon(node)
        finally:
            node.name = old
    clone = copy.deepcopy(node)
    for target in _assigned_targets(clone):
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name) and sub.id == name:
                sub.id = ""
    return canon(clone)


def _assigned_targets(stmt: ast.AST) -> list[ast.AST]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return [stmt.target]
    return []


def _bound_names(target: ast.AST) -> list[str]:
    """Names a target binds (``a``, ``a, (b, *c)``); subscripts and attributes bind nothing."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _bound_names(elt)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


def _base_name(expr: ast.AST) -> str | None:
    """``x`` for ``x``, ``x.a.b``, ``x[0].a``: the name whose object a store or call mutates."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _loaded_names(*nodes: ast.AST | None) -> set[str]:
    out: set[str] = set()
    for node in nodes:
        if node is None:
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                out.add(sub.id)
    return out


@dataclass(eq=False)
class _Binding:
    kind: str
    node: ast.AST
    context: str
    context_nodes: tuple[ast.AST, ...]


@dataclass(eq=False)
class _Scope:
    kind: str  # module | class | function
    qualname: str
    node: ast.AST | None
    parent: _Scope | None
    bindings: dict[str, list[_Binding]] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)
    self_assigned: dict[str, set[str]] = field(default_factory=dict)

    def prefix(self) -> str:
        return self.qualname + "." if self.qualname else ""


@dataclass(frozen=True, slots=True)
class PySymbol:
    """One anchorable symbol of a Python file, with what :mod:`cvlib.notes.anchors` needs to hash it."""

    qualname: str
    name: str
    kind: str
    node: ast.AST
    scope: Any  # the scope it is bound in
    first_line: int
    last_line: int


def _headers(stmt: ast.AST) -> Iterator[tuple[str, list[ast.stmt], tuple[ast.AST, ...], list[tuple[str, ast.AST]]]]:
    """For a compound statement: (header text, body, header expressions, names it binds) per branch."""
    if isinstance(stmt, ast.If):
        head = f"if({canon(stmt.test)})"
        yield head + ".then", stmt.body, (stmt.test,), []
        yield head + ".else", stmt.orelse, (stmt.test,), []
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        head = f"for({canon(stmt.target)} in {canon(stmt.iter)})"
        binds: list[tuple[str, ast.AST]] = [(n, stmt) for n in _bound_names(stmt.target)]
        yield head + ".body", stmt.body, (stmt.iter,), binds
        yield head + ".else", stmt.orelse, (stmt.iter,), []
    elif isinstance(stmt, ast.While):
        head = f"while({canon(stmt.test)})"
        yield head + ".body", stmt.body, (stmt.test,), []
        yield head + ".else", stmt.orelse, (stmt.test,), []
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        head = f"with({canon(stmt.items)})"
        binds = [(n, stmt) for item in stmt.items if item.optional_vars is not None for n in _bound_names(item.optional_vars)]
        yield head, stmt.body, tuple(item.context_expr for item in stmt.items), binds
    elif isinstance(stmt, (ast.Try, ast.TryStar)):
        yield "try.body", stmt.body, (), []
        for handler in stmt.handlers:
            head = f"except({canon(handler.type)} as {handler.name})"
            binds = [(handler.name, handler)] if handler.name else []
            yield head, handler.body, (handler.type,) if handler.type else (), binds
        yield "try.else", stmt.orelse, (), []
        yield "try.finally", stmt.finalbody, (), []
    elif isinstance(stmt, ast.Match):
        for case in stmt.cases:
            head = f"match({canon(stmt.subject)}).case({canon(case.pattern)} if {canon(case.guard)})"
            yield head, case.body, (stmt.subject,) + ((case.guard,) if case.guard else ()), []


def _unannotated(args: ast.arguments) -> ast.arguments:
    """A copy of a signature with its parameter annotations left out."""
    out = copy.copy(args)
    for name in ("posonlyargs", "args", "kwonlyargs"):
        setattr(out, name, [ast.arg(arg=a.arg) for a in getattr(args, name)])
    out.vararg = ast.arg(arg=args.vararg.arg) if args.vararg is not None else None
    out.kwarg = ast.arg(arg=args.kwarg.arg) if args.kwarg is not None else None
    return out
