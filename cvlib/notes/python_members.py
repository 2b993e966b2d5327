"""The precise member rules of Python methods: which class members a method depends on, and which statements set them.

The fifth layer of :class:`cvlib.notes.python.PythonFile`: what a binding
reads (``MemberRules._reads_of``), the class members a method reads under
the precise and the wide rule, and the slice of a setter method that sets one
attribute (``MemberRules._slice_record``).
"""

from __future__ import annotations

import ast
import json

from .python_code import (
    _BUILTIN_CALLS,
    _CONSTRUCTION,
    _DUNDERS,
    _FUTURE_ITEM,
    _SPECIAL_BY_USE,
    _all_args,
    _first_is_instance,
    _first_param,
    _is_type_of,
    _member_of,
    _member_of_class,
    _prune,
    _self_calls,
    _sets_by_name_only,
    _sets_dynamically,
)
from .python_reads import CodeReads
from .python_syntax import (
    _DEF_TYPES,
    _FUNC_TYPES,
    _behaviour_canon,
    _Binding,
    _loaded_names,
    _Scope,
    _unannotated,
    _unevaluated_annotations,
)


class MemberRules(CodeReads):
    """The class members each method of one Python file depends on, under the precise and the wide rule."""

    def __init__(self, source: str, path: str = "<snapshot>"):
        super().__init__(source, path)
        self._setters_cache: dict[str, list[str]] = {}
        self._closure_cache: dict[tuple[str, str], set[str]] = {}
        self._slice_cache: dict[tuple[str, str, str], tuple[str, frozenset[tuple[str, str, str]]]] = {}

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
