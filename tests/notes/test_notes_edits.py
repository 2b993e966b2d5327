"""Edit kinds -> the status the gate gives them, and the two properties behind the table.

Every row anchors a note on one symbol of a small module, applies one edit,
and checks the status: cosmetic edits (to the symbol or to what it depends on)
stay FRESH, edits to the symbol's own code are CHANGED, edits to what it
depends on inside the module are DEPENDENCY_CHANGED (never FRESH), and the
rename rules hold. The rows include every edit of issue 14. The Rust rows
check the same rule through tree-sitter. The property tests draw random
cosmetic rewrites (never withheld) and random changes to a dependency (never
FRESH).
"""

from __future__ import annotations

import ast
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvlib.notes import Note, Status, Tier, agent_visible, anchor, locate

BASE = '''"""A small module."""

import json
from functools import wraps

LIMIT = 5
ELAPSED_TIME_LABEL = 'Elapsed time'


def helper(x):
    """Double it."""
    return x * FACTOR


FACTOR = 2


def deco(fn):
    @wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper


@deco
def target(n, start=1):
    """Sum the doubled steps, capped."""
    total = 0
    for i in range(start, n + 1):  # 1-based on purpose
        total += helper(i)
    return json.dumps(min(total, LIMIT))


def outer(k):
    scale = 3

    def inner(v):
        return v * scale + k
    return inner


class Base:
    kind = "base"

    def describe(self):
        return f"{self.kind} runner with {self.count} steps"


class Runner(Base):
    """Runs steps."""

    scale = 2

    def __init__(self):
        self.count = 0

    def step(self, n):
        """Advance."""
        self.count += n * self.scale
        return self.describe()

    def reset(self):
        self.count = 0
        self.log = []


def lonely(a, b):
    return (a + b) * (a - b) // 7


def report(message):
    return "report: " + str(message)
'''


def _sub(old: str, new: str, count: int = 1):
    def edit(src: str) -> str:
        assert old in src, old
        return src.replace(old, new, count)

    return edit


def _append(text: str):
    return lambda src: src + text


def _indent_block(first_line: str, header: str):
    """Move the definition starting at ``first_line`` under ``header`` (indenting it)."""

    def edit(src: str) -> str:
        lines = src.split("\n")
        start = lines.index(first_line)
        end = start + 1
        while end < len(lines) and (lines[end].startswith(" ") or lines[end] == "" and end + 1 < len(lines)
                                    and lines[end + 1].startswith(" ")):
            end += 1
        block = ["    " + line if line else line for line in lines[start:end]]
        return "\n".join(lines[:start] + [header] + block + lines[end:])

    return edit


def _delete_def(first_line: str):
    def edit(src: str) -> str:
        lines = src.split("\n")
        start = lines.index(first_line)
        end = start + 1
        while end < len(lines) and (lines[end].startswith(" ") or lines[end] == ""):
            end += 1
        return "\n".join(lines[:start] + lines[end:])

    return edit


F, C, D = Status.FRESH, Status.CHANGED, Status.DEPENDENCY_CHANGED

