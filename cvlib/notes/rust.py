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
import re
from collections import deque
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from .errors import LanguageUnavailable, NotesError, UnparsableSource
from .languages import Language, register_language
from .symbols import Symbol, sha256

_COMMENTS = {"line_comment", "block_comment"}
_TYPE_ITEMS = {"struct_item", "enum_item", "union_item", "trait_item", "type_item"}
_CONST_ITEMS = {"const_item", "static_item"}


@lru_cache(maxsize=1)
def _parser() -> Any:
    try:
        import tree_sitter
        import tree_sitter_rust
    except ImportError:
        raise LanguageUnavailable(
            "reading Rust needs the tree-sitter packages: pip install tree-sitter tree-sitter-rust"
        ) from None
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_rust.language()))


def _key(node: Any) -> tuple[int, int, str]:
    return (node.start_byte, node.end_byte, node.type)


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "surrogatepass")


def _squeeze(text: str) -> str:
    return "".join(text.split())


@dataclass(eq=False)
class _Item:
    kind: str
    name: str
    node: Any  # the item node
    attrs: tuple[Any, ...]
    canon_override: str | None = None  # use/mod bindings


@dataclass(eq=False)
class _Module:
    prefix: str
    parent: _Module | None
    bindings: dict[str, list[_Item]] = field(default_factory=dict)


@dataclass(eq=False)
class _Member:
    """An item of an impl or trait body, with the header it sits under."""

    name: str
    node: Any
    attrs: tuple[Any, ...]
    header: str
    header_node: Any
    module: _Module
    label: str  # "Foo" or "<Foo as Display>"
    header_label: str  # "impl<T> Display for Foo<T>"
    header_attrs: tuple[Any, ...] = ()  # the impl's own attributes (``#[pymethods]``)


@dataclass(frozen=True, slots=True)
class _RSym:
    qualname: str
    name: str
    kind: str
    node: Any
    attrs: tuple[Any, ...]
    module: _Module
    owner: str | None  # the impl's or trait's type for a method
    enclosing: Any  # the enclosing fn node for a nested fn


