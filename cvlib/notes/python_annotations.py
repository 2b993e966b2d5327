"""When a Python annotation or decorator can be seen by running code, and when it is inert.

The third layer of :class:`cvlib.notes.python.PythonFile`: a signature's
annotations count for a dependency only where something can read them (a
decorator that reads them, code that reads ``__annotations__``, an
evaluation that could fail); ``AnnotationRules._inert_signature`` decides,
so that adding ``from __future__ import annotations`` alone does not send
notes back to review.
"""

from __future__ import annotations

import ast
import builtins

from .python_classes import FileClasses
from .python_code import _ANNOTATION_READERS, _INERT_STDLIB_DECORATORS, _NAME_ATTRIBUTES, _WRAPPER_COPIERS, _all_args
from .python_syntax import _FUNC_TYPES, _Scope, _unevaluated_annotations


class AnnotationRules(FileClasses):
    """Which annotations and decorators of one Python file nothing can see."""

    def __init__(self, source: str, path: str = "<snapshot>"):
        super().__init__(source, path)
        self._inert_cache: dict[int, bool] = {}
        self._unread: bool | None = None

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