#: (edit kind, anchored symbol, edit, expected status)
EDITS = [
    # cosmetic: stay FRESH
    ("whitespace inside the symbol", "target", _sub("total += helper(i)", "total  +=  helper( i )"), F),
    ("comment added", "target", _sub("total = 0", "total = 0  # running sum"), F),
    ("comment reworded", "target", _sub("# 1-based on purpose", "# one-based, deliberately"), F),
    ("reformatted over several lines", "target", _sub("return json.dumps(min(total, LIMIT))",
                                                      "return json.dumps(\n        min(\n            total,\n            LIMIT,\n        )\n    )"), F),
    ("docstring reworded", "target", _sub('"""Sum the doubled steps, capped."""', '"""Add up."""'), F),
    ("docstring removed", "target", _sub('    """Sum the doubled steps, capped."""\n', ""), F),
    ("quote style", "ELAPSED_TIME_LABEL", _sub("'Elapsed time'", '"Elapsed time"'), F),
    ("module docstring changed", "target", _sub('"""A small module."""', '"""Another module."""'), F),
    ("comment in a helper", "target", _sub("return x * FACTOR", "return x * FACTOR  # scaled"), F),
    ("docstring of a helper", "target", _sub('"""Double it."""', '"""Twice."""'), F),
    ("constant reformatted", "target", _sub("LIMIT = 5", "LIMIT = (5)  # cap"), F),
    ("unrelated function changed", "target", _sub("return (a + b) * (a - b) // 7", "return 0"), F),
    ("unrelated function added", "target", _append("\n\ndef extra():\n    return 1\n"), F),
    ("unrelated constant added", "target", _append("\nOTHER = 1\n"), F),
    ("helper moved below its caller", "target", lambda s: _append(
        "\n\ndef helper(x):\n    return x * FACTOR\n")(_delete_def("def helper(x):")(s)), F),
    ("sibling method changed", "Runner.reset", _sub("return self.describe()", "return None"), F),
    ("class docstring changed", "Runner.step", _sub('"""Runs steps."""', '"""Steps, run."""'), F),
    ("nested function, comment in enclosing", "outer.inner", _sub("scale = 3", "scale = 3  # fixed"), F),
    # the symbol's own code: CHANGED
    ("decorator added", "lonely", _sub("def lonely(a, b):", "@deco\ndef lonely(a, b):"), C),
    ("default changed", "target", _sub("start=1", "start=0"), C),
    ("range changed", "target", _sub("range(start, n + 1)", "range(start, n)"), C),
    ("type hints added", "lonely", _sub("def lonely(a, b):", "def lonely(a: int, b: int) -> int:"), C),
    ("made async", "lonely", _sub("def lonely(a, b):", "async def lonely(a, b):"), C),
    ("body moved into a nested function", "lonely", _sub(
        "    return (a + b) * (a - b) // 7", "    def go():\n        return (a + b) * (a - b) // 7\n    return go()"), C),
    ("operator changed", "lonely", _sub("// 7", "/ 7"), C),
    ("constant value changed (anchored on it)", "ELAPSED_TIME_LABEL", _sub("'Elapsed time'", "'Time elapsed'"), C),
    ("method body changed", "Runner.step", _sub("n * self.scale", "n + self.scale"), C),
    ("nested function changed", "outer.inner", _sub("return v * scale + k", "return v * scale - k"), C),
    # what the symbol depends on: DEPENDENCY_CHANGED
    ("module constant it reads", "target", _sub("LIMIT = 5", "LIMIT = 500"), D),
    ("helper it calls", "target", _sub("return x * FACTOR", "return x * FACTOR + 1"), D),
    ("constant the helper reads (transitive)", "target", _sub("FACTOR = 2", "FACTOR = 3"), D),
    ("import aliased to another module", "target", _sub("import json", "import simplejson as json"), D),
    ("from-import source changed", "deco", _sub("from functools import wraps", "from mylib import wraps"), D),
    ("later def shadows it", "target", _append("\n\ndef target(n, start=1):\n    return 0\n"), D),
    ("name rebound: target = helper", "target", _append("\ntarget = helper\n"), D),
    ("definition moved under if False:", "lonely", _indent_block("def lonely(a, b):", "if False:"), D),
    ("definition moved under try:", "lonely", lambda s: _indent_block("def lonely(a, b):", "try:")(s).replace(
        "\n\ndef report", "\nexcept ImportError:\n    pass\n\n\ndef report"), D),
    ("decorator's definition changed", "target", _sub("        return fn(*args)", "        return fn(*args[1:])"), D),
    ("class attribute of a method's class", "Runner.step", _sub("scale = 2", "scale = 3"), D),
    ("base class of a method's class", "Runner.step", _sub("class Runner(Base):", "class Runner(object):"), D),
    ("base class's attribute", "Runner.step", _sub('kind = "base"', 'kind = "basic"'), D),
    ("method it calls through self", "Runner.step", _sub('{self.count} steps"', '{self.count} step(s)"'), D),
    ("__init__ that sets self.count", "Runner.step", _sub("        self.count = 0\n\n    def step", "        self.count = 1\n\n    def step"), D),
    ("class decorator added", "Runner.step", _sub("class Runner(Base):", "@deco\nclass Runner(Base):"), D),
    ("builtin shadowed by a module definition", "target", _append("\n\ndef min(a, b):\n    return a\n"), D),
    ("star import added", "report", _sub("import json\n", "import json\nfrom os.path import *\n"), D),
    ("global rebound in a function", "target", _append("\n\ndef tune():\n    global LIMIT\n    LIMIT = 9\n"), D),
    ("module object mutated", "target", _append("\nFACTOR += 1\n"), D),
    ("closure variable of a nested function", "outer.inner", _sub("scale = 3", "scale = 4"), D),
    ("a second binding of an anchored constant", "ELAPSED_TIME_LABEL", _append("\nELAPSED_TIME_LABEL = 'Time elapsed'\n"), D),
    ("method rebound in its class", "Runner.reset", _sub("        self.log = []\n", "        self.log = []\n\n    reset = step\n"), D),
    # moved, deleted, unparsable
    ("renamed, same body", "lonely", _sub("def lonely(a, b):", "def solitary(a, b):"), Status.RENAMED),
    ("moved into a class", "lonely", lambda s: _delete_def("def lonely(a, b):")(s) + (
        "\n\nclass Holder:\n    def lonely(a, b):\n        return (a + b) * (a - b) // 7\n"), Status.RENAMED),
    ("renamed and copied twice", "lonely", lambda s: _delete_def("def lonely(a, b):")(s) + (
        "\n\ndef one(a, b):\n    return (a + b) * (a - b) // 7\n\n\ndef two(a, b):\n    return (a + b) * (a - b) // 7\n"),
     Status.AMBIGUOUS),
    ("deleted", "lonely", _delete_def("def lonely(a, b):"), Status.MISSING),
    ("trivial body renamed", "report", _sub("def report(message):", "def notify(message):"), Status.RENAMED),
    ("syntax error in the file", "target", _append("\ndef broken(:\n"), Status.UNPARSABLE),
]