class RustFile:
    """The symbols of one Rust source and, on demand, the dependency fingerprint of each.

    Raises
    ------
    UnparsableSource
        If the source is not UTF-8 or does not parse.
    LanguageUnavailable
        If the tree-sitter packages are not installed.
    """

    def __init__(self, source: str, path: str = "<snapshot>"):
        self.path = path
        try:
            self.data = source.encode("utf-8")
        except UnicodeEncodeError:
            raise UnparsableSource(f"{path!r} is not UTF-8 text, so it is not Rust") from None
        if b"\x00" in self.data:
            raise UnparsableSource(f"{path!r} holds NUL bytes, so it is not Rust")
        tree = _parser().parse(self.data)
        if tree.root_node.has_error:
            raise UnparsableSource(f"{path!r} does not parse as Rust (tree-sitter reports a syntax error)")
        self.root = tree.root_node
        self.symbols: list[_RSym] = []
        self.members: dict[str, list[_Member]] = {}
        self._seen: dict[str, int] = {}
        self._canon: dict[tuple[tuple[int, int, str], bool], str] = {}
        self._literal = False  # True while hashing a symbol's own code (written as is, see :meth:`rows`)
        self._aliases: dict[str, tuple[str, ...]] = {}
        self.top = _Module("", None)
        self._modules: dict[str, _Module] = {"": self.top}
        self._item_macros: list[tuple[Any, _Module]] = []  # macro invocations where items go: they may generate some
        try:
            self._items(self.root, self.top)
        except RecursionError:
            raise UnparsableSource(f"{path!r} nests too deeply to read") from None
        self._aliases = self._bound_aliases()
        self._canon.clear()  # the impl headers were serialised before the aliases were known
        for ms in self.members.values():
            for m in ms:
                m.header = self._header_text(m.header_node)
        self._headers = {m.header: (m.header_node, m.module) for ms in self.members.values() for m in ms}
        self._by_qualname = {s.qualname: s for s in self.symbols}
        #: Each label's distance from the symbol in the last :meth:`dependencies` call, 0 for its own binding.
        self.depths: dict[str, int] = {}
        self._header_labels = {m.header: m.header_label for ms in self.members.values() for m in ms}
        self._header_owner = {m.header: owner for owner, ms in self.members.items() for m in ms}
        self._header_attr_texts: dict[str, set[str]] = {}
        for ms in self.members.values():
            for m in ms:
                self._header_attr_texts.setdefault(m.header, set()).update(
                    t for t in (self.canon(a) for a in m.header_attrs) if t)
        self._rule = "precise"
        self._precise: dict[tuple[int, int, str], tuple[set[tuple[str, str, str]], tuple[str, ...]]] = {}
        self._owner_of_label = {m.label: owner for owner, ms in self.members.items() for m in ms}

    # -- finding items -----------------------------------------------------------------------

    def _add(self, qualname: str, name: str, kind: str, node: Any, attrs: tuple[Any, ...], module: _Module,
             owner: str | None = None, enclosing: Any = None) -> None:
        self._seen[qualname] = self._seen.get(qualname, 0) + 1
        if self._seen[qualname] > 1:
            qualname = f"{qualname}#{self._seen[qualname]}"
        self.symbols.append(_RSym(qualname, name, kind, node, attrs, module, owner, enclosing))

    def _items(self, container: Any, module: _Module) -> None:
        attrs: list[Any] = []
        for child in container.named_children:
            if child.type in _COMMENTS:
                continue
            if child.type == "macro_invocation" or (child.type == "expression_statement" and child.named_children
                                                    and child.named_children[0].type == "macro_invocation"):
                self._item_macros.append((child, module))
            if child.type == "attribute_item":
                attrs.append(child)
                continue
            self._item(child, tuple(attrs), module)
            attrs = []

    def _bind(self, module: _Module, name: str, item: _Item) -> None:
        module.bindings.setdefault(name, []).append(item)

    def _item(self, node: Any, attrs: tuple[Any, ...], module: _Module) -> None:
        kind = node.type
        name_node = node.child_by_field_name("name")
        name = _text(name_node) if name_node is not None else ""
        if kind == "function_item":
            self._bind(module, name, _Item("fn", name, node, attrs))
            self._add(module.prefix + name, name, "function", node, attrs, module)
            self._nested(node, module.prefix + name, module)
        elif kind in _TYPE_ITEMS:
            self._bind(module, name, _Item(kind, name, node, attrs))
            self._add(module.prefix + name, name, "type", node, attrs, module)
            if kind == "trait_item" and node.child_by_field_name("body") is not None:
                self._body(node, node.child_by_field_name("body"), name, name, module, trait=True, header_attrs=attrs)
        elif kind in _CONST_ITEMS:
            self._bind(module, name, _Item(kind, name, node, attrs))
            self._add(module.prefix + name, name, "constant", node, attrs, module)
        elif kind == "macro_definition":
            self._bind(module, name + "!", _Item("macro", name, node, attrs))
            self._add(module.prefix + name + "!", name + "!", "macro", node, attrs, module)
        elif kind == "mod_item":
            self._bind(module, name, _Item("mod", name, node, attrs, canon_override=f"mod {name}"))
            body = node.child_by_field_name("body")
            if body is not None:
                inner = self._modules.setdefault(module.prefix + name + "::", _Module(module.prefix + name + "::", module))
                self._items(body, inner)
        elif kind == "impl_item":
            body = node.child_by_field_name("body")
            type_node = node.child_by_field_name("type")
            if body is None or type_node is None:
                return
            owner = _base_type(type_node)
            trait = node.child_by_field_name("trait")
            label = f"<{owner} as {_base_type(trait)}>" if trait is not None else owner
            self._body(node, body, owner, label, module, trait=False, header_attrs=attrs)
        elif kind == "use_declaration":
            arg = node.child_by_field_name("argument")
            if arg is not None:
                for bound, path in _use_bindings(arg, ""):
                    if bound == "*":
                        self._bind(module, "*", _Item("use", "*", node, attrs, canon_override=f"use {path}"))
                    else:
                        self._bind(module, bound, _Item("use", bound, node, attrs, canon_override=f"use {path}"))
        elif kind == "extern_crate_declaration":
            alias = node.child_by_field_name("alias")
            bound = _text(alias) if alias is not None else name
            self._bind(module, bound, _Item("extern crate", bound, node, attrs))

    def _body(self, header_node: Any, body: Any, owner: str, label: str, module: _Module, trait: bool,
              header_attrs: tuple[Any, ...] = ()) -> None:
        header = self._header_text(header_node)
        start, stop = header_node.start_byte, body.start_byte
        header_label = " ".join(self.data[start:stop].decode("utf-8").split())
        attrs: list[Any] = []
        for child in body.named_children:
            if child.type in _COMMENTS:
                continue
            if child.type == "attribute_item":
                attrs.append(child)
                continue
            if child.type == "macro_invocation":
                self._item_macros.append((child, module))
            name_node = child.child_by_field_name("name")
            if name_node is None:
                attrs = []
                continue
            name = _text(name_node)
            self.members.setdefault(owner, []).append(
                _Member(name, child, tuple(attrs), header, header_node, module, label, header_label, header_attrs))
            kind = "method" if child.type in ("function_item", "function_signature_item") else "constant"
            qualname = f"{label}::{name}"
            self._add(qualname, name, kind, child, tuple(attrs), module, owner=owner)
            if child.type == "function_item":
                self._nested(child, qualname, module)
            attrs = []

    def _nested(self, fn: Any, qualname: str, module: _Module) -> None:
        body = fn.child_by_field_name("body")
        if body is None:
            return
        stack = list(reversed(body.named_children))
        while stack:
            node = stack.pop()
            if node.type == "function_item":
                name = _text(node.child_by_field_name("name"))
                self._add(f"{qualname}::{name}", name, "nested", node, (), module, enclosing=fn)
                self._nested(node, f"{qualname}::{name}", module)
            elif node.type in ("impl_item", "mod_item", "closure_expression"):
                continue
            else:
                stack.extend(reversed(node.named_children))

    # -- canonical text ----------------------------------------------------------------------

    def canon(self, node: Any, skip: Any = None, omit: Any = None) -> str:
        """Comment-free, whitespace-free serialisation of a subtree (``skip``: a node written as its type only).

        In a dependency record (not while :meth:`rows` hashes a symbol's own
        code) two spellings of the same program serialise alike: an attribute
        that only sets a lint level or an optimisation hint (:data:`INERT_SPELLINGS`)
        is left out, and a known type alias of a bound crate is written as
        what it stands for (:data:`TYPE_ALIASES`, where ``_bound_aliases``
        shows that the name can only be that crate's). Blocks that differ only
        in how they are written serialise alike too: an ``unsafe`` block as a
        plain block (``unsafe`` only allows operations, it does not change
        them), a block whose whole content is one inner block as that block
        (the same values, and the same drops in the same order), and a
        stray ``;`` inside a block dropped when a statement or the tail
        follows it (``match x { .. };`` then more code).
        ``omit``: a node left out (an item's own visibility, see ``_record``).
        """
        if skip is None and omit is None:
            cached = self._canon.get((_key(node), self._literal))
            if cached is not None:
                return cached
        out = self._serialise(node, None if skip is None else _key(skip), None if omit is None else _key(omit))
        if skip is None and omit is None:
            self._canon[(_key(node), self._literal)] = out
        return out

    def _serialise(self, node: Any, skip: tuple[int, int, str] | None, omit: tuple[int, int, str] | None = None) -> str:
        if node.type in _COMMENTS:
            return ""
        key = _key(node)
        if skip is not None and key == skip:
            return f"{node.type}()"
        if omit is not None and key == omit:
            return ""
        if not self._literal:
            if node.type in ("attribute_item", "inner_attribute_item") and _inert_attribute(node):
                return ""
            if node.type == "type_identifier" and _text(node) in self._aliases and _type_position(node):
                return _alias_text(_text(node))
            if node.type in ("array_expression", "unary_expression") and node.parent is not None \
                    and node.parent.type in _CONST_ITEMS and _key(node.parent.child_by_field_name("value")) == key:
                value = _byte_array(node)
                if value is not None:  # ``[b'a', b'b']`` and ``*b"ab"``: the same bytes in the item
                    return f"bytes({value.hex()})"
            if node.type == "generic_type":
                args = node.child_by_field_name("type_arguments")
                base = node.child_by_field_name("type")
                if args is not None and base is not None and _only_anonymous_lifetimes(args):
                    return self._serialise(base, skip, omit)  # ``Python<'_>`` is ``Python``
            if node.type in ("type_arguments", "reference_type"):
                kept = [c for c in node.children if not _anonymous_lifetime(c)]
                if len(kept) < len(node.children):  # ``PyRef<'_, Self>`` is ``PyRef<Self>``, ``&'_ T`` is ``&T``
                    if node.type == "type_arguments":
                        named = [c for c in kept if c.is_named and c.type not in _COMMENTS]
                        inner = ",',',".join(self._serialise(c, skip, omit) for c in named)
                        return f"type_arguments('<',{inner},'>')"
                    inner = ",".join(p for p in (self._serialise(c, skip, omit) for c in kept) if p)
                    return f"reference_type({inner})"
            if node.type == "parenthesized_expression" and not _is_called(node):
                inner_expr = [c for c in node.named_children if c.type not in _COMMENTS]
                if len(inner_expr) == 1:  # the tree already says how it groups; ``(self.f)()`` keeps its parentheses
                    return self._serialise(inner_expr[0], skip, omit)
            if node.type == "unsafe_block":
                inner_block = [c for c in node.named_children if c.type == "block"]
                if len(inner_block) == 1:
                    return self._serialise(inner_block[0], skip, omit)
            if node.type == "block":
                sole = _sole_inner_block(node)
                if sole is not None:
                    return self._serialise(sole, skip, omit)
                parts = []
                children = node.children
                for i, c in enumerate(children):
                    if c.type == "empty_statement" and _statement_follows(children, i):
                        continue
                    part = self._serialise(c, skip, omit)
                    if part:
                        parts.append(part)
                return f"block({','.join(parts)})"
        if node.child_count == 0:
            return f"{node.type}:{_text(node)}" if node.is_named else repr(node.type)
        inner = ",".join(p for p in (self._serialise(c, skip, omit) for c in node.children) if p)
        return f"{node.type}({inner})"

    def _attrs_text(self, attrs: Any) -> str:
        return "[" + ",".join(t for t in (self.canon(a) for a in attrs) if t) + "]"

    def _code(self, node: Any, attrs: tuple[Any, ...], skip_name: bool = False) -> str:
        skip = node.child_by_field_name("name") if skip_name else None
        return self._attrs_text(attrs) + self.canon(node, skip)

    def _bound_aliases(self) -> dict[str, tuple[str, ...]]:
        """The names of :data:`TYPE_ALIASES` that can only mean the crate's alias here, with the names it expands to.

        A name qualifies when no module of the file defines it, binds it by a
        ``use`` of another crate or declares it as a generic parameter, when
        the same holds for the names its expansion uses (``Py``, ``PyAny``), and
        when every glob import of the file is the crate's own (``use
        pyo3::prelude::*``) or, inside an inline module, ``use super::*``, and
        when no macro is invoked among the items: then the name, and its
        expansion, resolve to the crate's items (derives and attribute macros
        are taken to add impls, not items of that name, as pyo3's do).
        """
        crates = {crate for crate, _ in TYPE_ALIASES.values()}
        allowed: set[str] = set()
        for crate in crates:
            names = {n for n, (c, _) in TYPE_ALIASES.items() if c == crate}
            names |= {e for n in names for e in _ALIAS_NAMES[n]}
            if self._crate_only(crate, names):
                allowed |= {n for n, (c, _) in TYPE_ALIASES.items() if c == crate}
        return {n: _ALIAS_NAMES[n] for n in sorted(allowed)}

    def _crate_only(self, crate: str, names: set[str]) -> bool:
        if self._item_macros:  # a macro invoked among the items may define any name
            return False
        heads = (f"use {crate}::", f"use ::{crate}::")
        uses_crate = False
        for module in self._modules.values():
            for bound, items in module.bindings.items():
                for item in items:
                    text = item.canon_override or ""
                    from_crate = item.kind == "use" and text.startswith(heads)
                    uses_crate = uses_crate or (from_crate and (bound == "*" or bound in names))
                    if bound == "*" and not from_crate and not (module is not self.top and text == "use super::*"):
                        return False
                    if bound in names and not (from_crate and " as " not in text and text.endswith(f"::{bound}")):
                        return False  # another crate's, or a renaming (``use pyo3::types::PyDict as PyObject``)
        stack = [self.root]
        while stack:  # a generic parameter of the same name shadows it
            current = stack.pop()
            if current.type == "type_identifier" and _text(current) in names and current.parent is not None \
                    and current.parent.type in _GENERIC_PARAMETERS:
                return False
            stack.extend(current.children)
        return uses_crate

    def _header_text(self, node: Any) -> str:
        """An impl or trait without its body, as canonical text (the header's identity)."""
        body = node.child_by_field_name("body")
        parts = [self.canon(c) for c in node.children if c.type not in _COMMENTS and (body is None or _key(c) != _key(body))]
        return f"{node.type}(" + ",".join(parts) + ")"

    def _count(self, node: Any) -> int:
        count, stack = 0, [node]
        while stack:
            current = stack.pop()
            if current.type in _COMMENTS:
                continue
            if current.is_named:
                count += 1
            stack.extend(current.children)
        return count

    def rows(self) -> list[Symbol]:
        """Every symbol, hashed (see :mod:`cvlib.notes.anchors`)."""
        out = []
        self._literal = True  # a symbol's own code is hashed as written (both gates compare it)
        try:
            for s in self.symbols:
                start = s.attrs[0] if s.attrs else s.node
                raw = self.data[start.start_byte : s.node.end_byte].decode("utf-8")
                lines = s.node.end_point[0] - start.start_point[0] + 1
                out.append(Symbol(self.path, s.qualname, s.kind, sha256(raw), sha256(self._code(s.node, s.attrs, True)),
                                  lines, self._count(s.node) + sum(self._count(a) for a in s.attrs)))
        finally:
            self._literal = False
        return out

    # -- dependencies ------------------------------------------------------------------------

    def _lookup(self, module: _Module | None, name: str) -> tuple[str, str, str] | None:
        current = module
        while current is not None:
            if name in current.bindings:
                return ("m", current.prefix, name)
            current = current.parent
        return None

    def _reads(self, node: Any, module: _Module, owner: str | None) -> set[tuple[str, str, str]]:
        """Items of the file a subtree names (see the module docstring)."""
        out: set[tuple[str, str, str]] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            kind = current.type
            if kind in _COMMENTS:
                continue
            if kind == "type_identifier" and _text(current) in self._aliases and _type_position(current):
                for name in self._aliases[_text(current)]:  # what the alias stands for, as if written out
                    out.add(self._lookup(module, name) or ("u", "", name))
                continue
            if kind in ("identifier", "type_identifier"):
                name = _text(current)
                found = self._lookup(module, name)
                if found is not None:
                    out.add(found)
                elif name != "Self" and (kind == "type_identifier" or _is_called(current)):
                    out.add(("u", "", name))
                continue
            if kind in ("scoped_identifier", "scoped_type_identifier"):
                path = current.child_by_field_name("path")
                name_node = current.child_by_field_name("name")
                if path is not None and name_node is not None and path.type in ("identifier", "type_identifier", "self"):
                    head = _text(path)
                    if head == "Self" and owner:
                        out.add(("t", owner, _text(name_node)))
                    elif self._lookup(module, head) is not None:
                        out.add(("t", head, _text(name_node)))
            if kind == "macro_invocation":
                macro = current.child_by_field_name("macro")
                if macro is not None and macro.type == "identifier":
                    name = _text(macro) + "!"
                    out.add(self._lookup(module, name) or ("u", "", name))
            if kind == "call_expression" and owner:
                fn = current.child_by_field_name("function")
                if fn is not None and fn.type == "field_expression":
                    value = fn.child_by_field_name("value")
                    fld = fn.child_by_field_name("field")
                    if value is not None and value.type == "self" and fld is not None:
                        out.add(("t", owner, _text(fld)))
            stack.extend(current.children)
        if "*" in module.bindings:
            out.add(("m", module.prefix, "*"))
        return out

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

    # -- the precise rule: what a method reads of its own type ---------------------------------

    def _type_module(self, module: _Module, owner: str) -> _Module | None:
        """The module whose binding of ``owner`` a member of ``module`` sees (None: not in this file)."""
        found = self._lookup(module, owner)
        if found is None:
            return None
        return self._modules.get(found[1])

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


