"""Python files: their symbols, and what each symbol's behaviour depends on inside its module.

Parsed with :mod:`ast`; which names a function reads from its module (rather
than from its own locals or an enclosing function) comes from ``symtable``,
the compiler's own scoping, so comprehension variables, ``global`` and
``nonlocal`` declarations are resolved as Python resolves them.

Symbols (what a note can be anchored on)
----------------------------------------
``function`` (module level), ``class``, ``method`` (``Class.method``, also in
nested classes: ``Outer.Inner.method``), ``nested`` (a function defined in a
function: ``outer.inner``), ``constant`` (a module-level assignment:
``ELAPSED_TIME_LABEL``) and ``attribute`` (a class-level assignment:
``Class.name``). Definitions under ``if``/``try``/``with``/``for``/``while``/
``match`` count at the level of that block. A qualified name bound twice gets
an ordinal suffix from its second binding on, in source order
(``Response.content``, ``Response.content#2``).

Dependencies (what the fingerprint sees besides the symbol's own code)
----------------------------------------------------------------------
Each dependency is a *binding record*: every statement of the module (or of a
class body) that binds or mutates one name, in source order, each with the
``if``/``try``/``for``... headers it sits under. Its label is the name
(``LIMIT``, ``json``, ``helper``), ``Class.name`` for a class member, or
``class Class`` for a class's header (bases, keywords, decorators, and where
the class is bound). A symbol depends on:

* **its own binding record** (label: its own name), in which its own code is
  a placeholder: a later ``def`` of the same name, ``target = helper``, or
  moving the definition under ``if False:`` changes it;
* every **module-level name its code reads** (functions it calls, constants,
  classes, decorators, default values, annotations), resolved with
  ``symtable``, **transitively** through the code of those names; a name
  the module does not bind (a builtin) is recorded as unbound, so a later
  module-level definition that shadows it is seen; ``from m import *`` is
  part of every unbound name's record;
* **import bindings** as written (``import json`` and ``import simplejson as
  json`` differ), never the imported module's code; under the precise rule
  a relative import is read against the file's path as its import path
  (``from .base import X`` in ``pkg/m.py`` is ``from pkg.base import X``,
  ``PythonFile._absolute_import``);
* for a **method**: its class's header and the members it reads (``self.x``,
  ``cls.x``, ``type(self).x``, ``super().x``, its class's name), resolved to
  the class body, to base classes and overriding subclasses defined in the
  same module, and, for an instance attribute, to the statements of each
  method that can set it (the assignments,
  the locals they read, the blocks around them, every exit of the method);
  ``self`` used as a value adds the class's special methods. A member
  found in a base, reached from a subclass, is read for an instance of that
  subclass (precise rule): ``self.x`` in the base's code resolves on the
  subclass, its bases and its own subclasses, not on a sibling that shares
  the base; a class read by name (``Cls.x``, ``Cls(...)``) is looked up on
  that class and its bases. The wide rule
  (``rule="wide"``) counts every class-level attribute for every method, a
  setter method whole, and a base whole; the precise rule falls back to it
  where code defeats the analysis (:data:`FALLBACK_REASONS`), except that a
  method whose only such code is ``setattr(self, name, v)`` counts what
  assignment can run (``PythonFile._settable_members``);
* for a **module-level class read by name** (precise rule): what the use
  needs: the header and binding for
  ``isinstance``, ``issubclass``, ``except`` and annotations (nothing for
  an annotation of a signature nothing can see); the member for
  ``Cls.attr``; the construction path and the members used on the new
  instance for ``Cls(...)``; the whole class where the class or a new
  instance escapes, or where the class is not plain (a base from elsewhere,
  a metaclass, a decorator). A base in a class header counts by its header,
  its ``__init_subclass__`` and ``__slots__``;
* for a **nested function**: the whole enclosing function (its closure).

What a record compares (precise rule): the code as parsed, less what
cannot change behaviour: docstrings, comments and formatting (never in the
tree), and the annotations of annotated assignments in function bodies,
which Python neither evaluates nor stores (names read only there are not
followed either, in a whole method or in the statements of a setting
method). Parameter and return annotations count, except where nothing can
see them (``PythonFile._inert_signature``): in a file with no code that
reads annotations, for a def whose decorators do not read them and whose
annotations are never evaluated (the future import) or only look up names
bound for sure and subscript typing objects; the names read only there are
not followed. Code that calls the builtin ``compile``, ``exec`` or ``eval``
depends on the module's ``__future__`` imports, which they inherit. The
literal text of an exception raised on the way to setting an attribute is
not part of that attribute's slice (``_without_message_text``). Class-level
annotations count, except under ``from __future__ import annotations`` in a
plain class (``PythonFile._inert_annotations``): there a declaration
``x: T`` records that ``x`` is declared and ``x: T = v`` its value, and
code reading ``__annotations__`` of the class depends on every annotation.
The statements of a method that set an attribute (its slice) are compared
without the method's parameter annotations unless a decorator may read them:
an annotation never changes what the statements do with the arguments they
get (it is evaluated once, when the method is defined, into
``__annotations__``, or never under the future import); code that chooses
the arguments by it (a framework that constructs the class) is a caller
elsewhere, out of reach like any caller. A metaclass ``abc.ABCMeta`` is no
fallback: it changes no member lookup.

Out of reach: the code of other modules (an import is seen as a binding, not
as what it imports), anything decided at run time (``getattr``, monkeypatching,
a subclass elsewhere overriding a method, attributes set from outside the
class), mutation of a module-level object through another name, data files and
the environment, and which Python version runs the code (an annotation such
as ``X | None``, evaluated without the future import, fails before 3.10;
the gate compares code, not interpreters). The slice of a setter method is flow-insensitive but does not
follow exceptions: a statement that does not name the attribute, nor a local
the assignment reads, and starts raising before the assignment is not seen.
An object returned by a call (``Cls.make().run()``) is followed only through
what the called code names (a returned new instance counts its class whole).
"""

from __future__ import annotations

import ast
import builtins
import copy
import json
import symtable
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from .errors import NotesError, UnparsableSource
from .languages import Language, register_language
from .symbols import Symbol, sha256

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