@pytest.mark.parametrize(("kind", "qualname", "edit", "expected"), EDITS, ids=[e[0] for e in EDITS])
def test_edit_kind_gives_its_status(kind, qualname, edit, expected):
    stored = anchor({"m.py": BASE}, "m.py", qualname)
    edited = edit(BASE)
    assert edited != BASE
    where = locate(stored, {"m.py": edited})
    assert where.status is expected, (kind, where)
    note = Note(id="n", text="t", anchor=stored, tier=Tier.HIGH, approved=True)
    assert agent_visible(note, {"m.py": edited}) is (expected is Status.FRESH)
    if expected is Status.DEPENDENCY_CHANGED:
        assert where.changed, "the hint names what changed"


def test_table_covers_at_least_thirty_edit_kinds_of_every_outcome():
    assert len(EDITS) >= 30
    assert {e[3] for e in EDITS} >= {F, C, D, Status.RENAMED, Status.AMBIGUOUS, Status.MISSING, Status.UNPARSABLE}


def test_dependency_hint_names_the_changed_dependencies():
    stored = anchor({"m.py": BASE}, "m.py", "target")
    edited = BASE.replace("LIMIT = 5", "LIMIT = 500").replace("import json", "import simplejson as json")
    assert locate(stored, {"m.py": edited}).changed == ("LIMIT", "json")
    assert locate(stored, {"m.py": BASE + "\ntarget = helper\n"}).changed == ("target",)


def test_trivial_body_never_gives_a_rename_hint():
    src = "def f(self):\n    return self\n\n\ndef other(x):\n    return x + 1\n"
    stored = anchor({"m.py": src}, "m.py", "f")
    where = locate(stored, {"m.py": src.replace("def f(", "def g(")})
    assert where.status is Status.MISSING and where.hint is None


