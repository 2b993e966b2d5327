"""Symbol discovery and the hashes (cvlib/notes/anchors.py, cvlib/notes/python.py)."""

from __future__ import annotations

import pytest

from cvlib.notes.anchors import read_snapshot, read_source, symbols
from cvlib.notes.errors import UnparsableSource
from cvlib.notes.symbols import MIN_IDENTIFIABLE_NODES

SOURCE = '''\
import sys

def top(a, b=1):
    """Doc."""
    def inner(x):
        return x * 2
    return inner(a) + b

class Box:
    """A box."""

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value

    class Inner:
        def deep(self):
            return 42

if sys.version_info >= (3, 8):
    def compat():
        return 1
else:
    def compat():
        return 2

async def fetch(url: str) -> bytes:
    return await get(url)
'''


def by_name(src: str = SOURCE) -> dict:
    return {s.qualname: s for s in symbols(src, "m.py")}


def test_qualnames_kinds_and_choices():
    found = by_name()
    assert list(found) == [
        "top", "top.inner", "Box", "Box.size", "Box.size#2", "Box.Inner", "Box.Inner.deep", "compat", "compat#2", "fetch",
    ]
    assert found["top"].kind == "function"
    assert found["Box"].kind == "class"
    assert found["Box.size"].kind == "method"
    assert found["Box.Inner.deep"].kind == "method"
    assert found["fetch"].kind == "function"
    assert found["top.inner"].kind == "nested"  # anchorable on its own; depends on its enclosing function


def test_lines_start_at_the_first_decorator():
    found = by_name()
    assert found["Box.size"].lines == 3
    assert found["top"].lines == 5


def test_docstring_comment_and_formatting_keep_the_normalized_hash():
    a = "def f(a, b=1):\n    return a+b\n"
    b = 'def f(a,  b = 1):   # sum\n    """Adds."""\n\n    return (a + b)  # plain\n'
    sa, sb = symbols(a)[0], symbols(b)[0]
    assert sa.norm_hash == sb.norm_hash
    assert sa.raw_hash != sb.raw_hash


def test_own_name_is_left_out_but_everything_else_counts():
    base = symbols("def f(a, b=1):\n    return a + b\n")[0].norm_hash
    assert symbols("def g(a, b=1):\n    return a + b\n")[0].norm_hash == base
    for edit in (
        "def f(a, b=2):\n    return a + b\n",  # default
        "def f(a, c=1):\n    return a + c\n",  # argument name
        "def f(a, b=1):\n    return a - b\n",  # operator
        "def f(a: int, b=1):\n    return a + b\n",  # annotation
        "@cache\ndef f(a, b=1):\n    return a + b\n",  # decorator
        "def f(a, b=1) -> int:\n    return a + b\n",  # return annotation
        "async def f(a, b=1):\n    return a + b\n",  # async
    ):
        assert symbols(edit)[0].norm_hash != base, edit


def test_nested_docstrings_are_dropped_too():
    a = 'class C:\n    def m(self):\n        """one"""\n        return 1\n'
    b = 'class C:\n    def m(self):\n        """two"""\n        return 1\n'
    assert symbols(a)[0].norm_hash == symbols(b)[0].norm_hash


def test_node_counts_behind_the_threshold():
    assert symbols("def f(self): pass")[0].nodes == 4
    assert symbols("def f(self): return self._x")[0].nodes == 6
    assert symbols("def f(self, key): return self.get(key)")[0].nodes == MIN_IDENTIFIABLE_NODES == 9
    assert not symbols("def f(): return None")[0].identifiable


def test_normalized_text_is_version_stable_and_positionless():
    from cvlib.notes.python import nameless

    text = nameless(__import__("ast").parse("def f(x):\n    return x\n").body[0], "f")
    assert "lineno" not in text and "type_params" not in text and "'f'" not in text


def test_unparsable_source_names_the_file():
    with pytest.raises(UnparsableSource, match="'bad.py'"):
        symbols("def f(:\n", "bad.py")


