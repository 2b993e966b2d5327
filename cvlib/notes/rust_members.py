"""Which fields and methods of its own type a Rust method reads, and when it must count the type whole.

:class:`_MemberWalk` walks one ``impl`` member's code for
:meth:`cvlib.notes.rust.RustFile.dependencies` under the precise rule: the
fields it reads on ``self`` (and on ``&Self`` parameters), the methods it calls
on ``self``, and the first of :data:`~cvlib.notes.rust_syntax.FALLBACK_REASONS`
its code meets.
"""

from __future__ import annotations

from typing import Any

from .rust_syntax import (
    _COMMENTS,
    _EXPRESSION_MACROS,
    _INLINE_ARGUMENT,
    _enum_variants,
    _Item,
    _key,
    _Member,
    _rebinds,
    _self_typed,
    _squeeze,
    _struct_fields,
    _takes_expressions,
    _text,
)
from .rust_table import RustItems


class _MemberWalk:
    """One method's code under the precise rule: ``self.field`` reads, ``self.method()`` calls, and what defeats them."""

    def __init__(self, file: RustItems, member: _Member, owner: str, items: list[_Item]):
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


def _names_own(node: Any, walk: _MemberWalk) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "type_identifier") and walk._is_own(current):
            return True
        stack.extend(current.children)
    return False
