"""The precise Rust rule: a method is withheld when a field it reads changes, not when an unrelated field does.

Each row anchors a note on one function or method of a small Rust file,
applies one edit and checks the status under the gate's (precise) rule, and
what the wide rule (a method counts its type's whole definition) says of the
same edit. The fallback rows check that code the analysis cannot follow
(``self`` used as a whole value, a method on ``self`` the file does not
define, an undeclared field, an attribute macro on the type, a trait's
default method, the own type named) counts the type whole and says why.
"""

from __future__ import annotations

import pytest

from cvlib.notes import AnchorStatus, anchor, locate

pytest.importorskip("tree_sitter_rust")

from cvlib.notes.rust import FALLBACK_REASONS, RustFile  # noqa: E402

SOURCE = '''use std::collections::HashMap;
use std::fmt;

const LIMIT: usize = 8;

macro_rules! twice {
    ($e:expr) => {
        $e * 2
    };
}

#[derive(Debug, Clone)]
pub struct Window<T> {
    buf: Vec<T>,
    seen: HashMap<usize, usize>,
    /// Slots kept free.
    cap: u8,
}

impl<T: Clone> Window<T> {
    pub fn new() -> Self {
        Self { buf: Vec::new(), seen: HashMap::new(), cap: 4 }
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn room(&self) -> usize {
        twice!(self.cap as usize) - self.len()
    }

    pub fn record(&mut self, k: usize) {
        *self.seen.entry(k).or_insert(0) += 1;
    }

    pub fn full(&self) -> bool {
        self.len() >= LIMIT
    }

    pub fn same(&self, other: &Self) -> bool {
        self.buf.len() == other.buf.len()
    }

    pub fn snapshot(&self) -> Window<T> {
        self.clone()
    }

    pub fn describe(&self) -> String {
        format!("{:?} {}", self, self.cap)
    }

    pub fn reset(&mut self) {
        *self = Self::new();
    }
}

impl<T> fmt::Display for Window<T> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.cap)
    }
}
'''

F, C, D = AnchorStatus.FRESH, AnchorStatus.CHANGED, AnchorStatus.DEPENDENCY_CHANGED


def _sub(old, new):
    def edit(text):
        assert old in text, old
        return text.replace(old, new, 1)

    return edit


CAP = _sub("cap: u8,", "cap: u16,")
NEW_FIELD = _sub("    cap: u8,\n", "    cap: u8,\n    extra: Vec<u8>,\n")
HASHBROWN = _sub("use std::collections::HashMap;", "use hashbrown::HashMap;")

#: (case, qualname, edit, precise status, wide status)
CASES = [
    # an edit that changes what the method relies on stays withheld
    ("type of a field it reads", "Window::len", _sub("buf: Vec<T>,", "buf: std::collections::VecDeque<T>,"), D, D),
    ("type of a field it reads, through a method it calls", "Window::full",
     _sub("buf: Vec<T>,", "buf: std::collections::VecDeque<T>,"), D, D),
    ("type of a field read in a macro's arguments", "Window::room", CAP, D, D),
    ("use line behind a field it reads", "Window::record", HASHBROWN, D, D),
    ("field of another value of its type", "Window::same",
     _sub("buf: Vec<T>,", "buf: std::collections::VecDeque<T>,"), D, D),
    ("field read by a trait impl's method", "<Window as Display>::fmt", CAP, D, D),
    ("impl header generics", "Window::len", _sub("impl<T: Clone> Window<T>", "impl<T: Clone + Default> Window<T>"), D, D),
    ("derive list of its type", "Window::len", _sub("#[derive(Debug, Clone)]", "#[derive(Debug, Clone, Default)]"), D, D),
    ("generics of its type", "Window::len", _sub("pub struct Window<T> {", "pub struct Window<T: Send> {"), D, D),
    ("attribute of a field it reads", "Window::len", _sub("    buf: Vec<T>,", "    #[cfg(feature = \"big\")]\n    buf: Vec<T>,"), D, D),
    ("pyo3 attribute of a field it reads", "Window::len", _sub("    buf: Vec<T>,", "    #[pyo3(get)]\n    buf: Vec<T>,"), D, D),
    ("lint level of a field it reads", "Window::len", _sub("    buf: Vec<T>,", "    #[allow(dead_code)]\n    buf: Vec<T>,"), F, F),
    ("macro it invokes", "Window::room", _sub("$e * 2", "$e * 3"), D, D),
    ("const it names, through a method it calls", "Window::full", _sub("LIMIT: usize = 8", "LIMIT: usize = 9"), D, D),
    ("method it calls on self", "Window::full", _sub("self.buf.len()\n    }", "self.buf.len() + 1\n    }"), D, D),
    ("a field added: the constructor names its type", "Window::new", NEW_FIELD, D, D),
    ("a field added: derived Clone runs over every field", "Window::snapshot", NEW_FIELD, D, D),
    ("a field added: derived Debug formats every field", "Window::describe", NEW_FIELD, D, D),
    ("a field retyped: assigning a new value drops the old one whole", "Window::reset", CAP, D, D),
    ("own code", "Window::len", _sub("self.buf.len()\n", "self.buf.len() * 1\n"), C, C),
    # an unrelated edit to another field of the same type no longer withholds
    ("type of a field it does not read", "Window::len", CAP, F, D),
    ("use line behind a field it does not read", "Window::len", HASHBROWN, F, D),
    ("a field added that it does not read", "Window::len", NEW_FIELD, F, D),
    ("a field added: methods reading named fields", "Window::room", NEW_FIELD, F, D),
    ("doc comment of a field", "<Window as Display>::fmt", _sub("/// Slots kept free.", "/// Free slots."), F, F),
    ("another method's code", "Window::len", _sub("+= 1;", "+= 2;"), F, F),
]