#: Why the precise rule counts a method's whole type definition, as the wide rule does (:meth:`RustFile.fallback_reason`).
FALLBACK_REASONS: tuple[str, ...] = (
    "attribute macro on the type", "trait default method", "self used whole", "self taken by value",
    "method on self not in the file", "field not declared in the file", "self in a macro's tokens", "own type named",
)

#: Attributes that cannot rewrite the fields of their item (the compiler's own, tool attributes, and pyo3's
#: ``pyclass``, an attribute macro documented to add trait impls and leave the fields as written).
_INERT_ATTRIBUTES = frozenset({
    "derive", "repr", "allow", "warn", "deny", "forbid", "expect", "cfg", "cfg_attr", "doc", "non_exhaustive",
    "must_use", "deprecated", "automatically_derived", "rustfmt", "clippy", "pyclass",
})

#: Type aliases of crates the Rust files bind, each name with its crate and what the alias stands for. ``PyObject`` is
#: declared ``pub type PyObject = Py<PyAny>;`` in pyo3's ``instance.rs`` (deprecated since 0.26) in the pyo3
#: releases the tables' sources pin (0.21.2 to 0.30.1, by their ``Cargo.lock``) that still have it; a file
#: naming it does not build against one that does not. Applied only where
#: ``RustFile._bound_aliases`` shows the name is the crate's.
TYPE_ALIASES: dict[str, tuple[str, str]] = {
    "PyObject": ("pyo3", "Py<PyAny>"),
}

