"""Two spellings of the same Rust program in a dependency: released; a different program: still withheld.

Each row anchors a note on a method that reads a field (or calls a function)
of a small pyo3-style file, applies one edit to that dependency only, and
checks the status under both rules. The edits that leave the program the same
are a known type alias written out (pyo3's ``PyObject`` for ``Py<PyAny>``)
and attributes that only set lint levels or optimisation hints; each has
twins where the name could be something else (a local item, another crate's
import or glob, a generic parameter) or the attribute changes which code
exists, and those stay withheld.
"""

from __future__ import annotations

import pytest

from cvlib.notes import AnchorStatus, anchor, locate

pytest.importorskip("tree_sitter_rust")

from cvlib.notes.rust import INERT_SPELLINGS, TYPE_ALIASES, RustFile  # noqa: E402

SOURCE = '''use pyo3::prelude::*;
use pyo3::types::PyDict;

fn helper(x: usize) -> usize {
    x + 1
}

#[pyclass(module = "demo")]
struct Holder {
    inner: Vec<PyObject>,
    count: usize,
}

#[pymethods]
impl Holder {
    fn size(&self) -> usize {
        helper(self.inner.len())
    }

    fn total(&self) -> usize {
        self.count
    }
}
'''

F, C, D = AnchorStatus.FRESH, AnchorStatus.CHANGED, AnchorStatus.DEPENDENCY_CHANGED


def _sub(*pairs):
    def edit(text):
        for old, new in pairs:
            assert old in text, old
            text = text.replace(old, new, 1)
        return text

    return edit


SPELLED_OUT = ("inner: Vec<PyObject>,", "inner: Vec<Py<PyAny>>,")