def test_identical_body_that_already_existed_is_not_a_rename_hint():
    twin = "    total = 0\n    for item in items:\n        total += item * 2\n    return total\n"
    src = f"def anchored(items):\n{twin}\n\ndef unrelated(items):\n{twin}"
    stored = anchor({"m.py": src}, "m.py", "anchored")
    assert stored.twins == ("m.py::unrelated",)
    deleted = f"def unrelated(items):\n{twin}"
    where = locate(stored, {"m.py": deleted})
    assert where.status is Status.MISSING and where.hint is None
    # a genuinely new place with that body is still offered, the old twin is not
    moved = deleted + f"\n\ndef renamed(items):\n{twin}"
    where = locate(stored, {"m.py": moved})
    assert where.status is Status.RENAMED and str(where.hint) == "m.py::renamed"


def test_httpie_constant_can_be_anchored():
    source = "ELAPSED_TIME_LABEL = 'Elapsed time'\n\n\ndef elapsed(seconds):\n    return f'{ELAPSED_TIME_LABEL}: {seconds}'\n"
    stored = anchor({"httpie/models.py": source}, "httpie/models.py", "ELAPSED_TIME_LABEL")
    assert locate(stored, {"httpie/models.py": source}).status is Status.FRESH
    stale = source.replace("'Elapsed time'", "'Time elapsed'")
    assert locate(stored, {"httpie/models.py": stale}).status is Status.CHANGED
    user = anchor({"httpie/models.py": source}, "httpie/models.py", "elapsed")
    assert locate(user, {"httpie/models.py": stale}).status is Status.DEPENDENCY_CHANGED


# -- Rust ----------------------------------------------------------------------------------

RUST = '''use std::collections::HashMap;

/// How many items to look ahead.
const LOOKAHEAD: usize = 1;

fn fill_count(n: usize) -> usize {
    // n is zero-indexed
    n + LOOKAHEAD
}

pub struct PeekNth<I> {
    buf: Vec<I>,
    seen: HashMap<usize, usize>,
}

impl<I: Clone> PeekNth<I> {
    pub fn peek_nth(&mut self, n: usize) -> Option<&I> {
        let want = fill_count(n);
        self.grow(want);
        self.buf.get(n)
    }

    fn grow(&mut self, want: usize) {
        while self.buf.len() < want {
            self.buf.push(self.buf[0].clone());
        }
    }
}

#[inline]
pub fn standalone(a: u32, b: u32) -> u32 {
    (a + b) * (a - b) / 7
}
'''

RUST_EDITS = [
    ("comment", "fill_count", _sub("// n is zero-indexed", "// zero-based n"), F),
    ("doc comment", "fill_count", _sub("/// How many items to look ahead.", "/// Lookahead."), F),
    ("whitespace", "PeekNth::peek_nth", _sub("let want = fill_count(n);", "let want   =   fill_count( n );"), F),
    ("unrelated fn changed", "fill_count", _sub("(a + b) * (a - b) / 7", "0"), F),
    ("body changed: n + 1 -> n + 2", "fill_count", _sub("n + LOOKAHEAD", "n + LOOKAHEAD + 1"), C),
    ("attribute removed", "standalone", _sub("#[inline]\n", ""), C),
    ("const it reads", "fill_count", _sub("LOOKAHEAD: usize = 1", "LOOKAHEAD: usize = 2"), D),
    ("fn it calls", "PeekNth::peek_nth", _sub("n + LOOKAHEAD", "n + LOOKAHEAD + 1"), D),
    ("use changed behind a field it does not read", "PeekNth::peek_nth",
     _sub("use std::collections::HashMap;", "use hashbrown::HashMap;"), F),
    ("struct field added that it does not read", "PeekNth::peek_nth", _sub("buf: Vec<I>,", "buf: Vec<I>,\n    cap: usize,"), F),
    ("type of a field it reads", "PeekNth::peek_nth", _sub("buf: Vec<I>,", "buf: std::collections::VecDeque<I>,"), D),
    ("impl header", "PeekNth::peek_nth", _sub("impl<I: Clone> PeekNth<I>", "impl<I: Clone + Default> PeekNth<I>"), D),
    ("method it calls on self", "PeekNth::peek_nth", _sub("while self.buf.len() < want", "while self.buf.len() <= want"), D),
    ("cfg-gated second definition", "fill_count", _append("\n#[cfg(test)]\nfn fill_count(n: usize) -> usize {\n    n\n}\n"), D),
    ("renamed, same body", "standalone", _sub("pub fn standalone", "pub fn lonely"), Status.RENAMED),
    ("deleted", "standalone", lambda s: s[: s.index("#[inline]")], Status.MISSING),
    ("syntax error", "fill_count", _append("\nfn broken( {\n"), Status.UNPARSABLE),
]


