"""What a Python file's classes are, as the precise rule needs to know: bases and subclasses in the file, plainness, fallbacks.

The second layer of :class:`cvlib.notes.python.PythonFile`, on its symbol
table: which classes of the file a class inherits from or is inherited by,
whether a class is *plain* (nothing outside the file can change how its
members are looked up), which name bindings are certain, and why the precise
rule falls back to the wide one for a method (:meth:`FileClasses.fallback_reason`).
"""

from __future__ import annotations

import ast

from .errors import NotesError
from .python_code import _BUILTIN_TYPES, _all_args, _declaration, _first_param, _method_fallback
from .python_syntax import _FUNC_TYPES, _Binding, _loaded_names, _Scope
from .python_table import SymbolTable


class FileClasses(SymbolTable):
    """The classes of one Python file and the facts about them the member rules rest on."""

    def __init__(self, source: str, path: str = "<snapshot>"):
        super().__init__(source, path)
        self._rule = "precise"
        self._fallbacks: dict[int, str] = {}
        self._parent_cache: dict[int, dict[int, ast.AST]] = {}

    def _future_features(self) -> list[str]:
        """The ``__future__`` features the module imports, sorted."""
        return sorted({a.name for stmt in self.tree.body if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
                       for a in stmt.names})

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

    def _own_class_names(self, cls: _Scope) -> dict[str, _Scope]:
        """Module-level classes enclosing a method, by name (``Runner.x`` inside ``Runner`` reads one member)."""
        out: dict[str, _Scope] = {}
        current: _Scope | None = cls
        while current is not None and current.kind == "class":
            if current.parent is not None and current.parent.kind == "module":
                out[current.node.name] = current  # type: ignore[union-attr]
            current = current.parent
        return out

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

    def _assignment_item(self, cls: _Scope, method: str, attr: str) -> tuple[str, str, str]:
        """The slice of ``cls.method`` that sets ``self.attr`` (the whole method where slicing is not safe)."""
        bindings = cls.bindings.get(method, [])
        if len(bindings) == 1 and isinstance(bindings[0].node, _FUNC_TYPES):
            node = bindings[0].node
            if _first_param(node) is not None and not self.fallback_reason_of(cls, node):
                return ("sets", cls.qualname, f"{method} {attr}")
        return ("m", cls.qualname, method)

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
