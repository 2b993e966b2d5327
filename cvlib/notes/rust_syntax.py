"""Rust syntax as the notes gate reads it through tree-sitter: the parser, the records of items and members, and node predicates.

The pieces of :class:`cvlib.notes.rust.RustFile` share these: the parser
(loaded on the first ``.rs`` file), the records of an item, an inline module,
an ``impl`` member and a symbol, and questions asked of one node (is it in a
type position, a byte array, an inert attribute, a struct's fields), with the
constants of the rule: :data:`FALLBACK_REASONS`, :data:`TYPE_ALIASES`,
:data:`INERT_SPELLINGS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from .errors import LanguageUnavailable

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


#: Why the precise rule counts a method's whole type definition, as the wide rule does (:meth:`~cvlib.notes.rust.RustFile.fallback_reason`).
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