class PythonFile:
    """The symbols of one Python source and, on demand, the dependency fingerprint of each.

    Raises
    ------
    UnparsableSource
        If the source does not parse.
    """

    def __init__(self, source: str, path: str = "<snapshot>"):
        self.path = path
        self.source = source
        self.tree = parse(source, path)
        self.module = _Scope("module", "", self.tree, None)
        self.scopes: dict[str, _Scope] = {"": self.module}
        self.symbols: list[PySymbol] = []
        self._seen: dict[str, int] = {}
        self._def_scopes: dict[int, _Scope] = {}  # id of a def statement -> the scope it is bound in
        self._class_scopes: dict[int, _Scope] = {}  # id of a class statement -> its own scope
        self._inert_cache: dict[int, bool] = {}
        self._unread: bool | None = None
        self._walk(self.tree.body, self.module, "", ())
        self._global_rebinds()
        self._tables = self._symtables()
        self._canon_cache: dict[tuple[int, str], str] = {}
        self._read_cache: dict[int, set[str]] = {}
        self._rule = "precise"
        #: Each label's distance from the symbol in the last :meth:`dependencies` call, 0 for its own binding.
        self.depths: dict[str, int] = {}
        self._fallbacks: dict[int, str] = {}
        self._parent_cache: dict[int, dict[int, ast.AST]] = {}
        self._setters_cache: dict[str, list[str]] = {}
        self._closure_cache: dict[tuple[str, str], set[str]] = {}
        self._slice_cache: dict[tuple[str, str, str], tuple[str, frozenset[tuple[str, str, str]]]] = {}

    # -- finding symbols and bindings ------------------------------------------------------

    def _add_symbol(self, scope: _Scope, name: str, kind: str, node: ast.AST) -> None:
        qualname = scope.prefix() + name
        self._seen[qualname] = self._seen.get(qualname, 0) + 1
        if self._seen[qualname] > 1:
            qualname = f"{qualname}#{self._seen[qualname]}"
        decorators = getattr(node, "decorator_list", []) or []
        located = cast(ast.stmt, node)  # a symbol is bound by a statement, which has lines
        first = min([located.lineno] + [d.lineno for d in decorators])
        self.symbols.append(PySymbol(qualname, name, kind, node, scope, first, located.end_lineno or located.lineno))

    def _bind(self, scope: _Scope, name: str, kind: str, node: ast.AST, ctx: str, ctx_nodes: tuple[ast.AST, ...]) -> None:
        scope.bindings.setdefault(name, []).append(_Binding(kind, node, ctx, ctx_nodes))

    def _walk(self, body: list[ast.stmt], scope: _Scope, ctx: str, ctx_nodes: tuple[ast.AST, ...]) -> None:
        for stmt in body:
            self._statement(stmt, scope, ctx, ctx_nodes)

    def _statement(self, stmt: ast.stmt, scope: _Scope, ctx: str, ctx_nodes: tuple[ast.AST, ...]) -> None:
        assignable = scope.kind != "function"
        if isinstance(stmt, _FUNC_TYPES):
            self._def_scopes[id(stmt)] = scope
            self._bind(scope, stmt.name, "def", stmt, ctx, ctx_nodes)
            self._add_symbol(scope, stmt.name, {"module": "function", "class": "method", "function": "nested"}[scope.kind], stmt)
            child = _Scope("function", scope.prefix() + stmt.name, stmt, scope)
            self.scopes.setdefault(child.qualname, child)
            self._walk(stmt.body, child, "", ())
        elif isinstance(stmt, ast.ClassDef):
            self._bind(scope, stmt.name, "class", stmt, ctx, ctx_nodes)
            self._add_symbol(scope, stmt.name, "class", stmt)
            child = _Scope("class", scope.prefix() + stmt.name, stmt, scope)
            self._class_scopes[id(stmt)] = child
            self.scopes.setdefault(child.qualname, child)
            self._walk(stmt.body, child, "", ())
            self._collect_self_attributes(child, stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in _assigned_targets(stmt):
                names = _bound_names(target)
                for name in names:
                    self._bind(scope, name, type(stmt).__name__.lower(), stmt, ctx, ctx_nodes)
                    if assignable:
                        self._add_symbol(scope, name, "constant" if scope.kind == "module" else "attribute", stmt)
                if not names and assignable and (base := _base_name(target)) is not None:
                    self._bind(scope, base, "mutate", stmt, ctx, ctx_nodes)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                if alias.name == "*":
                    scope.stars.append(canon(stmt))
                    continue
                bound = alias.asname or alias.name.split(".")[0]
                text = ast.ImportFrom(module=stmt.module, names=[alias], level=stmt.level) if isinstance(stmt, ast.ImportFrom) else ast.Import(names=[alias])
                self._bind(scope, bound, "import", text, ctx, ctx_nodes)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                for name in _bound_names(target) or [n for n in [_base_name(target)] if n and assignable]:
                    self._bind(scope, name, "del", stmt, ctx, ctx_nodes)
        elif isinstance(stmt, ast.Expr) and assignable:
            for sub in ast.walk(stmt.value):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and (base := _base_name(sub.func)):
                    self._bind(scope, base, "mutate", stmt, ctx, ctx_nodes)
                if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                    self._bind(scope, sub.target.id, "walrus", stmt, ctx, ctx_nodes)
        else:
            for head, body, exprs, binds in _headers(stmt):
                for name, node in binds:
                    self._bind(scope, name, "block", node, ctx + "/" + head, ctx_nodes + exprs)
                self._walk(body, scope, ctx + "/" + head, ctx_nodes + exprs)

    def _collect_self_attributes(self, scope: _Scope, cls: ast.ClassDef) -> None:
        """Which methods assign ``self.x`` (so a read of ``self.x`` depends on them)."""
        for stmt in _flat_body(cls.body):
            if isinstance(stmt, _FUNC_TYPES):
                first = _first_param(stmt)
                if first is None:
                    continue
                for sub in ast.walk(stmt):
                    if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == first
                            and isinstance(sub.ctx, (ast.Store, ast.Del))):
                        scope.self_assigned.setdefault(sub.attr, set()).add(stmt.name)

    def _global_rebinds(self) -> None:
        """A function that declares ``global x`` and binds it rebinds the module's ``x``."""
        for scope in list(self.scopes.values()):
            if scope.kind != "function":
                continue
            if scope.node is None:
                continue
            declared = {n for sub in ast.walk(scope.node) if isinstance(sub, ast.Global) for n in sub.names}
            for name in sorted(declared):
                if any(isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, (ast.Store, ast.Del))
                       for sub in ast.walk(scope.node)):
                    self._bind(self.module, name, f"global in {scope.qualname}", scope.node, "", ())

    def _symtables(self) -> dict[tuple[str, int], symtable.SymbolTable] | None:
        try:
            top = symtable.symtable(self.source, self.path, "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        found: dict[tuple[str, int], symtable.SymbolTable] = {}
        stack = [top]
        while stack:
            table = stack.pop()
            found.setdefault((table.get_name(), table.get_lineno()), table)
            stack.extend(table.get_children())
        return found

    # -- what a piece of code reads ----------------------------------------------------------

    def _code(self, node: ast.AST) -> str:
        key = (id(node), self._rule)
        if key not in self._canon_cache:
            if self._rule == "precise" and isinstance(node, ast.ImportFrom) and node.level:
                self._canon_cache[key] = canon(self._absolute_import(node))
            else:
                self._canon_cache[key] = (_behaviour_canon(node, bare=self._inert_signature) if self._rule == "precise"
                                          else canon(node))
        return self._canon_cache[key]

    def _absolute_import(self, node: ast.ImportFrom) -> ast.ImportFrom:
        """``from .base import X`` in ``pkg/sub/mod.py`` as ``from pkg.sub.base import X`` (precise rule).

        The file's path is read as its import path: ``pkg/sub/mod.py`` (or
        ``pkg/sub/__init__.py``) is a module of package ``pkg.sub``, and a
        relative import of level ``n`` names the package ``n - 1`` levels
        above it, the module Python imports for it; so rewriting an import
        between the relative and the absolute spelling of one module changes
        no record. A path that is not a chain of identifiers, or an import
        that climbs above the path's top folder, stays as written; where the
        path is not the import path (a ``src/`` folder in front) the two
        spellings only keep differing, as they did before.
        """
        parts = self.path.replace("\\", "/").split("/")
        package = parts[:-1]
        if (not self.path.endswith(".py") or not package or not all(part.isidentifier() for part in package)
                or node.level > len(package)):
            return node
        base = package[:len(package) - node.level + 1]
        module = ".".join(base + ([node.module] if node.module else []))
        return ast.ImportFrom(module=module, names=node.names, level=0)

    def _read_globals(self, node: ast.AST) -> set[str]:
        """:meth:`_globals_of`, less (precise rule) names read only in annotations Python never evaluates."""
        names = self._globals_of(node)
        if self._rule != "precise":
            return names
        if id(node) in self._read_cache:
            return self._read_cache[id(node)]
        skipped = self._unseen_annotation_nodes(node)
        if not skipped:
            self._read_cache[id(node)] = names
            return names
        elsewhere = {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and id(sub) not in skipped}
        only_there = {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and id(sub) in skipped} - elsewhere
        self._read_cache[id(node)] = names - only_there
        return self._read_cache[id(node)]

    def _globals_of(self, node: ast.AST) -> set[str]:
        """Module-level (or builtin) names read or written by a def/class body, nested scopes included."""
        table = None if self._tables is None else self._tables.get((node.name, node.lineno))  # type: ignore[attr-defined]
        if table is None:  # conservative fallback: every name loaded anywhere in it
            return _loaded_names(node)
        names: set[str] = set()
        stack = [table]
        while stack:
            current = stack.pop()
            for sym in current.get_symbols():
                if sym.is_global() and (sym.is_referenced() or sym.is_assigned()):
                    names.add(sym.get_name())
            stack.extend(current.get_children())
        return names

    def _resolve(self, scope: _Scope, name: str) -> tuple[str, str, str]:
        """The dependency item a name read in ``scope`` refers to."""
        if scope.kind == "class":
            return ("m", scope.qualname, name) if name in scope.bindings else ("m", "", name)
        if scope.kind == "function":
            current: _Scope | None = scope
            while current is not None and current.kind != "module":
                if current.kind == "function" and name in current.bindings:
                    return _member_of(current)
                current = current.parent
            return ("m", "", name)
        return ("m", "", name)

    def _reads_of(self, binding: _Binding, scope: _Scope) -> set[tuple[str, str, str]]:
        """Dependency items the code of one binding reads."""
        node = binding.node
        out: set[tuple[str, str, str]] = {self._resolve(scope, n) for n in _loaded_names(*binding.context_nodes)}
        if isinstance(node, _DEF_TYPES):
            dropped: set[str] = set()
            narrowed: set[tuple[str, str, str]] = set()
            if self._narrows(scope, node):
                if scope.kind == "class":
                    dropped = self._drops_own_class(scope, node)
                signed = not self._inert_signature(node)
                outer = {n for n in _loaded_names(*node.decorator_list, *node.args.defaults,  # type: ignore[union-attr]
                                                  *[d for d in node.args.kw_defaults if d is not None],  # type: ignore[union-attr]
                                                  *[a.annotation for a in _all_args(node) if a.annotation and signed])
                         if self._resolve(scope, n) == ("m", "", n)}
                if node.returns is not None and signed:  # type: ignore[union-attr]
                    outer |= {n for n in _loaded_names(node.returns) if self._resolve(scope, n) == ("m", "", n)}  # type: ignore[union-attr]
                dropped, narrowed = self._narrow_classes(node, self._read_globals(node) | outer, dropped,
                                                         scope if scope.kind == "class" else None)
            out |= {("m", "", n) for n in self._read_globals(node) if n not in dropped}
            out |= narrowed
            outer_exprs: list[ast.AST] = list(node.decorator_list)
            if isinstance(node, ast.ClassDef):
                outer_exprs += list(node.bases) + [k.value for k in node.keywords]
            else:
                args = node.args
                outer_exprs += [d for d in args.defaults + args.kw_defaults if d is not None]
                if not self._inert_signature(node):
                    outer_exprs += [a.annotation for a in args.posonlyargs + args.args + args.kwonlyargs if a.annotation]
                    outer_exprs += [a.annotation for a in (args.vararg, args.kwarg) if a is not None and a.annotation]
                    if node.returns is not None:
                        outer_exprs.append(node.returns)
            outer_exprs += list(getattr(node, "type_params", []) or [])
            out |= {item for item in (self._resolve(scope, n) for n in _loaded_names(*outer_exprs))
                    if not (item[0] == "m" and item[1] == "" and item[2] in dropped)}
            if isinstance(node, _FUNC_TYPES) and scope.kind == "class":
                out |= self._method_extras(scope, node)
            if isinstance(node, _FUNC_TYPES) and scope.kind == "function":
                out.add(_member_of(scope))
            if self._compiles_code(node):
                out.add(_FUTURE_ITEM)
        elif binding.kind.startswith("global in "):
            pass  # the rebinding function's code is in the record; what it reads is not followed
        elif binding.kind != "import":
            out |= {self._resolve(scope, n) for n in _loaded_names(node)}
        if scope.kind == "class":
            out.add(("shell", scope.qualname, ""))
        return out

    def _compiles_code(self, node: ast.AST) -> bool:
        """Whether code calls the builtin ``compile``, ``exec`` or ``eval``, which compile with this module's ``__future__`` features.

        ``compile`` (and so ``exec`` and ``eval`` of a string) inherits the
        future statements in force in the code that calls it unless told not
        to: a module that gains ``from __future__ import annotations``
        changes how the configuration file ``exec(compile(...))`` runs
        evaluates its annotations. Such code depends on the module's
        ``__future__`` imports (label ``from __future__``).
        """
        return any(isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in _COMPILERS
                   and sub.func.id not in self.module.bindings and not self.module.stars for sub in ast.walk(node))

    def _future_features(self) -> list[str]:
        """The ``__future__`` features the module imports, sorted."""
        return sorted({a.name for stmt in self.tree.body if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
                       for a in stmt.names})

    def _method_extras(self, cls: _Scope, method: ast.AST) -> set[tuple[str, str, str]]:
        """What a method reads of its class, by the rule in force (and the wide rule where precision is defeated).

        Under a fallback of the precise rule the bases of the file count whole
        (the precise header counts a base by its header only, but code that
        defeats the analysis may reach any of the base's members).
        """
        if self._rule == "wide":
            return self._wide_extras(cls, method)
        reason = self.fallback_reason_of(cls, method)
        if reason == "getattr/setattr on self" and not self._class_fallback(cls) and _sets_by_name_only(
                method, self._module_functions()):
            return self._precise_extras(cls, method) | self._settable_members(cls)
        if reason:
            return self._wide_extras(cls, method) | {_member_of_class(b) for b in self._all_local_bases(cls)}
        return self._precise_extras(cls, method)

    def _settable_members(self, cls: _Scope) -> set[tuple[str, str, str]]:
        """What ``setattr(self, name, v)`` with any name may run: every class-level binding but plain functions.

        Setting an instance attribute runs code of the class only through a
        class-level object that handles assignment (a property's setter, a
        descriptor, anything bound by an assignment or a decorated ``def``)
        in the class, a base or a subclass of the file; a plain method of the
        same name is only shadowed, which the readers of that name see
        through their own records (every dynamic setter counts for them).
        Each such member counts by its record as assignment sees it (label
        ``Class.name[setattr]``): a ``@property`` getter or a plain function
        by what it is, not by its body (assignment never runs them), a
        setter, deleter or value whole, with what it reads.
        """
        out: set[tuple[str, str, str]] = set()
        below = [s for s in self.scopes.values() if s.kind == "class" and cls in self._all_local_bases(s)]
        for scope in [cls] + self._all_local_bases(cls) + below:
            out.add(("shell", scope.qualname, ""))
            out |= {("set", scope.qualname, name) for name, bindings in scope.bindings.items()
                    if not all(isinstance(b.node, _FUNC_TYPES) and not b.node.decorator_list for b in bindings)}
        return out

    def _runs_on_get_only(self, binding: _Binding) -> bool:
        """A plain ``def`` or a ``@property`` getter: code that setting the attribute never runs."""
        node = binding.node
        if not isinstance(node, _FUNC_TYPES):
            return False
        property_free = "property" not in self.module.bindings and not self.module.stars
        return not node.decorator_list or (property_free and len(node.decorator_list) == 1
                                           and isinstance(node.decorator_list[0], ast.Name)
                                           and node.decorator_list[0].id == "property")

    def _all_local_bases(self, cls: _Scope, depth: int = 0) -> list[_Scope]:
        """Bases of the file, transitively."""
        out = []
        for base in self._local_bases(cls):
            out.append(base)
            if depth < 20:
                out += self._all_local_bases(base, depth + 1)
        return out

    def _wide_extras(self, cls: _Scope, method: ast.AST) -> set[tuple[str, str, str]]:
        """The wide rule: a method reads its class's header and attributes, and every ``self.x`` it uses or sets."""
        out: set[tuple[str, str, str]] = {("shell", cls.qualname, "")}
        for name, bindings in cls.bindings.items():
            if any(b.kind not in ("def",) for b in bindings):
                out.add(("m", cls.qualname, name))
        first = _first_param(method)
        augmented = {id(sub.target) for sub in ast.walk(method) if isinstance(sub, ast.AugAssign)}
        for sub in ast.walk(method):
            if not isinstance(sub, ast.Attribute):
                continue
            if first is not None and isinstance(sub.value, ast.Name) and sub.value.id == first:
                if isinstance(sub.ctx, ast.Load) or id(sub) in augmented or self._class_binds(cls, sub.attr):
                    # a read depends on whatever sets it; a plain store only on a class-level
                    # binding (``self.x = v`` runs a property's setter)
                    out.add(("m", cls.qualname, sub.attr))
            elif (isinstance(sub.value, ast.Call) and isinstance(sub.value.func, ast.Name)
                  and sub.value.func.id == "super"):
                out |= {("m", base.qualname, sub.attr) for base in self._local_bases(cls)}
        return out

    def _precise_extras(self, cls: _Scope, method: ast.AST) -> set[tuple[str, str, str]]:
        """The precise rule: the class header and the members the method names.

        Members are read through its first parameter (``self.x``, ``cls.x``),
        through ``type(self).x`` / ``self.__class__.x``, through ``super().x``
        (resolved to the bases defined in the file), and through its class's
        own name (``Runner.x``). What a member's record pulls in (the methods
        that assign ``self.x``, the overrides in subclasses of the file, the
        same name in bases) is in :meth:`_record`.
        """
        out: set[tuple[str, str, str]] = {("shell", cls.qualname, "")}
        first = _first_param(method)
        augmented = {id(sub.target) for sub in ast.walk(method) if isinstance(sub, ast.AugAssign)}
        own_names = self._own_class_names(cls)
        for sub in ast.walk(method):
            if not isinstance(sub, ast.Attribute):
                continue
            value = sub.value
            through_self = first is not None and isinstance(value, ast.Name) and value.id == first
            if through_self:
                if isinstance(sub.ctx, ast.Load) or id(sub) in augmented or self._class_binds(cls, sub.attr, declared=False):
                    out.add(("m", cls.qualname, sub.attr))
            elif _is_type_of(value, first):
                out.add(("m", cls.qualname, sub.attr))
            elif isinstance(value, ast.Name) and value.id in own_names:
                out.add(("m", own_names[value.id].qualname, sub.attr))
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                out |= {("m", base.qualname, sub.attr) for base in self._local_bases(cls)}
        if first is not None:
            out |= self._bare_first_uses(cls, method, first)
        return out

    def _bare_first_uses(self, cls: _Scope, method: ast.AST, first: str) -> set[tuple[str, str, str]]:
        """``self``/``cls`` used as a value: the special methods that the operation on it calls.

        ``len(self)`` and other builtins, ``self[k]``, ``self + x``, ``self ==
        o``, ``for x in self``, ``with self``, ``f"{self}"``, ``if self``,
        ``self(...)``: each runs special methods of the class (or of a base or
        subclass of the file, through the member records), including ones it
        may define later. ``cls(...)`` and ``type(self)(...)`` construct: the
        construction path, and the whole class when the new instance escapes
        the method. Handing ``self`` to code elsewhere is out of reach, as any
        other call into another module.
        """
        parents = self._parents(method)
        names: set[str] = set()
        escapes = False
        builtin_calls = set(_BUILTIN_CALLS) - set(self.module.bindings)
        for sub in ast.walk(method):
            target: ast.AST | None = None
            if isinstance(sub, ast.Name) and sub.id == first and isinstance(sub.ctx, ast.Load):
                target = sub
            elif _is_type_of(sub, first):
                target = sub
            if target is None:
                continue
            up = parents.get(id(target))
            if isinstance(up, ast.Attribute) and up.value is target:
                continue
            if isinstance(up, ast.Call) and up.func is target:
                if target is sub and isinstance(sub, ast.Name) and first != "cls" and _first_is_instance(method):
                    names |= {"__call__"}
                else:  # cls(...), type(self)(...): a new instance
                    names |= set(_CONSTRUCTION)
                    if self._fate(up, method, parents) is None:
                        escapes = True
                continue
            if target is not sub:
                continue  # type(self) as a value: the class, no special method
            if isinstance(up, ast.Subscript) and up.value is target:
                names |= _SPECIAL_BY_USE["subscript"]
            elif isinstance(up, (ast.BinOp, ast.AugAssign)):
                names |= _SPECIAL_BY_USE["arithmetic"]
            elif isinstance(up, ast.UnaryOp):
                names |= _SPECIAL_BY_USE["unary"]
            elif isinstance(up, ast.Compare) and not all(isinstance(op, (ast.Is, ast.IsNot)) for op in up.ops):
                names |= _SPECIAL_BY_USE["compare"]
            elif isinstance(up, (ast.BoolOp, ast.If, ast.While, ast.IfExp, ast.Assert)):
                names |= _SPECIAL_BY_USE["truth"]
            elif isinstance(up, (ast.For, ast.AsyncFor, ast.comprehension, ast.Starred, ast.YieldFrom)):
                names |= _SPECIAL_BY_USE["iteration"]
            elif isinstance(up, ast.withitem):
                names |= _SPECIAL_BY_USE["context"]
            elif isinstance(up, ast.FormattedValue):
                names |= _SPECIAL_BY_USE["format"]
            elif isinstance(up, ast.Await):
                names |= {"__await__"}
            elif (isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in builtin_calls
                  and any(a is target for a in up.args)):
                names |= set(_DUNDERS) - set(_CONSTRUCTION) - {"__call__"}
        if not names:
            return set()
        out = {("m", cls.qualname, n) for n in names}
        if escapes and cls.parent is not None:
            out.add(_member_of_class(cls))
        return out

    def _own_class_names(self, cls: _Scope) -> dict[str, _Scope]:
        """Module-level classes enclosing a method, by name (``Runner.x`` inside ``Runner`` reads one member)."""
        out: dict[str, _Scope] = {}
        current: _Scope | None = cls
        while current is not None and current.kind == "class":
            if current.parent is not None and current.parent.kind == "module":
                out[current.node.name] = current  # type: ignore[union-attr]
            current = current.parent
        return out

    def _drops_own_class(self, cls: _Scope, method: ast.AST) -> set[str]:
        """Names of enclosing classes that the method uses only as ``Name.attr`` (their whole body is not read)."""
        own = self._own_class_names(cls)
        if not own:
            return set()
        bare: set[str] = set()
        attr_values = {id(sub.value) for sub in ast.walk(method) if isinstance(sub, ast.Attribute)}
        for sub in ast.walk(method):
            if isinstance(sub, ast.Name) and sub.id in own and id(sub) not in attr_values:
                bare.add(sub.id)
        outer: list[ast.AST] = list(method.decorator_list)  # type: ignore[attr-defined]
        args = method.args  # type: ignore[attr-defined]
        outer += [d for d in args.defaults + args.kw_defaults if d is not None]
        bare |= {n for n in _loaded_names(*outer) if n in own}
        return set(own) - bare

    # -- what a use of a class needs (precise rule) -------------------------------------------

    def _narrows(self, scope: _Scope, node: ast.AST) -> bool:
        """Whether reads of module-level classes by this def are narrowed to what each use needs."""
        if self._rule != "precise" or not isinstance(node, _FUNC_TYPES):
            return False
        return not (scope.kind == "class" and self.fallback_reason_of(scope, node))

    def _module_class(self, name: str) -> _Scope | None:
        """The class a module-level name is bound to, when its one binding is a ``class`` statement."""
        bindings = self.module.bindings.get(name, [])
        if len(bindings) != 1 or bindings[0].kind != "class" or name not in self.scopes:
            return None
        scope = self.scopes[name]
        return scope if scope.kind == "class" and scope.node is bindings[0].node else None

    def _plain(self, cls: _Scope, depth: int = 0) -> bool:
        """A class whose construction and attributes this file shows whole.

        No fallback reason (metaclass, decorator, dynamic attributes,
        descriptor), no class keywords, and every base a plain class of the
        file or a builtin type (``object``, ``Exception``, ``dict``...) that
        the module does not shadow: a base from elsewhere may bring a
        metaclass (``Enum``, ``NamedTuple``) or call overridden methods from
        its ``__init__``.
        """
        node = cls.node
        assert isinstance(node, ast.ClassDef)
        if self._class_fallback(cls) or node.keywords or depth > 20:
            return False
        for base in node.bases:
            if not isinstance(base, ast.Name):
                return False
            local = self._module_class(base.id)
            if local is not None:
                if not self._plain(local, depth + 1):
                    return False
            elif not (base.id in _BUILTIN_TYPES and base.id not in self.module.bindings and not self.module.stars):
                return False
        return True

    def _parents(self, node: ast.AST) -> dict[int, ast.AST]:
        key = id(node)
        if key not in self._parent_cache:
            parents: dict[int, ast.AST] = {}
            for sub in ast.walk(node):
                for child in ast.iter_child_nodes(sub):
                    parents[id(child)] = sub
            self._parent_cache[key] = parents
        return self._parent_cache[key]

    def _fate(self, call: ast.AST, node: ast.AST, parents: dict[int, ast.AST]) -> set[str] | None:
        """Attributes used on a new instance (``Cls(...)``), or None when the instance escapes the code.

        It does not escape when the call is a statement of its own, when an
        attribute is read off it at once (``Cls(...).run()``), or when it is
        bound to a local name that the code uses only as ``name.attr``.
        """
        parent = parents.get(id(call))
        if isinstance(parent, ast.Attribute) and parent.value is call:
            return {parent.attr}
        if isinstance(parent, ast.Expr):
            return set()
        if (isinstance(parent, ast.Assign) and parent.value is call and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Name) and isinstance(node, _FUNC_TYPES)):
            var = parent.targets[0].id
            if any(isinstance(sub, (ast.Global, ast.Nonlocal)) and var in sub.names for sub in ast.walk(node)):
                return None
            attrs: set[str] = set()
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and sub.id == var:
                    up = parents.get(id(sub))
                    if isinstance(sub.ctx, ast.Store) and isinstance(up, ast.Assign):
                        continue
                    if isinstance(sub.ctx, ast.Load) and isinstance(up, ast.Attribute) and up.value is sub:
                        attrs.add(up.attr)
                        continue
                    return None
            return attrs
        return None

    def _class_uses(self, node: ast.AST, name: str, cls: _Scope, own: bool) -> set[tuple[str, str, str]] | None:
        """What a def's uses of module-level class ``name`` need, or None for the whole class.

        ``Cls.attr``: the header and that member (and what the member reads);
        ``isinstance(x, Cls)``, ``issubclass``, ``except Cls``, annotations:
        the header and binding, plus ``__subclasshook__``/``__instancecheck__``/
        ``__subclasscheck__``; ``Cls(...)``: the construction path
        (``__new__``, ``__init__``, ``__post_init__``) and the members used on
        the new instance through a local name. Any other use (the class or a
        new instance returned, passed on, stored, used as a value) keeps the
        whole class. Attributes and construction are narrowed only for a
        plain class (:meth:`_plain`), or an own class's ``Cls.attr``.
        """
        parents = self._parents(node)
        annotated = self._annotation_nodes(node)
        unseen = self._unseen_annotation_nodes(node)
        plain = self._plain(cls)
        q = cls.qualname
        out: set[tuple[str, str, str]] = {("shell", q, "")}
        checks = not ({"isinstance", "issubclass"} & set(self.module.bindings))
        for sub in ast.walk(node):
            if not (isinstance(sub, ast.Name) and sub.id == name):
                continue
            if not isinstance(sub.ctx, ast.Load):
                return None
            up = parents.get(id(sub))
            if id(sub) in annotated:
                if id(sub) not in unseen:
                    out |= {("m", q, n) for n in _HOOKS}
                continue
            if isinstance(up, ast.Attribute) and up.value is sub and (plain or own):
                out.add(("m", q, up.attr))
                continue
            if isinstance(up, ast.Call) and up.func is sub and plain:
                attrs = self._fate(up, node, parents)
                if attrs is None:
                    return None
                out |= {("m", q, n) for n in _CONSTRUCTION} | {("m", q, n) for n in attrs}
                continue
            holder = up
            if isinstance(holder, ast.Tuple):
                holder = parents.get(id(holder))
            if (checks and isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name)
                    and holder.func.id in ("isinstance", "issubclass") and any(
                        a is sub or a is up for a in holder.args)):
                out |= {("m", q, n) for n in _HOOKS}
                continue
            if isinstance(holder, ast.ExceptHandler) and (holder.type is sub or holder.type is up):
                continue
            return None
        return out

    def _annotation_nodes(self, node: ast.AST) -> set[int]:
        """Ids of the nodes inside annotations of a def (parameters, return, annotated assignments)."""
        found: set[int] = set()
        for sub in ast.walk(node):
            roots: list[ast.AST | None] = []
            if isinstance(sub, ast.arg):
                roots.append(sub.annotation)
            elif isinstance(sub, _FUNC_TYPES):
                roots.append(sub.returns)
            elif isinstance(sub, ast.AnnAssign):
                roots.append(sub.annotation)
            for root in roots:
                if root is not None:
                    found |= {id(n) for n in ast.walk(root)}
        return found

    def _unseen_annotation_nodes(self, node: ast.AST) -> set[int]:
        """Ids of the nodes inside annotations under a def that no code of the file evaluates into behaviour or reads.

        The annotations of annotated assignments in function bodies (see
        :func:`_behaviour_canon`), and the parameter and return annotations
        of every def under ``node`` (itself included) whose signature is
        inert (:meth:`_inert_signature`): the names read only there are not
        followed.
        """
        if self._rule != "precise":
            return set()
        roots: list[ast.AST] = list(_unevaluated_annotations(node))
        for sub in ast.walk(node):
            if isinstance(sub, _FUNC_TYPES) and self._inert_signature(sub):
                roots += [a.annotation for a in _all_args(sub) if a.annotation is not None]
                roots += [sub.returns] if sub.returns is not None else []
        return {id(n) for root in roots for n in ast.walk(root)}

    # -- signatures whose annotations nothing sees (precise rule) ---------------------------------

    def _annotations_unread(self) -> bool:
        """Whether no code of this file can read the annotations of a def (precise rule).

        A def's parameter and return annotations end up in its
        ``__annotations__`` (evaluated when the def runs, or as strings under
        ``from __future__ import annotations``); only code that reads them
        can be steered by them: ``typing.get_type_hints``,
        ``inspect.signature``, ``functools.singledispatch``'s ``register``,
        ``__annotations__`` itself and the rest of
        :data:`_ANNOTATION_READERS`. A file that names none of them (as a
        name, an attribute, an imported name or a string) has no such reader;
        readers in other modules are out of reach, as every other module's
        code is.
        """
        if self._unread is None:
            named: set[str] = set()
            for sub in ast.walk(self.tree):
                if isinstance(sub, ast.Name):
                    named.add(sub.id)
                elif isinstance(sub, ast.Attribute):
                    named.add(sub.attr)
                elif isinstance(sub, ast.alias):
                    named.add(sub.name.rsplit(".", 1)[-1])
                elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value in _ANNOTATION_READERS:
                    named.add(sub.value)
            self._unread = not (named & _ANNOTATION_READERS)
        return self._unread

    def _inert_signature(self, node: ast.AST) -> bool:
        """Whether the annotations of a def (or of a class body) can change nothing that the file's code does (precise rule).

        A def's parameter and return annotations cannot when no code of the
        file reads annotations (:meth:`_annotations_unread`), every decorator
        of the def is one that does not read them either
        (:meth:`_inert_decorator`: the decorators are the one piece of code
        that sees the function object as it is defined), and evaluating them
        has no effect: they are never evaluated (``from __future__ import
        annotations``), or are made of lookups and typing subscripts only
        (:meth:`_safely_evaluated`). The def's callers then run the same
        statements whatever the annotations say. The names an annotation
        reads are still followed as dependencies, so a name that is no
        longer bound is seen. Code of another module that introspects the
        function (a framework that injects arguments by their annotations)
        is out of reach, like a class's annotations read elsewhere. A class
        body's annotations cannot when its annotations are inert
        (:meth:`_inert_annotations`) and no code of the file reads any.
        """
        if self._rule != "precise":
            return False
        if isinstance(node, ast.ClassDef):
            scope = self._class_scopes.get(id(node))
            return scope is not None and self._annotations_unread() and self._inert_annotations(scope)
        if not isinstance(node, _FUNC_TYPES):
            return False
        key = id(node)
        if key not in self._inert_cache:
            self._inert_cache[key] = False  # a decorator that decorates itself is not inert
            scope = self._def_scopes.get(key)
            self._inert_cache[key] = (scope is not None and self._annotations_unread()
                                      and (self._future_annotations() or self._safely_evaluated(node, scope))
                                      and all(self._inert_decorator(d, scope) for d in node.decorator_list))
        return self._inert_cache[key]

    def _safely_evaluated(self, node: ast.AST, scope: _Scope) -> bool:
        """Whether evaluating each parameter and return annotation of a def runs no code of the file and has no effect.

        Without ``from __future__ import annotations`` the annotations are
        evaluated when the def runs. An annotation made of names, attributes,
        subscripts, constants, tuples, lists and ``|`` only looks names up
        and builds typing objects, provided that every name it reads is a
        builtin or bound once, unconditionally (so the lookup cannot fail),
        and that what it subscripts, combines with ``|`` or takes an
        attribute of is bound by an import or a builtin, or is a plain class
        of the file with no ``__class_getitem__``: a bare name is only looked
        up, whatever it is bound to. An annotation that could fail to
        evaluate makes the signature count, text and names.
        """
        exprs = [a.annotation for a in _all_args(node) if a.annotation is not None]
        exprs += [node.returns] if node.returns is not None else []  # type: ignore[attr-defined]
        for expr in exprs:
            parents = {id(child): sub for sub in ast.walk(expr) for child in ast.iter_child_nodes(sub)}
            for sub in ast.walk(expr):
                if isinstance(sub, ast.BinOp) and not isinstance(sub.op, ast.BitOr):
                    return False
                if not isinstance(sub, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Tuple, ast.List,
                                        ast.BinOp, ast.BitOr, ast.Load)):
                    return False
                if not isinstance(sub, ast.Name):
                    continue
                where, binding = self._binding_seen(sub.id, scope, lookup=True)
                if (binding is None and where is not None) or (where is None and not hasattr(builtins, sub.id)):
                    return False  # bound twice, under a block, as a parameter, or nowhere: the lookup may fail
                up = parents.get(id(sub))
                operand = (isinstance(up, (ast.Attribute, ast.BinOp))
                           or (isinstance(up, ast.Subscript) and up.value is sub))
                if operand and not self._plain_operand(sub.id, scope):
                    return False
        return True

    def _plain_operand(self, name: str, scope: _Scope) -> bool:
        """A name whose object an annotation may subscript, combine or take attributes of without running the file's code."""
        where, binding = self._binding_seen(name, scope, lookup=True)
        if where is None:
            return True  # a builtin
        if binding is None:
            return False
        if binding.kind == "import":
            return True
        target = self._module_class(name) if where is self.module else None
        return target is not None and self._plain(target) and "__class_getitem__" not in target.bindings

    def _binding_seen(self, name: str, scope: _Scope, lookup: bool = False) -> tuple[_Scope | None, _Binding | None]:
        """Where a name read in ``scope`` is bound, as Python looks it up, and its one binding there.

        ``(scope, binding)`` for a name bound once, unconditionally;
        ``(scope, None)`` for a name bound more than once, under a block, or
        as a parameter; ``(None, None)`` for a builtin (bound nowhere in the
        file, no star import). A class body is seen only from itself, not
        from the functions inside it. With ``lookup``, a statement that only
        calls a method of the object (a ``mutate`` record) is no binding:
        the name still holds the same object.
        """
        if self.module.stars:
            return self.module, None
        where: _Scope | None = scope
        first = True
        while where is not None:
            if where.kind != "class" or first:
                bindings = where.bindings.get(name)
                if bindings and lookup:
                    bindings = [b for b in bindings if b.kind != "mutate"] or bindings
                if bindings:
                    return where, (bindings[0] if len(bindings) == 1 and not bindings[0].context else None)
                if where.kind == "function" and where.node is not None and name in {a.arg for a in _all_args(where.node)}:
                    return where, None
            where, first = where.parent, False
        return None, None

    def _stdlib_name(self, expr: ast.AST, scope: _Scope) -> str | None:
        """``module.name`` of a standard library object an expression names through an import, or a builtin's.

        A name bound once, by ``from functools import wraps`` (as ``wraps``
        or an alias), or an attribute of a module bound once by ``import
        typing as t``; ``builtins.property`` for a builtin the file never
        binds. Anything else: None.
        """
        if isinstance(expr, ast.Name):
            where, binding = self._binding_seen(expr.id, scope)
            if where is None:
                return f"builtins.{expr.id}"
            if binding is not None and binding.kind == "import":
                stmt = binding.node
                if isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module:
                    return f"{stmt.module}.{stmt.names[0].name}"
            return None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            _, binding = self._binding_seen(expr.value.id, scope)
            if binding is not None and binding.kind == "import" and isinstance(binding.node, ast.Import):
                alias = binding.node.names[0]
                if alias.asname or "." not in alias.name:
                    return f"{alias.name}.{expr.attr}"
        return None

    def _inert_decorator(self, expr: ast.AST, scope: _Scope) -> bool:
        """Whether a decorator leaves the annotations of what it decorates unread.

        Inert: ``staticmethod``, ``classmethod``, ``property`` (builtins
        nothing rebinds), ``name.setter``/``getter``/``deleter`` of a property
        of the same class, the standard library decorators of
        :data:`_INERT_STDLIB_DECORATORS` (called or not), and a plain
        function of the file whose one parameter is used only to call it, to
        read its name (``__name__``, ``__qualname__``, ``__module__``,
        ``__doc__``), to be copied onto a wrapper by ``functools.wraps`` or
        ``update_wrapper``, or to be returned (:meth:`_inert_decorator_function`).
        """
        target = expr.func if isinstance(expr, ast.Call) else expr
        known = self._stdlib_name(target, scope)
        if known is not None:
            return known in _INERT_STDLIB_DECORATORS
        if (isinstance(expr, ast.Attribute) and expr.attr in ("setter", "getter", "deleter")
                and isinstance(expr.value, ast.Name) and scope.kind == "class"):
            bindings = scope.bindings.get(expr.value.id, [])
            return bool(bindings) and all(
                isinstance(b.node, _FUNC_TYPES) and len(b.node.decorator_list) == 1
                and self._property_part(b.node.decorator_list[0], expr.value.id, scope) for b in bindings)
        if isinstance(expr, ast.Name):
            where, binding = self._binding_seen(expr.id, scope)
            if where is self.module and binding is not None and isinstance(binding.node, _FUNC_TYPES):
                return self._inert_decorator_function(binding.node)
        return False

    def _property_part(self, expr: ast.AST, name: str, scope: _Scope) -> bool:
        """``@property`` (the builtin) or ``@name.setter``/``getter``/``deleter``: how a property of the class is built."""
        if isinstance(expr, ast.Attribute):
            return (expr.attr in ("setter", "getter", "deleter") and isinstance(expr.value, ast.Name)
                    and expr.value.id == name)
        return self._stdlib_name(expr, scope) == "builtins.property"

    def _inert_decorator_function(self, func: ast.AST) -> bool:
        """A decorator of the file that uses the function it is given only in ways that never read its annotations."""
        assert isinstance(func, _FUNC_TYPES)
        args = func.args
        params = args.posonlyargs + args.args
        if (func.decorator_list or len(params) != 1 or args.vararg or args.kwarg or args.kwonlyargs
                or not self._annotations_unread()):
            return False
        param = params[0].arg
        parents = self._parents(func)
        for sub in ast.walk(func):
            if isinstance(sub, (ast.Global, ast.Nonlocal)) and param in sub.names:
                return False
            if isinstance(sub, ast.arg) and sub.arg == param and sub is not params[0]:
                return False  # a nested def's parameter of the same name hides it
            if not (isinstance(sub, ast.Name) and sub.id == param):
                continue
            if not isinstance(sub.ctx, ast.Load):
                return False
            up = parents.get(id(sub))
            if isinstance(up, ast.Call) and up.func is sub:
                continue
            if isinstance(up, ast.Attribute) and up.attr in _NAME_ATTRIBUTES:
                continue
            if isinstance(up, ast.Return):
                continue
            copier = self._stdlib_name(up.func, self._def_scopes.get(id(func), self.module)) if isinstance(up, ast.Call) else None
            if (isinstance(up, ast.Call) and not up.keywords and copier in _WRAPPER_COPIERS
                    and len(up.args) == _WRAPPER_COPIERS[copier] and up.args[-1] is sub):
                continue
            return False
        return True

    def _narrow_classes(self, node: ast.AST, names: set[str], dropped: set[str],
                        cls: _Scope | None) -> tuple[set[str], set[tuple[str, str, str]]]:
        """Module-level class names a def reads that can be replaced by what their uses need."""
        own = self._own_class_names(cls) if cls is not None else {}
        out_dropped = set(dropped)
        narrowed: set[tuple[str, str, str]] = set()
        for name in sorted(names - dropped):
            target = self._module_class(name)
            if target is None:
                continue
            uses = self._class_uses(node, name, target, name in own)
            if uses is not None:
                out_dropped.add(name)
                narrowed |= uses
        return out_dropped, narrowed

    def _base_reads(self, parent: _Scope, node: ast.ClassDef) -> set[tuple[str, str, str]]:
        """What a class header's bases need: a base of the file with no fallback counts by its header.

        The subclass's methods reach the base's members through their own
        member reads (which follow bases), so the base's header, its
        ``__init_subclass__`` and ``__slots__`` are what the header itself
        relies on. Other bases (and the wide rule) count whole.
        """
        out: set[tuple[str, str, str]] = set()
        for base in node.bases:
            target = self._module_class(base.id) if isinstance(base, ast.Name) and parent.kind == "module" else None
            if self._rule == "precise" and target is not None and not self._class_fallback(target):
                out |= {("shell", target.qualname, ""), ("m", target.qualname, "__init_subclass__"),
                        ("m", target.qualname, "__slots__")}
            else:
                out |= {self._resolve(parent, n) for n in _loaded_names(base)}
        return out

    # -- instance attributes: the statements of a method that set one ------------------------------

    def _assignment_item(self, cls: _Scope, method: str, attr: str) -> tuple[str, str, str]:
        """The slice of ``cls.method`` that sets ``self.attr`` (the whole method where slicing is not safe)."""
        bindings = cls.bindings.get(method, [])
        if len(bindings) == 1 and isinstance(bindings[0].node, _FUNC_TYPES):
            node = bindings[0].node
            if _first_param(node) is not None and not self.fallback_reason_of(cls, node):
                return ("sets", cls.qualname, f"{method} {attr}")
        return ("m", cls.qualname, method)

    def _dynamic_setters(self, cls: _Scope) -> list[str]:
        """Methods of a class that may set any attribute (``setattr(self, ...)``, ``self.__dict__``, ``vars(self)``)."""
        if cls.qualname not in self._setters_cache:
            out = []
            for name, bindings in cls.bindings.items():
                for b in bindings:
                    if isinstance(b.node, _FUNC_TYPES) and _sets_dynamically(b.node):
                        out.append(name)
                        break
            self._setters_cache[cls.qualname] = sorted(out)
        return self._setters_cache[cls.qualname]

    def _slice_record(self, cls: _Scope, method: str, attr: str) -> tuple[str, set[tuple[str, str, str]]]:
        """Canonical text and reads of the statements of ``cls.method`` that can decide ``self.attr``.

        Kept: every statement that names ``self.attr`` or calls, through
        ``self`` or ``super()``, a method that sets it; every statement that
        names a local those read (to a fixed point); the headers of the blocks
        they sit in (a ``try`` whole); every ``return``, ``raise``, ``break``,
        ``continue`` and ``assert`` (they decide whether the rest runs); the
        signature and decorators.
        """
        key = (cls.qualname, method, attr)
        if key in self._slice_cache:
            cached_text, cached_reads = self._slice_cache[key]
            return cached_text, set(cached_reads)
        node = cls.bindings[method][0].node
        assert isinstance(node, _FUNC_TYPES)
        first = _first_param(node)
        assert first is not None
        setters = self._setter_closure(cls, attr)
        table = None if self._tables is None else self._tables.get((node.name, node.lineno))
        local_names: set[str] = set()
        if table is not None:
            local_names = {sym.get_name() for sym in table.get_symbols() if sym.is_local() or sym.is_parameter()}
        local_names.discard(first)
        wanted: set[str] = set()
        while True:
            body = _prune(node.body, first, attr, setters, wanted)
            mentioned = {n.id for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Name)} & local_names
            if mentioned <= wanted:
                break
            wanted |= mentioned
        args = node.args
        if self._rule == "precise" and (not node.decorator_list or self._inert_signature(node)):
            args = _unannotated(args)  # annotations steer callers elsewhere, never these statements
        synthetic = ast.FunctionDef(name="", args=args, body=body or [ast.Pass()], decorator_list=node.decorator_list,
                                    returns=None, type_comment=None)
        ast.copy_location(synthetic, node)
        text = json.dumps(["sets self." + attr, _behaviour_canon(synthetic, bare=self._inert_signature)])
        # a name read only in the annotation of an annotated assignment is never evaluated (see _behaviour_canon)
        unevaluated = {id(sub) for stmt in body for root in _unevaluated_annotations(stmt, True) for sub in ast.walk(root)}
        in_body = {sub.id for stmt in body for sub in ast.walk(stmt)
                   if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and id(sub) not in unevaluated}
        names = ((in_body | _loaded_names(*node.decorator_list, *[d for d in node.args.defaults + node.args.kw_defaults if d]))
                 & self._read_globals(node))
        dropped, narrowed = self._narrow_classes(synthetic, names, self._drops_own_class(cls, synthetic), cls)
        reads = {("m", "", n) for n in names if n not in dropped} | narrowed
        reads |= self._precise_extras(cls, synthetic)
        reads.add(("shell", cls.qualname, ""))
        self._slice_cache[key] = (text, frozenset(reads))
        return text, reads

    def _setter_closure(self, cls: _Scope, attr: str) -> set[str]:
        """Names of the methods of the class (or its file's bases and subclasses) that set ``self.attr``, or call one through ``self``."""
        if (cls.qualname, attr) in self._closure_cache:
            return self._closure_cache[(cls.qualname, attr)]
        related = [cls] + self._local_bases(cls) + self._local_subclasses(cls)
        found = {m for scope in related for m in scope.self_assigned.get(attr, ())}
        calls: dict[str, set[str]] = {}
        for scope in related:
            for name, bindings in scope.bindings.items():
                for b in bindings:
                    if isinstance(b.node, _FUNC_TYPES) and (first := _first_param(b.node)) is not None:
                        calls.setdefault(name, set()).update(_self_calls(b.node, first))
        changed = True
        while changed:
            changed = False
            for name, called in calls.items():
                if name not in found and called & found:
                    found.add(name)
                    changed = True
        self._closure_cache[(cls.qualname, attr)] = found
        return found

    # -- where precision is defeated ----------------------------------------------------------

    def fallback_reason(self, qualname: str) -> str:
        """Why the precise rule falls back to the wide one for this method ('' when it does not, or not a method).

        Parameters
        ----------
        qualname
            A symbol of the file.

        Returns
        -------
        str
            One of :data:`FALLBACK_REASONS`, or ``""``.
        """
        sym = self.symbol(qualname)
        if sym is None:
            raise NotesError(f"{self.path!r} defines no symbol {qualname!r}")
        if sym.kind != "method":
            return ""
        return self.fallback_reason_of(sym.scope, sym.node)

    def fallback_reason_of(self, cls: _Scope, method: ast.AST) -> str:
        """:meth:`fallback_reason` for a method node of class scope ``cls``."""
        key = id(method)
        if key not in self._fallbacks:
            self._fallbacks[key] = self._class_fallback(cls) or _method_fallback(method, self._module_functions())
        return self._fallbacks[key]

    def _module_functions(self) -> set[str]:
        return {name for name, bs in self.module.bindings.items() if any(b.kind in ("def", "class") for b in bs)}

    def _descriptor_classes(self) -> set[str]:
        """Classes of this file that define ``__get__``, ``__set__`` or ``__delete__``."""
        found = set()
        for scope in self.scopes.values():
            if scope.kind == "class" and any(n in scope.bindings for n in ("__get__", "__set__", "__delete__")):
                found.add(scope.node.name)  # type: ignore[union-attr]
        return found

    def _class_fallback(self, cls: _Scope, depth: int = 0) -> str:
        """A reason found on the class itself or on a base of the file: metaclass, decorator, dynamic attributes, descriptor."""
        node = cls.node
        assert isinstance(node, ast.ClassDef)
        if any(k.arg == "metaclass" and not self._abc_meta(k.value) for k in node.keywords):
            return "metaclass"
        if any(isinstance(b, ast.Name) and b.id == "type" for b in node.bases):
            return "metaclass"
        if node.decorator_list:
            return "class decorator"
        if any(n in cls.bindings for n in ("__getattr__", "__getattribute__", "__setattr__", "__delattr__",
                                           "__init_subclass__")):
            return "dynamic attribute access"
        descriptors = self._descriptor_classes()
        if descriptors:
            for bindings in cls.bindings.values():
                for b in bindings:
                    if b.kind not in ("def", "class") and _loaded_names(b.node) & descriptors:
                        return "descriptor defined in the file"
        if depth < 20:
            for base in self._local_bases(cls):
                reason = self._class_fallback(base, depth + 1)
                if reason:
                    return reason
        return ""

    def _abc_meta(self, expr: ast.AST) -> bool:
        """Whether a metaclass expression is the standard library's ``abc.ABCMeta`` (precise rule).

        ``ABCMeta`` changes no attribute lookup and no method of the class:
        it records the abstract methods when the class is created (so that
        constructing a class with abstract methods left raises) and keeps a
        registry for ``isinstance``. A method reading ``self.x`` runs on an
        instance that exists, so its members resolve as for a plain class;
        the class still is not plain (:meth:`_plain`), so constructing it or
        testing ``isinstance`` by name counts the whole class or its header.
        Only the name bound once by ``from abc import ABCMeta`` (or
        ``abc.ABCMeta`` after a single ``import abc``) counts.
        """
        if self._rule != "precise":
            return False
        if isinstance(expr, ast.Name):
            name, module, attr = expr.id, "abc", "ABCMeta"
        elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.attr == "ABCMeta":
            name, module, attr = expr.value.id, "abc", ""
        else:
            return False
        bindings = self.module.bindings.get(name, [])
        if len(bindings) != 1 or bindings[0].kind != "import" or self.module.stars:
            return False
        stmt = bindings[0].node
        if attr:
            return (isinstance(stmt, ast.ImportFrom) and stmt.module == module and not stmt.level
                    and [a.name for a in stmt.names] == [attr])
        return isinstance(stmt, ast.Import) and [a.name for a in stmt.names] == [module]

    def _class_binds(self, cls: _Scope, name: str, depth: int = 0, declared: bool = True) -> bool:
        """Whether ``cls`` or a base defined in this module binds ``name`` at class level.

        With ``declared=False``, an annotation without a value in a class
        whose annotations are inert (:meth:`_inert_annotations`) does not
        count: it creates no class attribute, so ``self.name = v`` runs no
        setter of it.
        """
        bindings = cls.bindings.get(name, [])
        if bindings and (declared or not (all(_declaration(b) for b in bindings) and self._inert_annotations(cls))):
            return True
        return depth < 20 and any(self._class_binds(base, name, depth + 1, declared) for base in self._local_bases(cls))

    def _future_annotations(self) -> bool:
        """Whether the module starts with ``from __future__ import annotations``."""
        return any(isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
                   and any(a.name == "annotations" for a in stmt.names) for stmt in self.tree.body)

    def _inert_annotations(self, cls: _Scope) -> bool:
        """Whether the class-level annotations of ``cls`` cannot change what its code does (precise rule).

        Under ``from __future__ import annotations`` a class-level annotation
        is stored as a string in ``__annotations__`` and never evaluated when
        the class is created; in a plain class (:meth:`_plain`: no metaclass,
        no decorator such as ``dataclass``, no ``__init_subclass__``, no base
        from elsewhere such as ``NamedTuple``, ``TypedDict`` or a model base)
        nothing of the file reads ``__annotations__`` on its creation either.
        Code that reads the class's ``__annotations__`` by name depends on
        all of them (the member ``__annotations__``); code elsewhere that
        introspects the class (``typing.get_type_hints``) is out of reach, as
        is any other code of another module.
        """
        return self._rule == "precise" and self._future_annotations() and cls.node is not None and self._plain(cls)

    def _local_bases(self, cls: _Scope) -> list[_Scope]:
        """Base classes of ``cls`` that are classes defined at this module's top level."""
        node = cls.node
        bases = []
        for base in getattr(node, "bases", []):
            if isinstance(base, ast.Name) and base.id in self.scopes and self.scopes[base.id].kind == "class":
                bases.append(self.scopes[base.id])
        return bases

    def _local_subclasses(self, cls: _Scope) -> list[_Scope]:
        """Classes of this file's top level that name ``cls`` among their bases (directly)."""
        return [scope for scope in self.scopes.values()
                if scope.kind == "class" and cls in self._local_bases(scope)]

    # -- the fingerprint ---------------------------------------------------------------------

    def _label(self, item: tuple[str, str, str]) -> str:
        kind, scope, name = item
        if item == _FUTURE_ITEM:
            return "from __future__"
        if kind == "shell":
            return f"class {scope}"
        if kind == "sets":
            method, attr = name.split(" ")[:2]
            return f"{scope}.{method}[self.{attr}]"
        if kind == "up":
            return f"{scope}.{name.split(' ')[0]}"
        if kind == "set":
            return f"{scope}.{name}[setattr]"
        return f"{scope}.{name}" if scope else name

    def _record(self, item: tuple[str, str, str], own: ast.AST) -> tuple[str, set[tuple[str, str, str]]]:
        """The canonical text of one dependency item, and the items it reads in turn."""
        kind, scope_name, name = item
        if item == _FUTURE_ITEM:
            return json.dumps(["from __future__", self._future_features()]), set()
        if kind == "sets":
            method, attr, *receivers = name.split(" ")
            text, sliced = self._slice_record(self.scopes[scope_name], method, attr)
            if receivers:
                sliced = {_in_context(r, scope_name, receivers[0]) for r in sliced}
            return text, sliced
        receiver = None
        if kind == "up":  # the member as found on one exact class, for an instance of ``receiver``
            name, receiver = name.split(" ", 1)
        if kind == "shell":
            scope = self.scopes[scope_name]
            node = scope.node
            assert isinstance(node, ast.ClassDef)
            parent = scope.parent
            assert parent is not None
            header = ast.ClassDef(name=node.name, bases=node.bases, keywords=node.keywords, body=[],
                                  decorator_list=node.decorator_list)
            record: list[object] = ["header", canon(header)]
            reads: set[tuple[str, str, str]] = {self._resolve(parent, n) for n in _loaded_names(*node.decorator_list,
                                                                         *[k.value for k in node.keywords])}
            reads |= self._base_reads(parent, node)
            for b in parent.bindings.get(node.name, []):
                code = "<this class>" if b.node is node else ("<self>" if b.node is own else self._code(b.node))
                record.append([b.kind, code, b.context])
                reads |= {self._resolve(parent, n) for n in _loaded_names(*b.context_nodes)}
                if b.node is not node and b.node is not own:
                    reads |= self._reads_of(b, parent)
            if parent.kind == "class":
                reads.add(("shell", parent.qualname, ""))
            elif parent.kind == "function":
                reads.add(_member_of(parent))
            return json.dumps(record), reads
        found = self.scopes.get(scope_name)
        if found is None:
            return json.dumps(["unbound"]), set()
        scope = found
        bindings = scope.bindings.get(name, [])
        record = []
        reads = set()
        inert = scope.kind == "class" and self._rule == "precise" and self._inert_annotations(scope)
        if inert and name == "__annotations__":
            for annotated in (b for bs in scope.bindings.values() for b in bs if b.kind == "annassign"):
                record.append([annotated.kind, canon(annotated.node), annotated.context])
        for b in bindings:
            if inert and b.kind == "annassign":
                value = cast(ast.AnnAssign, b.node).value
                record.append(["declared" if value is None else "assign", "" if value is None else self._code(value), b.context])
                reads |= {self._resolve(scope, n) for n in _loaded_names(*b.context_nodes, value)}
                reads.add(("shell", scope.qualname, ""))
                continue
            if kind == "set" and self._runs_on_get_only(b):
                getter = bool(cast(ast.FunctionDef, b.node).decorator_list)
                record.append([b.kind, "<property getter>" if getter else "<function>", b.context])
                continue
            record.append([b.kind, "<self>" if b.node is own else self._code(b.node), b.context])
            reads |= self._reads_of(b, scope)
        if kind == "set":  # the record as for a read, what it reads narrowed to what setting runs
            assigners = sorted(scope.self_assigned.get(name, ()))
            if assigners:
                record.append(["assigned on self in", assigners])
            return json.dumps(record), reads
        if scope.kind == "class":
            assigners = sorted(scope.self_assigned.get(name, ()))
            if assigners:
                record.append(["assigned on self in", assigners])
                if self._rule == "precise":
                    reads |= {self._assignment_item(scope, m, name) for m in assigners}
                else:
                    reads |= {("m", scope.qualname, m) for m in assigners}
            if self._rule == "precise":
                reads |= {("m", scope.qualname, m) for m in self._dynamic_setters(scope) if m not in assigners}
                seen_from = receiver or scope.qualname
                reads |= {("up", base.qualname, f"{name} {seen_from}") for base in self._local_bases(scope)}
                if receiver is None:
                    # ``self.name`` may dispatch to an override in a subclass defined in this file
                    reads |= {("m", sub.qualname, name) for sub in self._local_subclasses(scope)}
                elif receiver != scope.qualname:
                    reads = {_in_context(r, scope.qualname, receiver) for r in reads}
            elif not bindings:
                reads |= {("m", base.qualname, name) for base in self._local_bases(scope)}
        if not record:
            record = ["unbound", scope.stars if scope.kind == "module" else []]
        return json.dumps(record), reads

    def symbol(self, qualname: str) -> PySymbol | None:
        """The symbol with this qualified name, or None."""
        for sym in self.symbols:
            if sym.qualname == qualname:
                return sym
        return None

    def dependencies(self, qualname: str, rule: str = "precise") -> dict[str, str]:
        """Every dependency of a symbol: label -> canonical text of its binding record (see the module docstring).

        Parameters
        ----------
        qualname
            The symbol.
        rule
            ``"precise"`` (the gate's rule: a method depends on the class
            members it reads) or ``"wide"`` (every class-level attribute counts
            for every method), kept to measure what precision buys.

        Returns
        -------
        dict
            Label -> canonical text, labels sorted.
        """
        if rule not in RULES:
            raise NotesError(f"dependency rule must be one of {', '.join(map(repr, RULES))}, got {rule!r}")
        sym = self.symbol(qualname)
        if sym is None:
            raise NotesError(f"{self.path!r} defines no symbol {qualname!r}")
        self._rule = rule
        start = ("m", sym.scope.qualname, sym.name)
        todo = deque([(start, 0)])
        if sym.scope.kind == "function":
            todo.append((_member_of(sym.scope), 0))
        done: dict[tuple[str, str, str], str] = {}
        depth: dict[tuple[str, str, str], int] = {}
        while todo:  # breadth first, so each dependency's depth is its distance from the symbol
            item, level = todo.popleft()
            if item in done:
                continue
            text, reads = self._record(item, sym.node)
            done[item] = text
            depth[item] = level
            todo.extend((r, level + 1) for r in sorted(reads) if r not in done)
        out: dict[str, str] = {}
        self.depths = {}
        for item in sorted(done):
            out[self._label(item)] = done[item]
            self.depths[self._label(item)] = min(depth[item], self.depths.get(self._label(item), depth[item]))
        return out