#: (case, qualname, edit, status under both rules)
CASES = [
    # the same program
    ("pyo3's alias written out", "Holder::size", _sub(SPELLED_OUT), F),
    ("pyo3's alias written out, path import", "Holder::size",
     _sub(("use pyo3::prelude::*;", "use pyo3::prelude::*;\nuse pyo3::PyObject;"), SPELLED_OUT), F),
    ("lint level on the function it calls", "Holder::size", _sub(("fn helper", "#[allow(dead_code)]\nfn helper")), F),
    ("clippy lint on the function it calls", "Holder::size",
     _sub(("fn helper", "#[allow(clippy::needless_pass_by_value)]\nfn helper")), F),
    ("inline hint on the function it calls", "Holder::size", _sub(("fn helper", "#[inline(always)]\nfn helper")), F),
    ("inner lint level in the function it calls", "Holder::size",
     _sub(("    x + 1\n", "    #![allow(unused)]\n    x + 1\n")), F),
    ("lint level on its impl", "Holder::size", _sub(("#[pymethods]\n", "#[pymethods]\n#[allow(deprecated)]\n")), F),
    ("lint level on the field it reads", "Holder::size",
     _sub(("    inner: Vec", "    #[expect(dead_code)]\n    inner: Vec")), F),
    # a different program, or a name that may mean something else
    ("another type in the field", "Holder::size", _sub(("inner: Vec<PyObject>,", "inner: Vec<Py<PyDict>>,")), D),
    ("the alias's target written differently", "Holder::size",
     _sub(("inner: Vec<PyObject>,", "inner: Vec<Bound<'static, PyAny>>,")), D),
    ("a local PyObject the field now names", "Holder::size", _sub(("fn helper", "struct PyObject;\n\nfn helper")), D),
    ("a local type alias of the name", "Holder::size",
     _sub(("fn helper", "type PyObject = Py<PyDict>;\n\nfn helper")), D),
    ("another crate's PyObject imported", "Holder::size",
     _sub(("use pyo3::types::PyDict;", "use pyo3::types::PyDict;\nuse other::PyObject;")), D),
    ("a pyo3 type renamed to the alias's name", "Holder::size",
     _sub(("use pyo3::types::PyDict;", "use pyo3::types::PyDict;\nuse pyo3::types::PyList as PyObject;")), D),
    ("a pyo3 type renamed to a name of the expansion", "Holder::size",
     _sub(("use pyo3::types::PyDict;", "use pyo3::types::PyDict;\nuse pyo3::types::PyList as PyAny;"), SPELLED_OUT), D),
    ("another crate's glob", "Holder::size",
     _sub(("use pyo3::types::PyDict;", "use pyo3::types::PyDict;\nuse other::*;")), D),
    ("another crate's glob beside the spelled-out field", "Holder::size",
     _sub(("use pyo3::types::PyDict;", "use pyo3::types::PyDict;\nuse other::*;"), SPELLED_OUT), D),
    # a local PyObject the field does not name: the field's type is the same program
    ("a local PyObject beside the spelled-out field", "Holder::size",
     _sub(("fn helper", "struct PyObject;\n\nfn helper"), SPELLED_OUT), F),
    ("a local Py in the expansion", "Holder::size", _sub(("fn helper", "struct Py<T>(T);\n\nfn helper"), SPELLED_OUT), D),
    ("a cfg on the function it calls", "Holder::size", _sub(("fn helper", "#[cfg(test)]\nfn helper")), D),
    ("a cfg_attr around a lint level", "Holder::size",
     _sub(("fn helper", "#[cfg_attr(test, allow(dead_code))]\nfn helper")), D),
    ("must_use on the function it calls", "Holder::size", _sub(("fn helper", "#[must_use]\nfn helper")), D),
    ("a pyo3 option on the field it reads", "Holder::size", _sub(("    inner: Vec", "    #[pyo3(get)]\n    inner: Vec")), D),
    ("a lint level and a cfg in one attribute list", "Holder::size",
     _sub(("fn helper", "#[allow(dead_code)]\n#[cfg(test)]\nfn helper")), D),
    ("an unsafe block around the whole body of the function it calls", "Holder::size",
     _sub(("    x + 1\n}", "    unsafe {\n        x + 1\n    }\n}")), F),
    ("the body of the function it calls rewritten inside a block", "Holder::size",
     _sub(("    x + 1\n}", "    {\n        let y = x;\n        y + 1\n    }\n}"),), D),
    ("a match statement added to the function it calls", "Holder::size",
     _sub(("    x + 1\n}", "    match x {\n        0 => (),\n        _ => (),\n    };\n    x + 1\n}")), D),
    ("visibility of the function it calls", "Holder::size", _sub(("fn helper", "pub(crate) fn helper")), F),
    ("parameters added to the function it calls", "Holder::size",
     _sub(("fn helper(x: usize)", "fn helper(x: usize, _py: Option<Python<'_>>, _r: &u8)")), D),
    # an unsafe block after a statement, a tail made a statement: different programs
    ("an unsafe block after a statement", "Holder::size",
     _sub(("    x + 1\n}", "    let y = x;\n    unsafe {\n        y + 1\n    }\n}")), D),
    ("a statement's semicolon removed at the end of a block", "Holder::size",
     _sub(("    x + 1\n}", "    helper2(x)\n}"), ("fn helper(", "fn helper2(x: usize) -> usize {\n    x\n}\n\nfn helper(")), D),
    # its own code is compared as written, by both gates
    ("a lint level on the method itself", "Holder::size",
     _sub(("    fn size(&self)", "    #[allow(unused)]\n    fn size(&self)")), C),
    ("the alias written out in the method itself", "Holder::total",
     _sub(("    fn total(&self) -> usize {\n        self.count",
           "    fn total(&self) -> usize {\n        let _x: Option<Py<PyAny>> = None;\n        self.count")), C),
]


@pytest.mark.parametrize(("case", "qualname", "edit", "status"), CASES, ids=[c[0] for c in CASES])
def test_equivalent_spellings_are_released_and_others_withheld(case, qualname, edit, status):
    edited = edit(SOURCE)
    where = locate(anchor({"src/lib.rs": SOURCE}, "src/lib.rs", qualname), {"src/lib.rs": edited})
    assert where.status is status, (case, where)
    if status is not C:
        before, after = RustFile(SOURCE, "src/lib.rs"), RustFile(edited, "src/lib.rs")
        for rule in ("precise", "wide"):
            changed = before.dependencies(qualname, rule) != after.dependencies(qualname, rule)
            assert changed is (status is D), (case, rule)


def test_an_alias_is_applied_only_where_the_crate_binds_it():
    assert RustFile(SOURCE)._aliases == {"PyObject": ("Py", "PyAny")}
    assert RustFile(SOURCE.replace("use pyo3::prelude::*;\n", ""))._aliases == {}  # no pyo3 import: not pyo3's
    generic = SOURCE + "\nfn pick<PyObject: Clone>(x: PyObject) -> PyObject {\n    x\n}\n"
    assert RustFile(generic)._aliases == {}
    nested = SOURCE + "\nmod inner {\n    use super::*;\n}\n"
    assert RustFile(nested)._aliases == {"PyObject": ("Py", "PyAny")}
    assert RustFile(SOURCE + "\nmod inner {\n    use other::*;\n}\n")._aliases == {}
    assert RustFile(SOURCE + "\nmake_types!();\n")._aliases == {}  # a macro among the items may define PyObject