@pytest.mark.parametrize(("case", "qualname", "edit", "precise", "wide"), CASES, ids=[c[0] for c in CASES])
def test_precise_rust_rule(case, qualname, edit, precise, wide):
    edited = edit(SOURCE)
    where = locate(anchor({"src/lib.rs": SOURCE}, "src/lib.rs", qualname), {"src/lib.rs": edited})
    assert where.status is precise, (case, where)
    if precise is D:
        assert where.changed
    before, after = RustFile(SOURCE, "src/lib.rs"), RustFile(edited, "src/lib.rs")
    if wide is not C:
        wide_changed = before.dependencies(qualname, "wide") != after.dependencies(qualname, "wide")
        assert wide_changed is (wide is D), case


@pytest.mark.parametrize(("case", "qualname", "edit", "precise", "wide"), CASES, ids=[c[0] for c in CASES])
def test_the_precise_rust_rule_withholds_only_where_the_wide_one_does_or_a_read_changed(case, qualname, edit, precise, wide):
    before, after = RustFile(SOURCE, "src/lib.rs"), RustFile(edit(SOURCE), "src/lib.rs")
    precise_changed = before.dependencies(qualname) != after.dependencies(qualname)
    wide_changed = before.dependencies(qualname, "wide") != after.dependencies(qualname, "wide")
    if precise_changed:
        assert wide_changed or precise is D
    if wide is D:
        assert precise_changed or precise is F


def test_the_changed_field_is_named():
    where = locate(anchor({"src/lib.rs": SOURCE}, "src/lib.rs", "Window::room"), {"src/lib.rs": CAP(SOURCE)})
    assert "Window.cap" in where.changed
    assert "Window" not in where.changed  # the type's whole definition is not a dependency of room


def _window(method: str, struct_attrs: str = "#[derive(Debug)]") -> str:
    return (f"{struct_attrs}\nstruct W {{\n    a: u8,\n    b: u16,\n}}\n\n"
            f"impl W {{\n    fn known(&self) -> u8 {{\n        self.a\n    }}\n\n{method}\n}}\n")


FALLBACKS = [
    ("self used whole", _window("    fn m(&self) -> bool {\n        matches!(self, W { .. })\n    }")),
    ("self used whole", _window("    fn m(&self) -> u8 {\n        let w = self;\n        w.a\n    }")),
    ("self taken by value", _window("    fn m(self) -> u8 {\n        self.a\n    }")),
    ("method on self not in the file", _window("    fn m(&self) -> String {\n        self.to_string()\n    }")),
    ("field not declared in the file", _window("    fn m(&self) -> u8 {\n        self.c\n    }")),
    ("self in a macro's tokens", _window("    fn m(&self) -> u8 {\n        my_macro!(self.a)\n    }")),
    ("own type named", _window("    fn m(&self) -> Self {\n        W { a: self.a, b: 0 }\n    }")),
    ("own type named", _window("    fn m(&self) -> u8 {\n        Self::missing()\n    }")),
    ("attribute macro on the type", _window("    fn m(&self) -> u8 {\n        self.a\n    }", "#[my_crate::rewrite]")),
]


@pytest.mark.parametrize(("reason", "source"), FALLBACKS, ids=[f"{r}-{i}" for i, (r, _) in enumerate(FALLBACKS)])
def test_each_fallback_trigger_counts_the_type_whole(reason, source):
    parsed = RustFile(source, "src/lib.rs")
    assert parsed.fallback_reason("W::m") == reason
    assert reason in FALLBACK_REASONS
    # a field the method never reads still withholds it, as under the wide rule
    edited = source.replace("    b: u16,\n", "    b: u32,\n")
    assert locate(anchor({"src/lib.rs": source}, "src/lib.rs", "W::m"), {"src/lib.rs": edited}).status is D


