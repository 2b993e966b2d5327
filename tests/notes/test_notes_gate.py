"""The gate (cvlib/notes/gate.py): every status, the visibility rule, and its properties."""

from __future__ import annotations

import ast

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import cvlib as cv
from cvlib.notes import (
    Anchor,
    Note,
    NotesError,
    Status,
    SymbolIndex,
    SymbolRef,
    Tier,
    UnknownSymbolError,
    agent_visible,
    anchor,
    locate,
)

V1 = {
    "pkg/runner.py": (
        "class Runner:\n"
        "    def step(self, n):\n"
        '        """Advance n steps."""\n'
        "        return self.count + n + 1\n"
        "\n"
        "    def reset(self):\n"
        "        self.count = 0\n"
        "        self.log = []\n"
        "\n"
        "    def noop(self):\n"
        "        pass\n"
    ),
    "pkg/util.py": "def helper(a, b=2):\n    return a * b + 7\n",
}


def note(snapshot=V1, path="pkg/runner.py", qualname="Runner.step", tier=Tier.HIGH, approved=True) -> Note:
    return Note(id="n", text="n is 0-based; +1 on purpose", anchor=anchor(snapshot, path, qualname), tier=tier, approved=approved)


def with_file(path: str, source: str, base=V1) -> dict:
    return {**base, path: source}


def test_fresh_in_the_same_snapshot():
    where = locate(note(), V1)
    assert where.status is Status.FRESH and where.hint is None
    assert agent_visible(note(), V1)


def test_fresh_after_comment_whitespace_and_docstring_edits():
    edited = V1["pkg/runner.py"].replace('"""Advance n steps."""', '"""Move on."""  # reworded').replace(
        "self.count + n + 1", "self.count  +  n + 1   # intentional"
    )
    snap = with_file("pkg/runner.py", edited)
    assert locate(note(), snap).status is Status.FRESH
    assert agent_visible(note(), snap)


def test_changed_when_the_body_changes():
    snap = with_file("pkg/runner.py", V1["pkg/runner.py"].replace("n + 1", "n + 2"))
    assert locate(note(), snap).status is Status.CHANGED
    assert not agent_visible(note(), snap)


def test_renamed_in_place_gives_a_hint_and_is_withheld():
    snap = with_file("pkg/runner.py", V1["pkg/runner.py"].replace("def reset", "def restart"))
    n = note(qualname="Runner.reset")
    where = locate(n, snap)
    assert where.status is Status.RENAMED
    assert where.hint == SymbolRef("pkg/runner.py", "Runner.restart")
    assert not agent_visible(n, snap)


def test_moved_to_another_file_gives_the_new_path():
    body = "    def reset(self):\n        self.count = 0\n        self.log = []\n"
    snap = {
        "pkg/runner.py": V1["pkg/runner.py"].replace(body, ""),
        "pkg/util.py": V1["pkg/util.py"] + "\nclass State:\n" + body,
    }
    where = locate(note(qualname="Runner.reset"), snap)
    assert where.status is Status.RENAMED
    assert str(where.hint) == "pkg/util.py::State.reset"


def test_ambiguous_when_several_twins():
    copy = "\n\nclass A:\n    def wipe(self):\n        self.count = 0\n        self.log = []\n\nclass B:\n    def wipe(self):\n        self.count = 0\n        self.log = []\n"
    snap = {"pkg/runner.py": V1["pkg/runner.py"].replace("def reset", "def _gone_"), "pkg/more.py": copy}
    snap["pkg/runner.py"] = snap["pkg/runner.py"].replace("    def _gone_(self):\n        self.count = 0\n        self.log = []\n", "")
    where = locate(note(qualname="Runner.reset"), snap)
    assert where.status is Status.AMBIGUOUS and where.hint is None
    assert len(where.candidates) == 2
    assert not agent_visible(note(qualname="Runner.reset"), snap)


def test_missing_when_gone_without_a_twin():
    snap = with_file("pkg/runner.py", V1["pkg/runner.py"].split("    def reset")[0])
    assert locate(note(qualname="Runner.reset"), snap).status is Status.MISSING
    snap = {k: v for k, v in V1.items() if k != "pkg/runner.py"}  # whole file gone
    assert locate(note(qualname="Runner.reset"), snap).status is Status.MISSING


def test_tiny_body_never_yields_a_rename_hint():
    n = note(qualname="Runner.noop")  # `pass`: 4 nodes
    snap = with_file("pkg/runner.py", V1["pkg/runner.py"].replace("def noop", "def idle"))
    where = locate(n, snap)
    assert where.status is Status.MISSING and where.hint is None


def test_unparsable_when_its_file_does_not_parse():
    snap = with_file("pkg/runner.py", V1["pkg/runner.py"] + "\ndef broken(:\n")
    assert locate(note(), snap).status is Status.UNPARSABLE
    assert not agent_visible(note(), snap)