def _unannotated(args: ast.arguments) -> ast.arguments:
    """A copy of a signature with its parameter annotations left out."""
    out = copy.copy(args)
    for name in ("posonlyargs", "args", "kwonlyargs"):
        setattr(out, name, [ast.arg(arg=a.arg) for a in getattr(args, name)])
    out.vararg = ast.arg(arg=args.vararg.arg) if args.vararg is not None else None
    out.kwarg = ast.arg(arg=args.kwarg.arg) if args.kwarg is not None else None
    return out


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

#: Why the precise rule gave way to the wide one for a method (see :meth:`PythonFile.fallback_reason`).
FALLBACK_REASONS: tuple[str, ...] = (
    "metaclass", "class decorator", "dynamic attribute access", "descriptor defined in the file",
    "getattr/setattr on self", "vars(self) or self.__dict__", "self passed to a function of the file",
)

#: The dependency rules :meth:`PythonFile.dependencies` knows.
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


class PythonRows:
    """One parsed Python file as the gate reads any language's (:class:`cvlib.notes.languages.SourceFile`)."""

    def __init__(self, parsed: PythonFile):
        self.parsed = parsed
        self.path = parsed.path

    def rows(self) -> list[Symbol]:
        """Every symbol of the file, hashed, in source order."""
        lines = self.parsed.source.splitlines(keepends=True)
        out = []
        for s in self.parsed.symbols:
            raw = "".join(lines[s.first_line - 1 : s.last_line])
            out.append(Symbol(self.path, s.qualname, s.kind, sha256(raw), sha256(nameless(s.node, s.name)),
                              s.last_line - s.first_line + 1, count_nodes(s.node)))
        return out

    def dependencies(self, qualname: str, rule: str = "precise") -> dict[str, str]:
        """Label -> canonical text of every dependency of one symbol (:meth:`PythonFile.dependencies`)."""
        return self.parsed.dependencies(qualname, rule)

    def fallback_reason(self, qualname: str) -> str:
        """Why the precise rule fell back to the wide one for this symbol ('' when it did not)."""
        return self.parsed.fallback_reason(qualname)

    def dependency_depths(self, qualname: str) -> dict[str, int]:
        """Label -> distance from the symbol in the dependency graph (0: its own binding), precise rule."""
        self.parsed.dependencies(qualname)
        return dict(self.parsed.depths)


def analyse_python(source: str, path: str = "<snapshot>") -> PythonRows:
    """Parse one Python file for the gate; raises :class:`~cvlib.notes.errors.UnparsableSource` if it does not parse."""
    return PythonRows(PythonFile(source, path))


#: Python in the gate's registry of languages (:mod:`cvlib.notes.languages`): ``.py`` files, read with :mod:`ast`.
LANGUAGE: Language = register_language(Language("Python", (".py",), analyse_python, FALLBACK_REASONS))
