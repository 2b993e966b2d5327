"""What a piece of Python code reads from its module, and its canonical text for a record.

The fourth layer of :class:`cvlib.notes.python.PythonFile`: a node's module
names through ``symtable`` (``CodeReads._read_globals``), a name resolved
to the binding record it reads, a relative import read against the file's
path, and what a use of a module-level class by name needs of it
(``CodeReads._class_uses``).
"""

from __future__ import annotations

import ast

from .python_annotations import AnnotationRules
from .python_code import _COMPILERS, _CONSTRUCTION, _HOOKS, _member_of
from .python_syntax import _behaviour_canon, _loaded_names, _Scope, canon


class CodeReads(AnnotationRules):
    """The module names a piece of one Python file's code reads, and how they resolve."""

    def __init__(self, source: str, path: str = "<snapshot>"):
        super().__init__(source, path)
        self._canon_cache: dict[tuple[int, str], str] = {}
        self._read_cache: dict[int, set[str]] = {}

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