def test_the_symbols_own_hash_keeps_what_the_records_drop():
    plain = RustFile(SOURCE)
    linted = RustFile(SOURCE.replace("fn helper", "#[allow(dead_code)]\nfn helper"))
    assert {s.qualname: s.norm_hash for s in plain.rows()}["helper"] != \
        {s.qualname: s.norm_hash for s in linted.rows()}["helper"]
    assert plain.dependencies("Holder::size") == linted.dependencies("Holder::size")


def test_the_tables_say_what_they_hold():
    assert TYPE_ALIASES["PyObject"] == ("pyo3", "Py<PyAny>")
    assert {"cfg", "cfg_attr", "derive", "repr", "doc", "must_use", "deprecated", "pyo3"}.isdisjoint(INERT_SPELLINGS)


def _pair(before: str, after: str, qualname: str = "g") -> bool:
    """Whether ``qualname``'s dependencies read the same in both sources, under both rules."""
    a, b = RustFile(before), RustFile(after)
    same = {rule: a.dependencies(qualname, rule) == b.dependencies(qualname, rule) for rule in ("precise", "wide")}
    assert same["precise"] == same["wide"]
    return same["precise"]


CALLER = "\nfn g() -> u8 {\n    helper(2)\n}\n"

#: (case, the callee before, the callee after, whether the caller's dependencies read the same)
SPELLINGS = [
    ("unsafe around the whole body", "unsafe fn helper(x: u8) -> u8 {\n    let y = x;\n    y + 1\n}",
     "unsafe fn helper(x: u8) -> u8 {\n    unsafe {\n        let y = x;\n        y + 1\n    }\n}", True),
    ("a bare block around the whole body", "fn helper(x: u8) -> u8 {\n    let y = x;\n    y + 1\n}",
     "fn helper(x: u8) -> u8 {\n    {\n        let y = x;\n        y + 1\n    }\n}", True),
    ("an unsafe block as a value", "fn helper(x: u8) -> u8 {\n    let y = unsafe { f(x) };\n    y\n}",
     "fn helper(x: u8) -> u8 {\n    let y = { f(x) };\n    y\n}", True),
    ("a statement before the unsafe block", "unsafe fn helper(x: u8) -> u8 {\n    let y = x;\n    y + 1\n}",
     "unsafe fn helper(x: u8) -> u8 {\n    let z = 0;\n    unsafe {\n        let y = x;\n        y + 1\n    }\n}", False),
    ("the inner block's value discarded", "fn helper(x: u8) -> u8 {\n    f(x)\n}",
     "fn helper(x: u8) -> u8 {\n    {\n        f(x)\n    };\n}", False),
    ("a labelled block", "fn helper(x: u8) -> u8 {\n    f(x)\n}",
     "fn helper(x: u8) -> u8 {\n    'a: {\n        f(x)\n    }\n}", False),
    ("a semicolon after a match, code after it", "fn helper(x: u8) -> u8 {\n    match x {\n        _ => (),\n    };\n    x\n}",
     "fn helper(x: u8) -> u8 {\n    match x {\n        _ => (),\n    }\n    x\n}", True),
    ("a semicolon after a match at the end (the block's value)",
     "fn helper(x: u8) -> u8 {\n    match x {\n        _ => 1,\n    };\n}",
     "fn helper(x: u8) -> u8 {\n    match x {\n        _ => 1,\n    }\n}", False),
    ("two semicolons at the end", "fn helper(x: u8) {\n    match x {\n        _ => (),\n    };;\n}",
     "fn helper(x: u8) {\n    match x {\n        _ => (),\n    };\n}", False),
    ("visibility of the callee", "fn helper(x: u8) -> u8 {\n    x\n}", "pub fn helper(x: u8) -> u8 {\n    x\n}", True),
    ("visibility of a field of a struct it names", "struct S {\n    a: u8,\n}\nfn helper(s: S) -> u8 {\n    s.a\n}",
     "struct S {\n    pub a: u8,\n}\nfn helper(s: S) -> u8 {\n    s.a\n}", False),
    ("'_ in a type's arguments", "fn helper(p: Python<'_>, r: PyRef<'_, S>, x: &'_ u8) -> u8 {\n    *x\n}",
     "fn helper(p: Python, r: PyRef<S>, x: &u8) -> u8 {\n    *x\n}", True),
    ("a named lifetime", "fn helper<'a>(x: &'a u8) -> u8 {\n    *x\n}", "fn helper(x: &u8) -> u8 {\n    *x\n}", False),
    ("another type argument", "fn helper(r: PyRef<'_, S>) -> u8 {\n    0\n}", "fn helper(r: PyRef<'_, T>) -> u8 {\n    0\n}", False),
    ("byte array as a byte string", "static HELPER: [u8; 3] = [b'u', b'l', b'\\n'];\nfn helper(x: u8) -> u8 {\n    HELPER[0]\n}",
     "static HELPER: [u8; 3] = *b\"ul\\n\";\nfn helper(x: u8) -> u8 {\n    HELPER[0]\n}", True),
    ("other bytes", "static HELPER: [u8; 3] = [b'u', b'l', b'l'];\nfn helper(x: u8) -> u8 {\n    HELPER[0]\n}",
     "static HELPER: [u8; 3] = *b\"ulL\";\nfn helper(x: u8) -> u8 {\n    HELPER[0]\n}", False),
    ("a number for a byte", "const HELPER: [u8; 2] = [b'u', b'l'];\nfn helper(x: u8) -> u8 {\n    HELPER[0]\n}",
     "const HELPER: [u8; 2] = [b'u', 108];\nfn helper(x: u8) -> u8 {\n    HELPER[0]\n}", False),
    ("a byte string borrowed, not copied", "fn helper(x: u8) -> u8 {\n    let r = &[b'a'];\n    r[0]\n}",
     "fn helper(x: u8) -> u8 {\n    let r = &*b\"a\";\n    r[0]\n}", False),
]