#: Attributes that cannot change what the compiled code does, left out of dependency records (lint levels
#: ``allow``, ``warn``, ``deny``, ``forbid``, ``expect``, tool attributes of clippy and rustfmt, and the
#: optimisation hints ``inline`` and ``cold``). Not among them: ``cfg``/``cfg_attr`` (which code exists),
#: ``derive``, ``repr``, pyo3's attributes, ``must_use``/``deprecated`` and ``doc`` (pyo3 turns doc text
#: into ``__doc__``), since each can change the program or what Python sees of it.
INERT_SPELLINGS: frozenset[str] = frozenset({"allow", "warn", "deny", "forbid", "expect", "inline", "cold"})

_INERT_TOOLS = frozenset({"clippy", "rustfmt"})

_GENERIC_PARAMETERS = ("type_parameters", "constrained_type_parameter", "optional_type_parameter", "type_parameter")


def _alias_names(expansion: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", expansion)))


_ALIAS_NAMES: dict[str, tuple[str, ...]] = {name: _alias_names(exp) for name, (_, exp) in TYPE_ALIASES.items()}


@cache
def _alias_text(name: str) -> str:
    """The canonical text of what an alias of :data:`TYPE_ALIASES` stands for, as a type written in its place."""
    source = f"type _Alias = {TYPE_ALIASES[name][1]};".encode()
    tree = _parser().parse(source)
    node = tree.root_node.named_children[0].child_by_field_name("type")

    def walk(n: Any) -> str:
        if n.child_count == 0:
            return f"{n.type}:{_text(n)}" if n.is_named else repr(n.type)
        return f"{n.type}(" + ",".join(walk(c) for c in n.children) + ")"

    return walk(node)


_BYTE_ESCAPES = {"n": 10, "r": 13, "t": 9, "\\": 92, "0": 0, "'": 39, '"': 34}


def _unescape_bytes(body: str) -> bytes | None:
    """The bytes a byte literal's body stands for (``\\n``, ``\\x41``, ...); None for anything else."""
    out, i = bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            if ord(ch) > 127 or ch in "\r":
                return None
            out.append(ord(ch))
            i += 1
            continue
        nxt = body[i + 1: i + 2]
        if nxt in _BYTE_ESCAPES:
            out.append(_BYTE_ESCAPES[nxt])
            i += 2
        elif nxt == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", body[i + 2: i + 4]):
            out.append(int(body[i + 2: i + 4], 16))
            i += 4
        else:
            return None
    return bytes(out)


def _byte_array(node: Any) -> bytes | None:
    """The bytes of ``[b'a', b'b']`` (every element a byte literal) or ``*b"ab"``; None for anything else."""
    if node.type == "array_expression":
        named = [c for c in node.named_children if c.type not in _COMMENTS]
        if not named or any(c.type != "char_literal" for c in named):
            return None
        out = bytearray()
        for c in named:
            text = _text(c)
            if not (text.startswith("b'") and text.endswith("'")):
                return None
            value = _unescape_bytes(text[2:-1])
            if value is None or len(value) != 1:
                return None
            out += value
        return bytes(out)
    operators = [c for c in node.children if not c.is_named]
    operands = [c for c in node.named_children if c.type not in _COMMENTS]
    if len(operators) != 1 or operators[0].type != "*" or len(operands) != 1 or operands[0].type != "string_literal":
        return None
    text = _text(operands[0])
    if not (text.startswith('b"') and text.endswith('"')):
        return None
    return _unescape_bytes(text[2:-1])


def _anonymous_lifetime(node: Any) -> bool:
    return node.type == "lifetime" and _squeeze(_text(node)) == "'_"


def _only_anonymous_lifetimes(args: Any) -> bool:
    named = [c for c in args.named_children if c.type not in _COMMENTS]
    return bool(named) and all(_anonymous_lifetime(c) for c in named)


def _sole_inner_block(block: Any) -> Any:
    """The block (``{ .. }`` or ``unsafe { .. }``) that is a block's whole content, if it is; else None."""
    named = [c for c in block.named_children if c.type not in _COMMENTS]
    if len(named) != 1 or named[0].type != "expression_statement" or named[0].child_count != 1:
        return None
    inner = named[0].named_children[0]
    if inner.type == "unsafe_block":
        found = [c for c in inner.named_children if c.type == "block"]
        return found[0] if len(found) == 1 else None
    return inner if inner.type == "block" else None


def _statement_follows(children: Any, index: int) -> bool:
    """Whether a statement or an expression other than another ``;`` follows ``children[index]`` in its block."""
    return any(c.is_named and c.type not in _COMMENTS and c.type != "empty_statement" for c in children[index + 1:])


def _type_position(node: Any) -> bool:
    """Whether a ``type_identifier`` is a type used here, not a name being defined or a path segment."""
    parent = node.parent
    if parent is None or parent.type in ("scoped_type_identifier", "scoped_identifier") + _GENERIC_PARAMETERS:
        return False
    name = parent.child_by_field_name("name")
    return name is None or _key(name) != _key(node)


def _inert_attribute(item: Any) -> bool:
    """Whether an attribute item only sets lint levels or optimisation hints (:data:`INERT_SPELLINGS`)."""
    attrs = [a for a in item.named_children if a.type == "attribute"]
    if len(attrs) != 1 or not attrs[0].named_children:
        return False
    head = _squeeze(_text(attrs[0].named_children[0])).split("::")
    if len(head) == 1:
        return head[0] in INERT_SPELLINGS
    return head[0] in _INERT_TOOLS

#: Standard macros whose arguments are expressions, so ``self.x`` in their tokens is a field read and ``self.m(..)`` a call.
_EXPRESSION_MACROS = frozenset({
    "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "format", "format_args",
    "print", "println", "eprint", "eprintln", "write", "writeln", "panic", "unreachable", "todo", "unimplemented",
    "vec", "matches", "dbg",
})

#: A format string's argument captured by name (``{name}``, ``{name:?}``).
_INLINE_ARGUMENT = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*[:}]")