def test_other_unparsable_files_do_not_stop_a_rename_search():
    snap = with_file("pkg/runner.py", V1["pkg/runner.py"].replace("def reset", "def restart"))
    snap["pkg/broken.py"] = "def (\n"
    assert locate(note(qualname="Runner.reset"), snap).status is Status.RENAMED


@pytest.mark.parametrize("tier", [Tier.MEDIUM, Tier.LOW])
def test_only_high_tier_is_shown(tier):
    assert locate(note(tier=tier), V1).status is Status.FRESH
    assert not agent_visible(note(tier=tier), V1)


def test_unapproved_is_never_shown():
    assert not agent_visible(note(approved=False), V1)


def test_index_and_plain_snapshot_agree():
    index = SymbolIndex.from_snapshot(V1)
    for qual in ("Runner.step", "Runner.reset", "Runner.noop"):
        n = note(qualname=qual)
        assert locate(n, index) == locate(n, V1)


def test_anchor_errors_name_the_problem():
    with pytest.raises(UnknownSymbolError, match="no such file"):
        anchor(V1, "nope.py", "f")
    with pytest.raises(UnknownSymbolError, match="does not define it.*Runner.step"):
        anchor(V1, "pkg/runner.py", "Runner.jump")
    with pytest.raises(UnknownSymbolError, match="does not parse"):
        anchor({"a.py": "def (:"}, "a.py", "f")
    with pytest.raises(NotesError, match="mapping of file path"):
        anchor(["a.py"], "a.py", "f")


def test_note_validates_its_fields():
    a = anchor(V1, "pkg/runner.py", "Runner.step")
    with pytest.raises(NotesError, match="tier"):
        Note(id="x", text="t", anchor=a, tier="high", approved=True)
    with pytest.raises(NotesError, match="approved"):
        Note(id="x", text="t", anchor=a, tier=Tier.HIGH, approved="yes")
    with pytest.raises(NotesError, match="id"):
        Note(id="", text="t", anchor=a, tier=Tier.HIGH, approved=True)
    with pytest.raises(TypeError):
        Note("x", "t", a, Tier.HIGH, True)  # keyword arguments only
    with pytest.raises(NotesError, match="norm_hash"):
        Anchor("p.py", "f", "a" * 64, "", "b" * 64)
    with pytest.raises(NotesError, match="dep_hash"):
        Anchor("p.py", "f", "a" * 64, "b" * 64, "xyz")
    with pytest.raises(NotesError, match="deps"):
        Anchor("p.py", "f", "a" * 64, "b" * 64, "c" * 64, deps=(("x",),))


def test_public_api_through_cv():
    assert cv.notes.agent_visible is agent_visible


# ---------------------------------------------------------------- properties
# A small grammar of functions, rendered in many styles. Every expression is
# fully parenthesised, so extra parentheses, spacing, comments, blank lines,
# indentation and docstrings never change the AST; every mutation does
# (checked against an independent oracle: ast.unparse of the stripped tree).

NAMES = ["a", "b", "c"]
OPS = ["+", "-", "*", "//", "%"]

expr = st.recursive(
    st.one_of(st.integers(0, 9).map(str), st.sampled_from(NAMES)),
    lambda inner: st.tuples(inner, st.sampled_from(OPS), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    max_leaves=6,
)
statement = st.one_of(
    st.tuples(st.just("assign"), st.sampled_from(NAMES), expr),
    st.tuples(st.just("if"), expr, expr),
    st.tuples(st.just("return"), expr),
)
function = st.fixed_dictionaries(
    {
        "params": st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True),
        "default": st.one_of(st.none(), st.integers(0, 9)),
        "decorators": st.lists(st.sampled_from(["cache", "staticmethod", "trace"]), max_size=2),
        "body": st.lists(statement, min_size=1, max_size=5),
    }
)
style = st.fixed_dictionaries(
    {
        "indent": st.sampled_from([2, 4, 8]),
        "space": st.sampled_from(["", " ", "  "]),
        "comment": st.one_of(st.none(), st.text(st.characters(codec="ascii", categories=["L", "N", "Zs"]), max_size=12)),
        "blank": st.booleans(),
        "docstring": st.one_of(st.none(), st.text(st.characters(codec="ascii", categories=["L", "N"]), max_size=20)),
        "parens": st.booleans(),
    }
)