@pytest.mark.parametrize(("case", "before", "after", "same"), SPELLINGS, ids=[c[0] for c in SPELLINGS])
def test_spellings_of_a_callee(case, before, after, same):
    assert _pair(before + CALLER, after + CALLER) is same, case
    # whatever the records say, the edited item's own hash is as written: a note on it is withheld
    a = {s.qualname: s.norm_hash for s in RustFile(before + CALLER).rows()}
    b = {s.qualname: s.norm_hash for s in RustFile(after + CALLER).rows()}
    assert a != b and a["g"] == b["g"]


@pytest.mark.parametrize(("case", "before", "after", "same"), [
    ("parentheses the precedence already implies", "fn helper(n: u32) -> u32 {\n    ((n - 1) << 10 | (n)) + 1\n}",
     "fn helper(n: u32) -> u32 {\n    (((n - 1) << 10) | n) + 1\n}", True),
    ("parentheses that regroup", "fn helper(n: u32) -> u32 {\n    (n - 1) * 2\n}", "fn helper(n: u32) -> u32 {\n    n - 1 * 2\n}", False),
    ("a called field against a method", "struct S {\n    f: fn() -> u8,\n}\nfn helper(s: S) -> u8 {\n    (s.f)()\n}",
     "struct S {\n    f: fn() -> u8,\n}\nfn helper(s: S) -> u8 {\n    s.f()\n}", False),
], ids=["implied", "regroup", "called field"])
def test_parentheses(case, before, after, same):
    assert _pair(before + CALLER, after + CALLER) is same, case


TRAIT_IMPLS = '''struct Key {
    a: u8,
}

impl Convert for Key {
    type Error = Infallible;
    const LIMIT: u8 = 1;

    fn convert(&self) -> Result<u8, Self::Error> {
        Ok(self.a)
    }

    fn limit(&self) -> u8 {
        Self::LIMIT
    }
}

impl Parse for Key {
    type Error = ParseError;
    const LIMIT: u8 = 2;

    fn parse(&self) -> u8 {
        0
    }
}
'''


@pytest.mark.parametrize(("case", "qualname", "old", "new", "status"), [
    ("another trait's associated type", "<Key as Convert>::convert", "type Error = ParseError;", "type Error = BadInput;", F),
    ("its own impl's associated type", "<Key as Convert>::convert", "type Error = Infallible;", "type Error = BadInput;", D),
    ("another impl's constant of the same name (a value path also finds inherent and other items)",
     "<Key as Convert>::limit", "const LIMIT: u8 = 2;", "const LIMIT: u8 = 3;", D),
], ids=["other trait", "own impl", "value path"])
def test_self_types_in_a_trait_impl_are_the_impls_own(case, qualname, old, new, status):
    edited = TRAIT_IMPLS.replace(old, new)
    where = locate(anchor({"src/lib.rs": TRAIT_IMPLS}, "src/lib.rs", qualname), {"src/lib.rs": edited})
    assert where.status is status, (case, where)