#: Parameter types through which a parameter is a value of the method's own type (``&Self``, pyo3's ``PyRef<Self>``).
_SELF_WRAPPERS = frozenset({"PyRef", "PyRefMut"})


def _attribute_macros(attrs: tuple[Any, ...]) -> list[str]:
    """Names of the attributes in ``attrs`` that may be macros rewriting their item."""
    out = []
    for item in attrs:
        for attr in item.named_children:
            if attr.type != "attribute" or not attr.named_children:
                continue
            head = _squeeze(_text(attr.named_children[0])).split("::")
            if head[0] not in _INERT_ATTRIBUTES and head[-1] not in _INERT_ATTRIBUTES:
                out.append("::".join(head))
    return out


def _type_arguments(node: Any) -> list[Any]:
    """The generic arguments of an implemented type (``Foo<Bar>``: ``<Bar>``; ``&Foo``: those of ``Foo``)."""
    if node.type == "generic_type":
        args = node.child_by_field_name("type_arguments")
        return [args] if args is not None else []
    if node.type == "reference_type":
        inner = node.child_by_field_name("type")
        return _type_arguments(inner) if inner is not None else []
    if node.type in ("type_identifier", "scoped_type_identifier"):
        return []
    return [node]


def _struct_fields(node: Any) -> list[tuple[str, Any]] | None:
    """(name, declaration) of a struct's fields (``0``, ``1`` for a tuple struct); None if ``node`` is no struct."""
    if node.type != "struct_item":
        return None
    body = node.child_by_field_name("body")
    if body is None:
        return []
    if body.type == "field_declaration_list":
        out = []
        for child in body.named_children:
            name = child.child_by_field_name("name") if child.type == "field_declaration" else None
            if name is not None:
                out.append((_text(name), child))
        return out
    return [(str(i), t) for i, t in enumerate(body.children_by_field_name("type"))]


