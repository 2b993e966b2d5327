"""Rust files: their symbols, and what each symbol depends on inside its file, through tree-sitter.

The parser comes from PyPI (the ``tree-sitter`` bindings and the
``tree-sitter-rust`` grammar) and is loaded the first time a ``.rs`` file is
read, so ``import cvlib`` and Python-only checks never load it.

Symbols
-------
``function`` (``peek_nth``; inside an inline module ``tests::t``), ``method``
(in an ``impl``: ``Foo::new``; in a trait impl: ``<Foo as Display>::fmt``; in a
trait: ``Iterator::next``), ``nested`` (a ``fn`` inside a ``fn``:
``outer::inner``), ``type`` (``struct``, ``enum``, ``union``, ``trait``,
``type``), ``constant`` (``const``, ``static``) and ``macro`` (``macro_rules!``:
``name!``). A symbol's code runs from its first attribute (``#[inline]``,
``#[cfg(...)]``) to its end; comments, doc comments and formatting are not
part of the normalized hash. A qualified name defined twice (``#[cfg]``
variants) gets an ordinal suffix from its second definition on.

Dependencies (within one file)
------------------------------
* its own binding record: every item of the same name in the same module
  (a second, ``#[cfg]``-gated definition changes it);
* every item of the file its code names -- functions it calls, ``const`` and
  ``static`` items, types (their whole definitions), traits, macros (a
  ``macro_rules!`` whole) -- and ``use`` declarations as written (``use a::b``
  and ``use c::b`` differ), followed into the file's inline modules when they
  name an item there, transitively; ``Foo::new`` and ``Self::K`` name
  ``Foo``'s (or the own type's) associated items in every ``impl`` of the file
  (under the precise rule a type ``Self::Error`` in a trait impl that defines
  ``Error`` names that impl's item only: Rust resolves it through the
  implemented trait);
* for a method: the header of its ``impl`` (generics, trait, the implemented
  type's arguments, where clause, the ``impl``'s own attributes) and each
  ``self.method()`` it calls, resolved to the same-file ``impl`` items of that
  name, transitively;
* for a nested function: the enclosing function.

What a method counts of its own type is where the two rules differ. Under the
**wide** rule (``rule="wide"``) it counts the type's whole definition. Under
the **precise** rule it counts the type's attributes, visibility, generics and
where clause (so a derive or ``#[pyclass(...)]`` option changed withholds every
method) and, for each field it reads -- ``self.x``, ``self.0``, ``other.x`` for
a parameter of type ``&Self`` or ``PyRef<Self>``, also inside the arguments of
the standard formatting and assertion macros and of a same-file
``macro_rules!`` whose fragments are all expressions -- that field's
declaration and what it names. That is sound as far as the file shows: code
generated from the whole definition (a derive, pyo3's impls) runs only through
a trait call on a value of the type, and a method whose code could make one
counts the type whole instead (:data:`FALLBACK_REASONS`, reported per method
by :meth:`RustFile.fallback_reason`): ``self`` used as a value (passed,
matched, compared, formatted, also as ``"{self:?}"`` in a format string, dereferenced), ``self`` taken by value (its drop
runs over every field; a same-file ``Drop`` impl counts too), a method on
``self`` the file does not define for the type (derived, a trait's default, a
``Deref`` target's, a macro's: a same-file trait default of that name and
the file's item-level macro invocations count too), a field the definitions
do not declare (``Deref``), ``self`` in another macro's
tokens, the own type named as a type or value (``-> Self``, ``Self { .. }``,
``Self::Variant``: constructors and enums), a trait's default method (``self``
is any implementor), and an attribute macro on the type other than the
compiler's own attributes and pyo3's ``#[pyclass]`` (taken at its documented
word: it adds impls and leaves the fields as written), since such a macro may
rewrite the fields. A field's declaration naming another type counts that
type's whole definition.

Spellings of the same program
-----------------------------
A dependency's record is its canonical text with what cannot change the
compiled program written one way (:meth:`RustFile.canon`): attributes that
only set lint levels or optimisation hints (:data:`INERT_SPELLINGS`), a known
type alias of a crate the file imports (:data:`TYPE_ALIASES`: pyo3's
``PyObject`` is ``Py<PyAny>``; applied only where no item, other import, glob
or generic parameter of the file could give the name or its expansion
another meaning), ``unsafe { .. }`` as a plain block, a block that is all one
inner block as that block, a ``;`` that ends a statement already ended when
code follows it, parentheses (the tree holds the grouping; not around a
called field, ``(self.f)()``), anonymous lifetimes (``Python<'_>``, ``&'_ T``: lifetimes
are erased before code is generated), the visibility of a module-level item
(every reader the file shows sees it; fields and methods keep theirs, since
field and method lookup skips what a module cannot see) and the byte array
of a ``const``/``static`` written as ``[b'a', ..]`` or ``*b"a.."``. The
symbol's own code is hashed as written, so an edit to it is ``CHANGED`` for
both gates.

Out of reach: other files and crates (a ``use`` is a binding, not what it
imports), trait dispatch to impls elsewhere (and to impls of the file through
generic code of other crates), method calls on values other than ``self`` and
``&Self`` parameters (no type inference: ``x.m()`` for a local ``x`` of a type
of the file is not followed), macros' expansions (a macro from elsewhere is a
name; what it generates is not seen), build scripts, features and ``cfg``
values (an attribute is code; which cfg is on is not known), data files.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from .errors import NotesError
from .languages import Language, register_language
from .rust_members import _MemberWalk
from .rust_syntax import (
    _TYPE_ITEMS,
    FALLBACK_REASONS,
    INERT_SPELLINGS,
    TYPE_ALIASES,
    _attribute_macros,
    _field_declaration,
    _Item,
    _key,
    _Member,
    _Module,
    _names_self,
    _preceding_attributes,
    _RSym,
    _type_arguments,
)
from .rust_table import RustItems

__all__ = ["FALLBACK_REASONS", "INERT_SPELLINGS", "LANGUAGE", "TYPE_ALIASES", "RustFile"]


class RustFile(RustItems):
    """The symbols of one Rust source and, on demand, the dependency fingerprint of each.

    Raises
    ------
    UnparsableSource
        If the source is not UTF-8 or does not parse.
    LanguageUnavailable
        If the tree-sitter packages are not installed.
    """

    def _label(self, item: tuple[str, str, str]) -> str:
        kind, scope, name = item
        if kind in ("t", "tl"):
            return f"{scope}::{name}"
        if kind == "h":
            return self._header_labels.get(name, name)
        if kind == "u":
            return name
        if kind == "n":
            return scope
        if kind == "f":
            return f"{scope}.{name}"
        if kind == "d":
            return f"{scope} (attributes, generics)"
        if kind == "g":
            return "macro invocations among the items"
        return f"{scope}{name}" if name != "*" else f"{scope}* (glob imports)"

    def _record(self, item: tuple[str, str, str], own: tuple[int, int, str]) -> tuple[str, set[tuple[str, str, str]]]:
        kind, scope, name = item
        reads: set[tuple[str, str, str]] = set()
        if kind == "u":
            return json.dumps(["unbound"]), reads
        if kind == "h":
            node, module = self._headers[name]
            if self._rule == "precise" and node.type == "impl_item":
                owner = self._header_owner[name]
                reads |= self._reads_header((node, module), skip_owner=True)
                if self._type_module(module, owner) is not None:
                    reads.add(("d", owner, ""))
                return json.dumps(["header", name, sorted(self._header_attr_texts.get(name, ()))]), reads
            reads |= self._reads_header((node, module))
            return json.dumps(["header", name]), reads
        if kind == "f":
            return self._field_record(scope, name)
        if kind == "d":
            return self._type_header_record(scope)
        if kind == "g":
            for node, module in self._item_macros:
                reads |= self._reads(node, module, None)
            return json.dumps([self.canon(node) for node, _ in self._item_macros]), reads
        if kind == "n":
            sym = self._by_qualname[scope]
            module = self._module_of(sym)
            return json.dumps(["enclosing", self.canon(sym.enclosing)]), self._reads(sym.enclosing, module, None)
        if kind in ("t", "tl"):
            record: list[object] = []
            owner = scope if kind == "t" else self._owner_of_label.get(scope, scope)
            for m in self.members.get(owner, []):
                if m.name != name or (kind == "tl" and m.label != scope):
                    continue
                code = "<self>" if _key(m.node) == own else self._code(m.node, m.attrs)
                record.append([m.header, code])
                reads.add(("h", "", m.header))
                if self._rule == "precise":
                    reads |= self._member_reads(m, owner)[0]
                else:
                    reads |= self._reads(m.node, m.module, owner)
                reads |= {r for a in m.attrs for r in self._reads(a, m.module, owner)}
            if not record:
                record = ["unbound"]
            return json.dumps(record), reads
        found = self._modules.get(scope)
        if found is None:
            return json.dumps(["unbound"]), reads
        module = found
        record = []
        for b in module.bindings.get(name, []):
            if b.canon_override is not None:
                record.append([b.kind, b.canon_override])
                if b.kind == "use":
                    reads |= self._use_target(b.canon_override, module)
                continue
            if _key(b.node) == own:
                code = "<self>"
            else:  # its visibility only decides what compiles where: every reader of the file sees the item
                visibility = [c for c in b.node.named_children if c.type == "visibility_modifier"]
                code = self._attrs_text(b.attrs) + self.canon(b.node, omit=visibility[0] if visibility else None)
            record.append([b.kind, code])
            reads |= self._reads(b.node, module, name if b.kind in _TYPE_ITEMS else None)
            reads |= {r for a in b.attrs for r in self._reads(a, module, None)}
        return json.dumps(record or ["unbound"]), reads

    def _use_target(self, text: str, module: _Module) -> set[tuple[str, str, str]]:
        """The item of this file a ``use`` names (``use inner::deep``, ``use crate::a::B as C``), if any."""
        path = text.removeprefix("use ").split(" as ")[0]
        segments = [seg for seg in path.split("::") if seg]
        if not segments or segments[-1] == "*":
            return set()
        current: _Module | None = module
        if segments[0] == "crate":
            current, segments = self.top, segments[1:]
        elif segments[0] == "self":
            segments = segments[1:]
        while segments and segments[0] == "super" and current is not None:
            current, segments = current.parent, segments[1:]
        if current is None or not segments:
            return set()
        for seg in segments[:-1]:
            current = self._modules.get(current.prefix + seg + "::")
            if current is None:
                return set()
        return {("m", current.prefix, segments[-1])} if segments[-1] in current.bindings else set()

    def _reads_header(self, header: tuple[Any, _Module], skip_owner: bool = False) -> set[tuple[str, str, str]]:
        node, module = header
        body = node.child_by_field_name("body")
        own_type = node.child_by_field_name("type") if skip_owner else None
        out: set[tuple[str, str, str]] = set()
        for child in node.children:
            if body is not None and _key(child) == _key(body):
                continue
            if own_type is not None and _key(child) == _key(own_type):
                # the implemented type counts by what each member reads of it; its arguments count here
                out |= {r for arg in _type_arguments(child) for r in self._reads(arg, module, None)}
                continue
            out |= self._reads(child, module, None)
        return out

    def _type_items(self, owner: str) -> tuple[_Module | None, list[_Item]]:
        for ms in self.members.get(owner, []):
            mod = self._type_module(ms.module, owner)
            if mod is not None:
                return mod, [b for b in mod.bindings.get(owner, []) if b.kind in _TYPE_ITEMS]
        return None, []

    def _field_record(self, owner: str, field: str) -> tuple[str, set[tuple[str, str, str]]]:
        """The declarations of field ``field`` in the file's definitions of ``owner`` (and what they name)."""
        module, items = self._type_items(owner)
        reads: set[tuple[str, str, str]] = set()
        record: list[object] = []
        for item in items:
            decl = _field_declaration(item.node, field)
            if decl is None:
                continue
            attrs = _preceding_attributes(decl)
            record.append(self._attrs_text(attrs) + self.canon(decl))
            assert module is not None
            reads |= self._reads(decl, module, owner)
            if _names_self(decl):
                reads.add(("m", module.prefix, owner))
        return json.dumps(record or ["unbound"]), reads

    def _type_header_record(self, owner: str) -> tuple[str, set[tuple[str, str, str]]]:
        """A type's definitions without their fields or variants: attributes, visibility, name, generics, where clause."""
        module, items = self._type_items(owner)
        reads: set[tuple[str, str, str]] = set()
        record: list[object] = []
        for item in items:
            body = item.node.child_by_field_name("body")
            text = self._attrs_text(item.attrs)
            text += self.canon(item.node, body) if body is not None else self.canon(item.node)
            record.append([item.kind, text])
            assert module is not None
            name = item.node.child_by_field_name("name")
            for child in item.node.children:
                if (body is None or _key(child) != _key(body)) and (name is None or _key(child) != _key(name)):
                    reads |= self._reads(child, module, owner)
            reads |= {r for a in item.attrs for r in self._reads(a, module, None)}
        return json.dumps(record or ["unbound"]), reads

    def _member_reads(self, m: _Member, owner: str) -> tuple[set[tuple[str, str, str]], tuple[str, ...]]:
        """What a member's code reads under the precise rule, and why it needs its type whole (if it does)."""
        key = _key(m.node)
        cached = self._precise.get(key)
        if cached is not None:
            return cached
        reads: set[tuple[str, str, str]] = {r for a in m.attrs for r in self._reads(a, m.module, owner)}
        type_module = self._type_module(m.module, owner)
        reasons: list[str] = []
        if m.node.type != "function_item" or m.header_node.type != "impl_item":
            reads |= self._reads(m.node, m.module, owner)
            if m.header_node.type == "trait_item":
                reasons.append("trait default method")
        elif type_module is not None:
            _, items = self._type_items(owner)
            wrapped = sorted({a for item in items for a in _attribute_macros(item.attrs)})
            if wrapped:
                reasons.append("attribute macro on the type")
                reads |= self._reads(m.node, m.module, owner)
            else:
                walker = _MemberWalk(self, m, owner, items)
                walker.run()
                reads |= walker.reads
                reasons += walker.reasons
            if reasons:
                reads.add(("m", type_module.prefix, owner))
        else:  # a type from elsewhere: nothing of it is in the file, as under the wide rule
            reads |= self._reads(m.node, m.module, owner)
        out = (reads, tuple(dict.fromkeys(reasons)))
        self._precise[key] = out
        return out

    def _module_of(self, sym: _RSym) -> _Module:
        return sym.module

    def dependencies(self, qualname: str, rule: str = "precise") -> dict[str, str]:
        """Every dependency of a symbol: label -> canonical text (see the module docstring).

        Parameters
        ----------
        qualname
            The symbol.
        rule
            ``"precise"`` (a method counts the fields of its type it reads,
            see the module docstring) or ``"wide"`` (it counts its type's whole
            definition).

        Returns
        -------
        dict
            Label -> canonical text, labels sorted.
        """
        if rule not in ("precise", "wide"):
            raise NotesError(f"dependency rule must be 'precise' or 'wide', got {rule!r}")
        sym = self._by_qualname.get(qualname)
        if sym is None:
            raise NotesError(f"{self.path!r} defines no symbol {qualname!r}")
        self._rule = rule
        own = _key(sym.node)
        if sym.kind == "nested":
            start = ("n", qualname, "")
        elif sym.owner is not None:
            start = ("tl", sym.qualname.rsplit("::", 1)[0], sym.name)
        else:
            start = ("m", sym.module.prefix, sym.name)
        todo: deque[tuple[tuple[str, str, str], int]] = deque([(start, 0)])
        done: dict[tuple[str, str, str], str] = {}
        depth: dict[tuple[str, str, str], int] = {}
        while todo:  # breadth first, so each dependency's depth is its distance from the symbol
            item, level = todo.popleft()
            if item in done:
                continue
            text, reads = self._record(item, own)
            done[item] = text
            depth[item] = level
            todo.extend((r, level + 1) for r in sorted(reads) if r not in done)
        self.depths = {}
        for item in sorted(done):
            label = self._label(item)
            self.depths[label] = min(depth[item], self.depths.get(label, depth[item]))
        return {self._label(item): done[item] for item in sorted(done)}

    def dependency_depths(self, qualname: str) -> dict[str, int]:
        """Label -> distance from the symbol in the dependency graph (0: its own binding)."""
        self.dependencies(qualname)
        return dict(self.depths)

    def fallback_reason(self, qualname: str) -> str:
        """Why the precise rule counts a method's type whole, as the wide rule does; ``""`` if it does not.

        Parameters
        ----------
        qualname
            The symbol.

        Returns
        -------
        str
            The first of :data:`FALLBACK_REASONS` the method's own code meets,
            or ``""`` (also for every symbol that is not a method of an ``impl``).
        """
        sym = self._by_qualname.get(qualname)
        if sym is None:
            raise NotesError(f"{self.path!r} defines no symbol {qualname!r}")
        if sym.owner is None:
            return ""
        for m in self.members.get(sym.owner, []):
            if _key(m.node) == _key(sym.node):
                reasons = self._member_reads(m, sym.owner)[1]
                return min(reasons, key=FALLBACK_REASONS.index) if reasons else ""
        return ""


#: Rust in the gate's registry of languages (:mod:`cvlib.notes.languages`), for ``.rs`` files read with tree-sitter
#: (loaded on the first file); a ``target`` folder beside ``Cargo.toml`` is build output and is not read.
LANGUAGE: Language = register_language(
    Language("Rust", (".rs",), RustFile, FALLBACK_REASONS, build_folders=(("Cargo.toml", "target"),)))
