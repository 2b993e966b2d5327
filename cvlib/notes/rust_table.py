"""A Rust file's items: parsed once with tree-sitter into symbols, modules, ``impl`` members and canonical text.

The first layer of :class:`cvlib.notes.rust.RustFile`: the walk over the
file's items (inline modules, ``impl`` and trait bodies, nested functions),
the symbols in source order with their raw and normalized hashes
(:meth:`RustItems.rows`), the canonical text of a node with the same
program's other spellings written one way (:meth:`RustItems.canon`), and which
of the file's bindings a name in a module means (``_lookup``, ``_reads``,
``_type_module``: the name resolution that :class:`cvlib.notes.rust.RustFile`
and the member walk of :mod:`cvlib.notes.rust_members` share).
"""

from __future__ import annotations

from typing import Any

from .errors import UnparsableSource
from .rust_syntax import (
    _ALIAS_NAMES,
    _COMMENTS,
    _CONST_ITEMS,
    _GENERIC_PARAMETERS,
    _TYPE_ITEMS,
    TYPE_ALIASES,
    _alias_text,
    _anonymous_lifetime,
    _base_type,
    _byte_array,
    _inert_attribute,
    _is_called,
    _Item,
    _key,
    _Member,
    _Module,
    _only_anonymous_lifetimes,
    _parser,
    _RSym,
    _sole_inner_block,
    _statement_follows,
    _text,
    _type_position,
    _use_bindings,
)
from .symbols import Symbol, sha256


class RustItems:
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
        #: Each label's distance from the symbol in the last ``dependencies`` call, 0 for its own binding.
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

    # Name resolution: which binding of this file a name in a module means. The dependency
    # fingerprint (cvlib.notes.rust) and the member walk (cvlib.notes.rust_members) both use it.

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

    def _type_module(self, module: _Module, owner: str) -> _Module | None:
        """The module whose binding of ``owner`` a member of ``module`` sees (None: not in this file)."""
        found = self._lookup(module, owner)
        if found is None:
            return None
        return self._modules.get(found[1])

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