def _enum_variants(node: Any) -> list[Any]:
    body = node.child_by_field_name("body")
    return [v for v in (body.named_children if body is not None else [])
            if v.type == "enum_variant" and v.child_by_field_name("name") is not None]


def _field_declaration(node: Any, field: str) -> Any:
    for name, decl in _struct_fields(node) or []:
        if name == field:
            return decl
    return None


def _preceding_attributes(node: Any) -> list[Any]:
    out = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type in _COMMENTS | {"attribute_item", "visibility_modifier"}:
        if prev.type == "attribute_item":
            out.append(prev)
        prev = prev.prev_named_sibling
    return list(reversed(out))


def _names_self(node: Any) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "type_identifier") and _text(current) == "Self":
            return True
        stack.extend(current.children)
    return False


_PATTERN_PARENTS = ("let_declaration", "closure_parameters", "for_expression", "match_pattern", "parameter",
                    "tuple_pattern", "struct_pattern", "tuple_struct_pattern", "field_pattern", "ref_pattern",
                    "mut_pattern", "reference_pattern", "captured_pattern", "or_pattern", "slice_pattern")


class _MemberWalk:
    """One method's code under the precise rule: ``self.field`` reads, ``self.method()`` calls, and what defeats them."""

    def __init__(self, file: RustFile, member: _Member, owner: str, items: list[_Item]):
        self.file, self.member, self.owner, self.module = file, member, owner, member.module
        fields: set[str] | None = set()
        for item in items:
            found = _struct_fields(item.node)
            if found is None:
                fields = None
                break
            fields |= {name for name, _ in found}  # type: ignore[operator]
        self.fields = fields if items else None
        self.methods = {x.name for x in file.members.get(owner, [])}
        self.variants = {_text(v.child_by_field_name("name")) for item in items if item.node.type == "enum_item"
                         for v in _enum_variants(item.node)}
        self.reads: set[tuple[str, str, str]] = set()
        self.reasons: list[str] = []
        self.names: set[str] = {"self"}
        self.params: set[tuple[int, int, str]] = set()

    def run(self) -> None:
        fn = self.member.node
        params = fn.child_by_field_name("parameters")
        body = fn.child_by_field_name("body")
        for param in params.named_children if params is not None else []:
            if param.type != "parameter":
                continue
            pattern, kind = param.child_by_field_name("pattern"), param.child_by_field_name("type")
            if pattern is not None and pattern.type == "identifier" and kind is not None and _self_typed(kind):
                name = _text(pattern)
                if body is None or not _rebinds(body, name):
                    self.names.add(name)
                    self.params.add(_key(param))
        self.visit(fn)
        if "*" in self.module.bindings:
            self.reads.add(("m", self.module.prefix, "*"))

    def _selfish(self, node: Any) -> bool:
        return node is not None and (node.type == "self" or (node.type == "identifier" and _text(node) in self.names))

    def _field(self, name: str) -> None:
        if self.fields is not None and name in self.fields:
            self.reads.add(("f", self.owner, name))
        else:
            self.reasons.append("field not declared in the file")
            self._elsewhere(name)

    def _method(self, name: str) -> None:
        if name in self.methods:
            self.reads.add(("t", self.owner, name))
            return
        self.reasons.append("method on self not in the file")
        self._elsewhere(name)

    def _own_item(self, name: str) -> None:
        if name in self.methods:
            self.reads.add(("t", self.owner, name))
        else:
            self.reasons.append("own type named")
            if name not in self.variants:
                self._elsewhere(name)

    def _elsewhere(self, name: str) -> None:
        """An item of the own type the file's impls do not define: a trait default of the file, or macro-made."""
        for trait, members in self.file.members.items():
            if any(m.name == name and m.header_node.type == "trait_item" for m in members):
                self.reads.add(("t", trait, name))
        if self.file._item_macros:
            self.reads.add(("g", "", ""))

    def _impl_defines(self, name: str) -> bool:
        """Whether the method sits in a trait impl whose own body defines ``name``."""
        header = self.member.header_node
        if header.type != "impl_item" or header.child_by_field_name("trait") is None:
            return False
        return any(m.name == name and _key(m.header_node) == _key(header) for m in self.file.members.get(self.owner, []))

    def _is_own(self, node: Any) -> bool:
        text = _text(node)
        if text == "Self":
            return True
        return text == self.owner and self.file._type_module(self.module, text) is not None

    def visit(self, node: Any) -> None:
        kind = node.type
        if kind in _COMMENTS:
            return
        if kind == "self_parameter":
            if not any(c.type == "&" for c in node.children):
                self.reasons.append("self taken by value")
                self.reads.add(("t", self.owner, "drop"))
            return
        if kind == "parameter" and _key(node) in self.params:
            return
        if kind == "field_expression" and self._selfish(node.child_by_field_name("value")):
            fld = node.child_by_field_name("field")
            parent = node.parent
            called = parent is not None and parent.type == "call_expression" and \
                _key(parent.child_by_field_name("function")) == _key(node)
            if fld is not None:
                (self._method if called else self._field)(_text(fld))
            return
        if kind == "self" or (kind == "identifier" and _text(node) in self.names):
            self.reasons.append("self used whole")
            return
        if kind in ("scoped_identifier", "scoped_type_identifier"):
            path, name = node.child_by_field_name("path"), node.child_by_field_name("name")
            if path is not None and name is not None:
                if kind == "scoped_type_identifier" and _text(path) == "Self" and self._impl_defines(_text(name)):
                    # a type ``Self::Error`` in a trait impl is the impl's own (its trait's item, never another's)
                    self.reads.add(("tl", self.member.label, _text(name)))
                    return
                if path.type in ("identifier", "type_identifier") and self._is_own(path):
                    self._own_item(_text(name))
                    return
                if path.type == "bracketed_type" and _names_own(path, self):
                    self.reads.add(("t", self.owner, _text(name)))
                    self.reasons.append("own type named")
                elif path.type in ("identifier", "type_identifier", "self") \
                        and self.file._lookup(self.module, _text(path)) is not None:
                    self.reads.add(("t", _text(path), _text(name)))
        if kind == "macro_invocation":
            macro = node.child_by_field_name("macro")
            if macro is not None and macro.type == "identifier":
                name = _text(macro)
                self.reads.add(self.file._lookup(self.module, name + "!") or ("u", "", name + "!"))
                local = self.file._lookup(self.module, name + "!")
                if local is None:
                    expressions = name in _EXPRESSION_MACROS
                else:
                    found = self.file._modules[local[1]].bindings.get(local[2], [])
                    expressions = bool(found) and all(_takes_expressions(b.node) for b in found)
            elif macro is not None:  # a path: ``std::format!`` is the standard one, ``log::info!`` another crate's
                self.reads |= self.file._reads(macro, self.module, None)
                head, _, name = _squeeze(_text(macro)).rpartition("::")
                expressions = head in ("std", "core", "alloc") and name in _EXPRESSION_MACROS
            else:
                expressions = False
            for child in node.named_children:
                if child.type == "token_tree":
                    self.tokens(child, expressions)
            return
        if kind in ("identifier", "type_identifier"):
            if self._is_own(node):
                self.reasons.append("own type named")
            if _text(node) != "Self":
                self.reads |= self.file._reads(node, self.module, None)
            return
        for child in node.children:
            self.visit(child)

    def _captures_self(self, text: str) -> bool:
        """Whether a format string captures ``self`` (or a ``&Self`` parameter) by name: ``"{self:?}"``."""
        for match in _INLINE_ARGUMENT.finditer(text.replace("{{", "")):
            if match.group(1) in self.names:
                return True
        return False

    def tokens(self, tree: Any, expressions: bool) -> None:
        """A macro's token tree: ``self . x`` and ``self . m (..)`` where the macro's arguments are expressions."""
        children = [c for c in tree.children if c.type not in _COMMENTS]
        i = 0
        while i < len(children):
            c = children[i]
            if c.type == "token_tree":
                self.tokens(c, expressions)
            elif c.type in ("string_literal", "raw_string_literal") and self._captures_self(_text(c)):
                self.reasons.append("self used whole")  # format!("{self:?}") formats the value whole
            elif self._selfish(c):
                if not expressions:
                    self.reasons.append("self in a macro's tokens")
                elif i + 2 < len(children) and children[i + 1].type == "." \
                        and children[i + 2].type in ("identifier", "integer_literal"):
                    name = _text(children[i + 2])
                    after = children[i + 3] if i + 3 < len(children) else None
                    if after is not None and after.type == "token_tree" and _text(after).startswith("("):
                        self._method(name)
                    else:
                        self._field(name)
                    i += 3
                    continue
                else:
                    self.reasons.append("self used whole")
            elif c.type == "identifier" and self._is_own(c):
                if i + 2 < len(children) and children[i + 1].type == "::" and children[i + 2].type == "identifier":
                    self._own_item(_text(children[i + 2]))
                    i += 3
                    continue
                self.reasons.append("own type named")
                if _text(c) != "Self":
                    self.reads |= self.file._reads(c, self.module, None)
            elif c.type in ("identifier", "type_identifier"):
                self.reads |= self.file._reads(c, self.module, None)
            i += 1


