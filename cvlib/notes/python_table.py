"""A Python file's symbol table: its symbols, scopes and binding records, read once when the file is parsed.

The first layer of :class:`cvlib.notes.python.PythonFile`: it walks the module
once, binding every name a statement binds in the scope it is bound in (with
the ``if``/``try``/``for`` headers around it), lists the anchorable symbols in
source order and keeps the compiler's own ``symtable`` for the scoping
questions the later layers ask.
"""

from __future__ import annotations

import ast
import symtable
from typing import cast

from .python_code import _first_param, _flat_body
from .python_syntax import (
    _FUNC_TYPES,
    PySymbol,
    _assigned_targets,
    _base_name,
    _Binding,
    _bound_names,
    _headers,
    _Scope,
    canon,
    parse,
)


class SymbolTable:
    """The symbols, scopes and binding records of one Python source.

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
        self._walk(self.tree.body, self.module, "", ())
        self._global_rebinds()
        self._tables = self._symtables()

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

    def symbol(self, qualname: str) -> PySymbol | None:
        """The symbol with this qualified name, or None."""
        for sym in self.symbols:
            if sym.qualname == qualname:
                return sym
        return None
