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


def test_the_symbols_own_hash_keeps_what_the_records_drop():
    plain = RustFile(SOURCE)
    linted = RustFile(SOURCE.replace("fn helper", "#[allow(dead_code)]\nfn helper"))
    assert {s.qualname: s.norm_hash for s in plain.rows()}["helper"] != \
        {s.qualname: s.norm_hash for s in linted.rows()}["helper"]
    assert plain.dependencies("Holder::size") == linted.dependencies("Holder::size")


def test_the_tables_say_what_they_hold():
    assert TYPE_ALIASES["PyObject"] == ("pyo3", "Py<PyAny>")
    assert {"cfg", "cfg_attr", "derive", "repr", "doc", "must_use", "deprecated", "pyo3"}.isdisjoint(INERT_SPELLINGS)