#: Fragments a ``macro_rules!`` matcher parses as a whole expression or type (``self.x`` stays a field read).
_EXPRESSION_FRAGMENTS = frozenset({"expr", "literal", "ty"})


def _takes_expressions(node: Any) -> bool:
    """Whether every metavariable of a ``macro_rules!`` definition is an expression, literal or type fragment."""
    fragments, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.type == "fragment_specifier":
            fragments.append(_text(current))
        stack.extend(current.children)
    return bool(fragments) and all(f in _EXPRESSION_FRAGMENTS for f in fragments)


def _self_typed(node: Any) -> bool:
    """``&Self``, ``&mut Self``, ``&'a Self``, ``PyRef<'_, Self>``: a borrowed value of the own type."""
    if node.type == "reference_type":
        inner = node.child_by_field_name("type")
        return inner is not None and inner.type == "type_identifier" and _text(inner) == "Self"
    if node.type == "generic_type":
        base, args = node.child_by_field_name("type"), node.child_by_field_name("type_arguments")
        if base is None or args is None or _text(base) not in _SELF_WRAPPERS:
            return False
        types = [a for a in args.named_children if a.type not in ("lifetime",) and a.type not in _COMMENTS]
        return len(types) == 1 and types[0].type == "type_identifier" and _text(types[0]) == "Self"
    return False