def test_read_source_honours_coding_line_and_bom():
    assert read_source("# -*- coding: latin-1 -*-\nx = 'é'\n".encode("latin-1")).endswith("x = 'é'\n")
    assert read_source(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"


def test_read_snapshot_sorted_python_only(tmp_path):
    (tmp_path / "b.py").write_text("y = 2\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("not python")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "hook.py").write_text("z = 3\n")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "c.py").write_text("z = 3\n")
    assert list(read_snapshot(tmp_path)) == ["b.py", "pkg/a.py"]


def test_read_snapshot_refuses_a_missing_directory(tmp_path):
    from cvlib.notes import NotesError

    with pytest.raises(NotesError, match="does not exist"):
        read_snapshot(tmp_path / "nope")


def test_constants_attributes_and_rebindings_are_symbols():
    found = by_name(
        "ELAPSED_TIME_LABEL = 'Elapsed time'\n"
        "A, B = 1, 2\n"
        "TOTAL: int = 3\n"
        "TOTAL += 1\n"
        "class C:\n    size = 4\n    label: str\n    def m(self):\n        return self.size\n"
    )
    assert {q: s.kind for q, s in found.items()} == {
        "ELAPSED_TIME_LABEL": "constant", "A": "constant", "B": "constant", "TOTAL": "constant", "TOTAL#2": "constant",
        "C": "class", "C.size": "attribute", "C.label": "attribute", "C.m": "method",
    }
    assert found["ELAPSED_TIME_LABEL"].lines == 1


def test_renaming_a_constant_keeps_its_normalized_hash():
    assert symbols("X = [1, 2, 3]\n")[0].norm_hash == symbols("Y = [1, 2, 3]\n")[0].norm_hash
    assert symbols("X = [1, 2, 3]\n")[0].norm_hash != symbols("X = [1, 2, 4]\n")[0].norm_hash


def test_read_snapshot_reads_rust_files_and_skips_cargo_target(tmp_path):
    (tmp_path / "Cargo.toml").write_text("[package]\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("fn f() {}\n")
    (tmp_path / "target" / "debug").mkdir(parents=True)
    (tmp_path / "target" / "debug" / "gen.rs").write_text("fn g() {}\n")
    assert list(read_snapshot(tmp_path)) == ["src/lib.rs"]


def test_tree_sitter_is_loaded_only_for_rust_files():
    import subprocess
    import sys

    code = (
        "import sys, cvlib.notes\n"
        "from cvlib.notes import anchor, locate\n"
        "a = anchor({'m.py': 'def f():\\n    return 1\\n'}, 'm.py', 'f')\n"
        "assert 'tree_sitter' not in sys.modules, 'loaded for Python'\n"
        "import cvlib.notes.cli\n"
        "assert 'tree_sitter' not in sys.modules, 'loaded by the CLI'\n"
        "try:\n"
        "    anchor({'a.rs': 'fn f() {}\\n'}, 'a.rs', 'f')\n"
        "except Exception as err:\n"
        "    print(type(err).__name__)\n"
        "print('tree_sitter' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "True"


def test_a_missing_rust_grammar_is_a_clear_error(monkeypatch):
    import sys

    from cvlib.notes import LanguageUnavailable
    from cvlib.notes import rust_syntax as rust  # the parser's home since rust.py was split

    rust._parser.cache_clear()
    monkeypatch.setitem(sys.modules, "tree_sitter_rust", None)
    try:
        with pytest.raises(LanguageUnavailable, match="pip install tree-sitter tree-sitter-rust"):
            symbols("fn f() {}\n", "a.rs")
        from cvlib.notes import Status, anchor, locate

        stored = anchor({"m.py": "def f():\n    return 1\n"}, "m.py", "f")
        where = locate(stored, {"m.py": "def g():\n    return 1\n", "a.rs": "fn f() {}\n"})
        assert where.status is Status.MISSING  # the Rust file is skipped, the check goes on
        from cvlib.notes.gate import Anchor

        on_rust = Anchor("a.rs", "f", "a" * 64, "b" * 64, "c" * 64)
        where = locate(on_rust, {"a.rs": "fn f() {}\n"})
        assert where.status is Status.UNPARSABLE and "pip install" in where.reason
    finally:
        rust._parser.cache_clear()
