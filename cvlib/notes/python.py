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
import json
from collections import deque
from typing import cast

from .errors import NotesError
from .languages import Language, register_language
from .python_code import _FUTURE_ITEM, FALLBACK_REASONS, RULES, _in_context, _member_of
from .python_members import MemberRules
from .python_syntax import PySymbol, _loaded_names, canon, count_nodes, nameless, parse
from .symbols import Symbol, sha256

__all__ = ["FALLBACK_REASONS", "LANGUAGE", "RULES", "PySymbol", "PythonFile", "PythonRows", "analyse_python", "canon",
           "count_nodes", "nameless", "parse"]


class PythonFile(MemberRules):
    """The symbols of one Python source and, on demand, the dependency fingerprint of each.

    Built in layers, each a module named for what it holds:
    :class:`~cvlib.notes.python_table.SymbolTable` (symbols, scopes, binding
    records), :class:`~cvlib.notes.python_classes.FileClasses` (the file's
    classes and fallbacks), :class:`~cvlib.notes.python_annotations.AnnotationRules`
    (inert annotations and decorators), :class:`~cvlib.notes.python_reads.CodeReads`
    (what code reads and how names resolve),
    :class:`~cvlib.notes.python_members.MemberRules` (the precise member rules);
    this last layer turns them into dependency records.

    Raises
    ------
    UnparsableSource
        If the source does not parse.
    """

    def __init__(self, source: str, path: str = "<snapshot>"):
        super().__init__(source, path)
        #: Each label's distance from the symbol in the last :meth:`dependencies` call, 0 for its own binding.
        self.depths: dict[str, int] = {}

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

    def _shell_record(self, scope_name: str, own: ast.AST) -> tuple[str, set[tuple[str, str, str]]]:
        """A class's header as a dependency: its bases, keywords and decorators, and where the class is bound."""
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
            return self._shell_record(scope_name, own)
        found = self.scopes.get(scope_name)
        if found is None:
            return json.dumps(["unbound"]), set()
        scope = found
        bindings = scope.bindings.get(name, [])
        record: list[object] = []
        reads: set[tuple[str, str, str]] = set()
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


#: Python in the gate's registry of languages (:mod:`cvlib.notes.languages`), for ``.py`` files read with :mod:`ast`.
LANGUAGE: Language = register_language(Language("Python", (".py",), analyse_python, FALLBACK_REASONS))