def _rebinds(body: Any, name: str) -> bool:
    """Whether a pattern inside ``body`` binds ``name`` again (then the name is not the parameter everywhere)."""
    stack = [body]
    while stack:
        current = stack.pop()
        if current.type == "identifier" and _text(current) == name and current.parent is not None \
                and current.parent.type in _PATTERN_PARENTS:
            parent = current.parent
            if parent.type != "let_declaration" or _key(parent.child_by_field_name("pattern")) == _key(current):
                return True
        stack.extend(current.children)
    return False


def _names_own(node: Any, walk: _MemberWalk) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "type_identifier") and walk._is_own(current):
            return True
        stack.extend(current.children)
    return False


def _base_type(node: Any) -> str:
    """``Foo`` for ``Foo``, ``Foo<T>``, ``crate::a::Foo``, ``&Foo``."""
    for fld in ("type", "name"):
        inner = node.child_by_field_name(fld)
        if inner is not None and node.type in ("generic_type", "scoped_type_identifier", "reference_type"):
            return _base_type(inner)
    return _squeeze(_text(node))


def _is_called(node: Any) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node


def _use_bindings(node: Any, prefix: str) -> list[tuple[str, str]]:
    """(bound name, full path) for every name a ``use`` tree binds; ``*`` for a glob."""
    kind = node.type
    if kind in ("identifier", "crate", "self", "super"):
        text = _text(node)
        if text == "self" and prefix:
            return [(prefix.rstrip(":").split("::")[-1], prefix.rstrip(":"))]
        return [(text, prefix + text)]
    if kind == "scoped_identifier":
        name = node.child_by_field_name("name")
        return [(_text(name) if name is not None else _squeeze(_text(node)), prefix + _squeeze(_text(node)))]
    if kind == "use_as_clause":
        path = node.child_by_field_name("path")
        alias = node.child_by_field_name("alias")
        return [(_text(alias), prefix + _squeeze(_text(path)) + " as " + _text(alias))]
    if kind == "use_wildcard":
        return [("*", prefix + _squeeze(_text(node)))]
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        lst = node.child_by_field_name("list")
        inner = prefix + (_squeeze(_text(path)) + "::" if path is not None else "")
        return _use_bindings(lst, inner) if lst is not None else []
    if kind == "use_list":
        return [b for child in node.named_children if child.type not in _COMMENTS for b in _use_bindings(child, prefix)]
    return []


#: Rust in the gate's registry of languages (:mod:`cvlib.notes.languages`): ``.rs`` files, read with tree-sitter
#: (loaded on the first file); a ``target`` folder beside ``Cargo.toml`` is build output and is not read.
LANGUAGE: Language = register_language(
    Language("Rust", (".rs",), RustFile, FALLBACK_REASONS, build_folders=(("Cargo.toml", "target"),)))