@pytest.mark.parametrize(("kind", "qualname", "edit", "expected"), RUST_EDITS, ids=[e[0] for e in RUST_EDITS])
def test_rust_edit_kind_gives_its_status(kind, qualname, edit, expected):
    pytest.importorskip("tree_sitter_rust")
    stored = anchor({"src/lib.rs": RUST}, "src/lib.rs", qualname)
    edited = edit(RUST)
    assert edited != RUST
    where = locate(stored, {"src/lib.rs": edited})
    assert where.status is expected, (kind, where)


def test_rust_qualified_names():
    pytest.importorskip("tree_sitter_rust")
    from cvlib.notes import symbols

    names = {s.qualname: s.kind for s in symbols(RUST, "src/lib.rs")}
    assert names == {"LOOKAHEAD": "constant", "fill_count": "function", "PeekNth": "type",
                     "PeekNth::peek_nth": "method", "PeekNth::grow": "method", "standalone": "function"}


# -- properties ----------------------------------------------------------------------------

SYMBOLS = ["target", "helper", "deco", "deco.wrapper", "outer", "outer.inner", "Base", "Base.describe", "Runner",
           "Runner.__init__", "Runner.step", "Runner.reset", "lonely", "report", "LIMIT", "ELAPSED_TIME_LABEL",
           "FACTOR", "Base.kind", "Runner.scale"]
ANCHORS = {q: anchor({"m.py": BASE}, "m.py", q) for q in SYMBOLS}


def _set_docstrings(tree: ast.Module, rng: random.Random) -> None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and rng.random() < 0.5:
            text = ast.Expr(ast.Constant("".join(rng.choice("abc xyz\n") for _ in range(rng.randint(0, 30)))))
            if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) \
                    and isinstance(node.body[0].value.value, str):
                node.body[0] = text
            else:
                node.body.insert(0, text)


def cosmetic_rewrite(source: str, seed: int, unparse: bool, docstrings: bool, comments: bool, blanks: bool) -> str:
    """A random rewrite that changes only formatting, comments and docstrings."""
    rng = random.Random(seed)
    if unparse or docstrings:
        tree = ast.parse(source)
        if docstrings:
            _set_docstrings(tree, rng)
        source = ast.unparse(tree) + "\n"
    lines = source.split("\n")
    out = []
    in_string = False
    for line in lines:
        if line.count('"""') % 2 == 1:
            in_string = not in_string
        if not in_string and comments and rng.random() < 0.3 and line.strip():
            indent = re.match(r"\s*", line).group(0)
            out.append(f"{indent}# note {rng.randint(0, 999)}")
        if not in_string and comments and rng.random() < 0.3 and line.strip() and '"""' not in line \
                and not line.rstrip().endswith((":", ",", "(", "[", "{", "\\")):
            line = line + f"  # c{rng.randint(0, 99)}"
        out.append(line)
        if blanks and not in_string and rng.random() < 0.2:
            out.append("")
    return "\n".join(out)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), unparse=st.booleans(), docstrings=st.booleans(), comments=st.booleans(),
       blanks=st.booleans(), qualname=st.sampled_from(SYMBOLS))