def render(fn: dict, sty: dict, name: str = "target") -> str:
    ind = " " * sty["indent"]
    sp = sty["space"]
    tail = f"  # {sty['comment']}" if sty["comment"] is not None else ""

    def e(x: str) -> str:
        return f"({x})" if sty["parens"] else x

    params = list(fn["params"])
    if fn["default"] is not None:
        params[-1] = f"{params[-1]}{sp}={sp}{fn['default']}"
    lines = [f"@{d}" for d in fn["decorators"]] + [f"def {name}({(','+sp).join(params)}):{tail}"]
    if sty["docstring"] is not None:
        lines.append(f'{ind}"""{sty["docstring"]}"""')
    for stmt in fn["body"]:
        if stmt[0] == "assign":
            lines.append(f"{ind}{stmt[1]}{sp}={sp}{e(stmt[2])}{tail}")
        elif stmt[0] == "if":
            lines.append(f"{ind}if {e(stmt[1])}:{tail}")
            lines.append(f"{ind * 2}return {e(stmt[2])}")
        else:
            lines.append(f"{ind}return {e(stmt[1])}{tail}")
        if sty["blank"]:
            lines.append("")
    return "\n".join(lines) + "\n"


def oracle(source: str) -> str:
    """Independent of the library: unparse the function with name and docstrings stripped."""
    node = ast.parse(source).body[0]
    node.name = "_"
    if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str):
        node.body = node.body[1:] or [ast.Pass()]
    return ast.unparse(node)


PLAIN = {"indent": 4, "space": " ", "comment": None, "blank": False, "docstring": None, "parens": False}
OTHER = 'class Keep:\n    def other(self, x):\n        return x + 1000\n'


def gated(fn: dict, sty_before: dict, source_after: str) -> tuple[Note, dict]:
    before = {"m.py": render(fn, sty_before), "o.py": OTHER}
    n = Note(id="p", text="t", anchor=anchor(before, "m.py", "target"), tier=Tier.HIGH, approved=True)
    return n, {"m.py": source_after, "o.py": OTHER}


@settings(max_examples=150, deadline=None)
@given(fn=function, a=style, b=style)
def test_formatting_comment_and_docstring_edits_keep_the_note(fn, a, b):
    n, after = gated(fn, a, render(fn, b))
    assert locate(n, after).status is Status.FRESH
    assert agent_visible(n, after)


def mutate(fn: dict, choice: int, value: int) -> dict:
    new = {k: list(v) if isinstance(v, list) else v for k, v in fn.items()}
    kind = choice % 6
    if kind == 0:
        new["default"] = None if fn["default"] is not None and value % 2 else (value if fn["default"] != value else value + 1)
    elif kind == 1:
        new["decorators"] = fn["decorators"] + ["extra"]
    elif kind == 2:
        new["params"] = fn["params"] + ["z"]
    elif kind == 3:
        new["body"] = fn["body"] + [("return", str(value))]
    elif kind == 4:
        stmt = fn["body"][value % len(fn["body"])]
        new["body"][value % len(fn["body"])] = stmt[:-1] + (f"({stmt[-1]} + 1)",)
    else:
        stmt = fn["body"][value % len(fn["body"])]
        swapped = stmt[-1].replace("+", "\x00").replace("-", "+").replace("\x00", "-")
        new["body"][value % len(fn["body"])] = stmt[:-1] + (swapped if swapped != stmt[-1] else f"(-{stmt[-1]})",)
    return new


@settings(max_examples=150, deadline=None)
@given(fn=function, a=style, b=style, choice=st.integers(0, 5), value=st.integers(0, 9))
def test_any_ast_changing_edit_withholds_the_note(fn, a, b, choice, value):
    changed = mutate(fn, choice, value)
    before, after = render(fn, a), render(changed, b)
    assume(oracle(before) != oracle(after))
    n, snap = gated(fn, a, after)
    assert locate(n, snap).status is not Status.FRESH
    assert not agent_visible(n, snap)


@settings(max_examples=200, deadline=None)
@given(fn1=function, a=style, b=style, data=st.data())
def test_the_gate_never_shows_a_note_whose_code_differs(fn1, a, b, data):
    how = data.draw(st.sampled_from(["same", "mutated", "independent"]))
    if how == "same":
        fn2 = fn1
    elif how == "mutated":
        fn2 = mutate(fn1, data.draw(st.integers(0, 5)), data.draw(st.integers(0, 9)))
    else:
        fn2 = data.draw(function)
    n, snap = gated(fn1, a, render(fn2, b))
    same_code = oracle(render(fn1, a)) == oracle(render(fn2, b))
    assert agent_visible(n, snap) == same_code  # shown exactly when the code is the same


def test_symbol_rows_without_a_dependency_hash_are_refused():
    from cvlib.notes import Symbol

    row = Symbol("m.py", "f", "function", "a" * 64, "b" * 64, 2, 12)
    index = SymbolIndex.from_symbols([row])
    stored = Anchor("m.py", "f", "a" * 64, "b" * 64, "c" * 64)
    with pytest.raises(NotesError, match="no dependency hash"):
        locate(stored, index)