def test_a_trait_default_method_counts_the_trait_whole():
    source = ("trait Size {\n    fn size(&self) -> usize {\n        self.len() * 2\n    }\n\n"
              "    fn len(&self) -> usize;\n}\n\nstruct S;\n\nimpl S {\n    fn n(&self) -> u8 {\n        1\n    }\n}\n")
    parsed = RustFile(source, "src/lib.rs")
    assert parsed.fallback_reason("Size::size") == "trait default method"
    assert parsed.dependencies("Size::size") == parsed.dependencies("Size::size", "wide")


def test_a_plain_method_does_not_fall_back():
    parsed = RustFile(SOURCE, "src/lib.rs")
    for qualname in ("Window::len", "Window::room", "Window::full", "Window::same", "<Window as Display>::fmt"):
        assert parsed.fallback_reason(qualname) == "", qualname
    assert parsed.fallback_reason("Window::snapshot") == "method on self not in the file"
    assert parsed.fallback_reason("Window::describe") == "self used whole"
    assert parsed.fallback_reason("Window::new") == "own type named"


def test_a_method_on_self_reaches_the_same_files_trait_default():
    source = ("trait Size {\n    fn doubled(&self) -> usize {\n        7\n    }\n}\n\nstruct S {\n    a: u8,\n}\n\n"
              "impl Size for S {}\n\nimpl S {\n    fn n(&self) -> usize {\n        self.doubled()\n    }\n}\n")
    stored = anchor({"src/lib.rs": source}, "src/lib.rs", "S::n")
    where = locate(stored, {"src/lib.rs": source.replace("        7\n", "        8\n")})
    assert where.status is D and "Size::doubled" in where.changed


def test_an_unknown_rule_is_a_one_line_error():
    from cvlib.notes import NotesError

    with pytest.raises(NotesError, match="dependency rule must be 'precise' or 'wide', got 'loose'"):
        RustFile(SOURCE, "src/lib.rs").dependencies("Window::len", "loose")


def test_a_tuple_struct_field_is_read_by_position():
    source = "struct P(u8, u16);\n\nimpl P {\n    fn first(&self) -> u8 {\n        self.0\n    }\n}\n"
    stored = anchor({"src/lib.rs": source}, "src/lib.rs", "P::first")
    assert RustFile(source, "src/lib.rs").fallback_reason("P::first") == ""
    assert locate(stored, {"src/lib.rs": source.replace("u16)", "u32)")}).status is F
    assert locate(stored, {"src/lib.rs": source.replace("(u8,", "(i8,")}).status is D


def test_a_method_the_file_does_not_define_reaches_the_files_item_macros():
    source = ("macro_rules! getter {\n    ($n:ident) => {\n        fn $n(&self) -> u8 {\n            1\n        }\n    };\n}\n\n"
              "struct S {\n    a: u8,\n}\n\nimpl S {\n    getter!(made);\n\n    fn n(&self) -> u8 {\n        self.made()\n    }\n}\n")
    stored = anchor({"src/lib.rs": source}, "src/lib.rs", "S::n")
    where = locate(stored, {"src/lib.rs": source.replace("            1\n", "            2\n")})
    assert where.status is D and "getter!" in where.changed
    where = locate(stored, {"src/lib.rs": source.replace("getter!(made);", "getter!(made);\n    getter!(other);")})
    assert where.status is D and "macro invocations among the items" in where.changed


def test_an_enum_variant_is_its_own_types_definition():
    source = ("enum E {\n    A,\n    B,\n}\n\nimpl E {\n    fn is_a(&self) -> bool {\n        matches!(self, Self::A)\n    }\n}\n")
    parsed = RustFile(source, "src/lib.rs")
    assert parsed.fallback_reason("E::is_a") == "self used whole"
    stored = anchor({"src/lib.rs": source}, "src/lib.rs", "E::is_a")
    assert locate(stored, {"src/lib.rs": source.replace("    B,\n", "    B,\n    C,\n")}).status is D


@pytest.mark.parametrize("call", ['format!("{self:?}")', 'format!("{self}")', 'log::info!("{ self:?}")'])
def test_a_format_string_that_captures_self_counts_the_type_whole(call):
    source = _window(f"    fn m(&self) -> String {{\n        {call}\n    }}")
    assert RustFile(source, "src/lib.rs").fallback_reason("W::m") == "self used whole"
    edited = source.replace("    b: u16,\n", "    b: u32,\n")
    assert locate(anchor({"src/lib.rs": source}, "src/lib.rs", "W::m"), {"src/lib.rs": edited}).status is D


def test_an_escaped_brace_is_no_capture():
    source = _window('    fn m(&self) -> String {\n        format!("{{self}} {}", self.a)\n    }')
    assert RustFile(source, "src/lib.rs").fallback_reason("W::m") == ""


def test_a_rust_types_fields_and_header_are_class_dependencies():
    from cvlib.notes.gate import dependency_kind

    assert dependency_kind("Window.cap", "Window::room") == "class member"
    assert dependency_kind("Window (attributes, generics)", "Window::len") == "class header"