def test_a_random_cosmetic_rewrite_never_withholds(seed, unparse, docstrings, comments, blanks, qualname):
    rewritten = cosmetic_rewrite(BASE, seed, unparse, docstrings, comments, blanks)
    where = locate(ANCHORS[qualname], {"m.py": rewritten})
    assert where.status is Status.FRESH, (where, rewritten)


def _bindings(tree: ast.Module, label: str) -> list[ast.stmt]:
    """Statements that bind ``label`` (``NAME`` at module level, ``Class.NAME`` in a class body)."""
    scope: list[ast.stmt] = tree.body
    name = label
    if "[self." in label:  # the statements of a method that set an instance attribute
        owner, _, attr = label.removesuffix("]").partition("[self.")
        methods = [m for c in tree.body if isinstance(c, ast.ClassDef) and c.name == owner.split(".")[0]
                   for m in c.body if isinstance(m, ast.FunctionDef) and m.name == owner.split(".")[1]]
        return [stmt for m in methods for stmt in ast.walk(m) if isinstance(stmt, ast.Assign)
                and any(isinstance(t, ast.Attribute) and t.attr == attr for t in stmt.targets)]
    if "." in label:
        cls_name, name = label.split(".", 1)
        classes = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == cls_name]
        if not classes:
            return []
        scope = classes[0].body
    found = []
    for stmt in scope:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and stmt.name == name:
            found.append(stmt)
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            found.append(stmt)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == name for a in stmt.names):
            found.append(stmt)
    return found


def _mutate(stmt: ast.stmt, rng: random.Random) -> None:
    value = rng.randint(10, 10**6)
    if isinstance(stmt, ast.FunctionDef):
        stmt.body.insert(1 if ast.get_docstring(stmt) else 0, ast.parse(f"_probe = {value}").body[0])
    elif isinstance(stmt, ast.ClassDef):
        stmt.body.append(ast.parse(f"probe_{value} = {value}").body[0])
    elif isinstance(stmt, ast.Assign):
        stmt.value = ast.Constant(value)
    else:
        for alias in stmt.names:  # type: ignore[attr-defined]
            alias.asname = alias.asname or alias.name
            alias.name = f"other_{value}"


DEPENDENCY_CHOICES = [
    (q, label) for q, a in ANCHORS.items() for label, _ in a.deps
    if label != q.split(".")[-1] and label != q and _bindings(ast.parse(BASE), label)
]


def test_the_dependency_property_has_material():
    assert len(DEPENDENCY_CHOICES) >= 20


@settings(max_examples=80, deadline=None)
@given(choice=st.sampled_from(DEPENDENCY_CHOICES), seed=st.integers(0, 10**6))
def test_a_random_change_to_a_dependency_never_stays_fresh(choice, seed):
    qualname, label = choice
    rng = random.Random(seed)
    tree = ast.parse(BASE)
    targets = _bindings(tree, label)
    _mutate(rng.choice(targets), rng)
    edited = ast.unparse(tree) + "\n"
    where = locate(ANCHORS[qualname], {"m.py": edited})
    assert where.status in (Status.DEPENDENCY_CHANGED, Status.CHANGED), (qualname, label, where)
    assert where.status is not Status.FRESH


def test_rust_use_of_an_inline_module_item_is_followed():
    pytest.importorskip("tree_sitter_rust")
    source = "mod inner {\n    pub fn deep() -> u8 { LOW }\n    const LOW: u8 = 1;\n}\nuse inner::deep;\n\nfn f() -> u8 {\n    deep()\n}\n"
    stored = anchor({"a.rs": source}, "a.rs", "f")
    where = locate(stored, {"a.rs": source.replace("= 1;", "= 2;")})
    assert where.status is Status.DEPENDENCY_CHANGED and where.changed == ("inner::LOW",)
    assert locate(stored, {"a.rs": source.replace("{ LOW }", "{ LOW } // low")}).status is Status.FRESH
