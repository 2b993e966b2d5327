"""Notes files and the ``cvlib notes`` commands (cvlib/notes/notesfile.py, cvlib/notes/cli.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cvlib.notes import MissingFingerprintError, NotesFileError, Tier
from cvlib.notes.notesfile import anchor_notes_file, note_entry, read_notes
from cvlib.presentation.cli import main

V1 = (
    "LIMIT = 10\n\n\n"
    "class Runner:\n"
    "    def step(self, n):\n"
    "        return min(self.count + n + 1, LIMIT)\n\n"
    "    def reset(self):\n"
    "        self.total = 0\n"
    "        self.log = []\n"
)
UNANCHORED = (
    "notes:\n"
    "  - {id: step, text: 'n is 0-based', path: pkg/runner.py, qualname: Runner.step, tier: high, approved: true}\n"
    "  - {id: reset, text: 'clears the log', path: pkg/runner.py, qualname: Runner.reset, tier: high, approved: true}\n"
    "  - {id: low, text: 'low tier', path: pkg/runner.py, qualname: Runner.step, tier: low, approved: true}\n"
)


def invoke(*args: str):
    return CliRunner().invoke(main, ["notes", *args])


@pytest.fixture
def repos(tmp_path):
    (tmp_path / "v1" / "pkg").mkdir(parents=True)
    (tmp_path / "v1" / "pkg" / "runner.py").write_text(V1)
    (tmp_path / "v2" / "pkg").mkdir(parents=True)
    (tmp_path / "v2" / "pkg" / "runner.py").write_text(
        V1.replace("LIMIT)\n", "LIMIT)  # on purpose\n").replace("def reset", "def restart")
    )
    (tmp_path / "notes.yaml").write_text(UNANCHORED)
    done = invoke("anchor", str(tmp_path / "notes.yaml"), str(tmp_path / "v1"))
    assert done.exit_code == 0, done.output
    return tmp_path


def test_anchor_writes_fingerprints_once(repos):
    notes = read_notes(repos / "notes.yaml")
    assert [n.id for n in notes] == ["step", "reset", "low"]
    assert all(len(n.anchor.dep_hash) == 64 for n in notes)
    assert dict(notes[0].anchor.deps).keys() >= {"LIMIT", "Runner.step", "class Runner"}
    again = invoke("anchor", str(repos / "notes.yaml"), str(repos / "v2"))
    assert again.exit_code == 0 and again.output.splitlines() == ["step: kept", "reset: kept", "low: kept"]
    assert read_notes(repos / "notes.yaml") == notes  # kept means untouched


def test_check_prints_status_and_what_the_agent_sees(repos):
    result = invoke("check", str(repos / "notes.yaml"), str(repos / "v2"))
    assert result.exit_code == 0, result.output
    assert "step: FRESH" in result.output
    assert "agent sees: n is 0-based" in result.output
    assert "reset: RENAMED" in result.output and "moved to pkg/runner.py::Runner.restart" in result.output
    assert "clears the log" not in result.output  # withheld means absent
    assert "3 notes: 1 shown, 2 withheld" in result.output


def test_check_names_changed_dependencies(repos):
    (repos / "v2" / "pkg" / "runner.py").write_text(V1.replace("LIMIT = 10", "LIMIT = 1000"))
    result = invoke("check", str(repos / "notes.yaml"), str(repos / "v2"))
    assert "step: DEPENDENCY_CHANGED" in result.output
    assert "reviewer: dependencies changed: LIMIT" in result.output
    assert "n is 0-based" not in result.output


def test_check_json(repos):
    result = invoke("check", "--json", str(repos / "notes.yaml"), str(repos / "v2"))
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [(r["id"], r["status"], r["agent_sees"]) for r in rows] == [
        ("step", "FRESH", "n is 0-based"), ("reset", "RENAMED", None), ("low", "FRESH", None),
    ]


def test_fingerprintless_notes_are_refused_never_reanchored(tmp_path):
    """Issue 14: with anchors taken at read time, `range(1, n + 1)` -> `range(0, n)` still printed FRESH."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("def steps(n):\n    return list(range(0, n))\n")
    notes = tmp_path / "notes.yaml"
    notes.write_text("notes:\n  - {id: s, text: '1-based', path: m.py, qualname: steps, tier: high, approved: true}\n")
    result = invoke("check", str(notes), str(repo))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "cvlib notes anchor" in lines[0]
    assert "Traceback" not in result.output and "FRESH" not in result.output
    with pytest.raises(MissingFingerprintError, match="cvlib notes anchor"):
        read_notes(notes)


def test_anchor_dir_is_refused_with_the_command_to_use(tmp_path):
    notes = tmp_path / "notes.yaml"
    notes.write_text("anchor_dir: .\nnotes: []\n")
    result = invoke("check", str(notes), str(tmp_path))
    assert result.exit_code == 1 and "cvlib notes anchor" in result.output and "anchor_dir" in result.output


def test_the_anchored_note_sees_the_edit(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("def steps(n):\n    return list(range(1, n + 1))\n")
    notes = tmp_path / "notes.yaml"
    notes.write_text("notes:\n  - {id: s, text: '1-based', path: m.py, qualname: steps, tier: high, approved: true}\n")
    assert invoke("anchor", str(notes), str(repo)).exit_code == 0
    (repo / "m.py").write_text("def steps(n):\n    return list(range(0, n))\n")
    result = invoke("check", str(notes), str(repo))
    assert "s: CHANGED" in result.output and "agent sees: nothing (withheld)" in result.output


def test_reanchor_named_notes_and_refuse_unknown_ids(repos):
    before = read_notes(repos / "notes.yaml")
    done = invoke("anchor", str(repos / "notes.yaml"), str(repos / "v2"), "--note", "step")
    assert done.output.splitlines() == ["step: re-anchored", "reset: kept", "low: kept"]
    after = read_notes(repos / "notes.yaml")
    assert after[0].anchor.raw_hash != before[0].anchor.raw_hash  # the comment counts in the raw hash
    assert after[0].anchor.norm_hash == before[0].anchor.norm_hash
    bad = invoke("anchor", str(repos / "notes.yaml"), str(repos / "v2"), "--note", "nope")
    assert bad.exit_code == 1 and "no note with id 'nope'" in bad.output


def test_anchor_failure_writes_nothing(repos):
    path = repos / "partial.yaml"
    text = UNANCHORED + "  - {id: gone, text: x, path: pkg/runner.py, qualname: Nope, tier: high, approved: true}\n"
    path.write_text(text)
    result = invoke("anchor", str(path), str(repos / "v1"))
    assert result.exit_code == 1 and "does not define it" in result.output
    assert path.read_text() == text
    assert not [p for p in repos.iterdir() if p.name.endswith(".tmp")]


def test_anchor_prints_an_entry_that_reads_back(repos):
    result = invoke("anchor", str(repos / "v1"), "pkg/runner.py", "Runner.step", "--text", "hi", "--approved")
    assert result.exit_code == 0, result.output
    (repos / "pasted.yaml").write_text(result.output)
    notes = read_notes(repos / "pasted.yaml")
    assert notes[0].tier is Tier.HIGH and notes[0].approved and len(notes[0].anchor.norm_hash) == 64
    assert note_entry(notes[0])["text"] == "hi"


def test_anchor_a_module_constant(tmp_path):
    (tmp_path / "models.py").write_text("ELAPSED_TIME_LABEL = 'Elapsed time'\n")
    result = invoke("anchor", str(tmp_path), "models.py", "ELAPSED_TIME_LABEL")
    assert result.exit_code == 0 and "qualname: ELAPSED_TIME_LABEL" in result.output


def test_anchor_with_a_wrong_number_of_arguments(tmp_path):
    result = invoke("anchor", str(tmp_path))
    assert result.exit_code == 2 and "NOTES_FILE REPO_DIR" in result.output


def test_json_notes_file_round_trips(repos):
    entry = note_entry(read_notes(repos / "notes.yaml")[0])
    (repos / "n.json").write_text(json.dumps([entry]))
    assert read_notes(repos / "n.json")[0].anchor == read_notes(repos / "notes.yaml")[0].anchor
    done = anchor_notes_file(repos / "n.json", repos / "v1", everything=True)
    assert done == [("step", "re-anchored")]
    assert json.loads((repos / "n.json").read_text())[0]["dep_hash"] == entry["dep_hash"]


HEX = "a" * 64
FULL = f"raw_hash: {HEX}, norm_hash: {HEX}, dep_hash: {HEX}, deps: {{}}"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("notes: [", "could not be read or parsed"),
        ("- 3", "note 1 must be a mapping"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high}]", "missing required key 'approved'"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: urgent, approved: true}]", "'tier' must be high, medium or low"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high, approved: yes please}]", "'approved' must be true or false"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high, approved: true}]", "has no stored fingerprint"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high, approved: true, raw_hash: x, norm_hash: y}]",
         "fingerprint is incomplete"),
        (f"[{{id: a, text: t, path: p.py, qualname: f, tier: high, approved: true, {FULL.replace(HEX, 'x', 1)}}}]",
         "64 lowercase hex"),
        (f"[{{id: a, text: t, path: p.py, qualname: f, tier: high, approved: true, {FULL.replace('{}', '[1]')}}}]",
         "'deps' must map"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high, approved: true, colour: red}]", "unknown key(s) 'colour'"),
        ("{notes: [], extra: 1}", "unknown top-level key(s) 'extra'"),
        ("{anchor_dir: v1, notes: []}", "'anchor_dir' is not read any more"),
        ("notes: 5", "must be a list"),
    ],
)
def test_bad_notes_files_get_clear_errors(repos, content, message):
    path = repos / "bad.yaml"
    path.write_text(content)
    with pytest.raises(NotesFileError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        read_notes(path)
    result = invoke("check", str(path), str(repos / "v2"))
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_duplicate_ids_and_wrong_suffix(repos):
    dup = repos / "dup.yaml"
    dup.write_text((repos / "notes.yaml").read_text().replace("id: reset", "id: step"))
    with pytest.raises(NotesFileError, match="duplicate id 'step'"):
        read_notes(dup)
    txt = repos / "notes.txt"
    txt.write_text("[]")
    with pytest.raises(NotesFileError, match="must end in"):
        read_notes(txt)
    with pytest.raises(NotesFileError, match="does not exist"):
        read_notes(repos / "none.yaml")


def test_missing_repo_dir_is_a_clear_error(repos):
    result = invoke("check", str(repos / "notes.yaml"), str(repos / "nowhere"))
    assert result.exit_code == 1 and "does not exist" in result.output


def test_an_unexpected_error_is_one_line_without_traceback(repos, monkeypatch):
    import cvlib.notes.cli as notes_cli

    def boom(_):
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(notes_cli, "read_snapshot", boom)
    result = invoke("check", str(repos / "notes.yaml"), str(repos / "v2"))
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: RuntimeError: disk on fire (run `cvlib notes --debug ...` for the traceback)"]


def test_help_documents_the_format():
    result = invoke("check", "--help")
    assert "dep_hash" in result.output and "cvlib notes anchor" in result.output
    result = invoke("anchor", "--help")
    assert "NOTES_FILE REPO_DIR" in result.output and "REPO_DIR PATH QUALNAME" in result.output


TWO_DEEP = (
    "LIMIT = 10\nFACTOR = 2\n\n\ndef helper(x):\n    return x * FACTOR\n\n\n"
    "class Runner:\n"
    "    def step(self, n):\n"
    "        return min(helper(n), LIMIT)\n\n"
    "    def reset(self):\n"
    "        self.total = 0\n"
    "        self.log = []\n"
)


def _two_deep(tmp_path):
    for name in ("v1", "v2"):
        (tmp_path / name / "pkg").mkdir(parents=True)
    (tmp_path / "v1" / "pkg" / "runner.py").write_text(TWO_DEEP)
    (tmp_path / "v2" / "pkg" / "runner.py").write_text(TWO_DEEP.replace("LIMIT = 10", "LIMIT = 11").replace("FACTOR = 2", "FACTOR = 3"))
    (tmp_path / "notes.yaml").write_text(UNANCHORED)
    assert invoke("anchor", str(tmp_path / "notes.yaml"), str(tmp_path / "v1")).exit_code == 0
    return tmp_path


def test_check_names_the_nearest_changed_dependency_first(tmp_path):
    repos = _two_deep(tmp_path)
    result = invoke("check", str(repos / "notes.yaml"), str(repos / "v2"))
    assert result.exit_code == 0, result.output
    # LIMIT is read by step itself (depth 1); FACTOR only through helper (depth 2)
    assert "step: DEPENDENCY_CHANGED" in result.output
    assert "  reviewer: look first at LIMIT (module name)" in result.output
    assert "  changed: " not in result.output  # the full list, nearest first, only with --explain
    records = [json.loads(line) for line in invoke("check", "--json", str(repos / "notes.yaml"), str(repos / "v2")).output.splitlines()]
    step = next(r for r in records if r["id"] == "step")
    assert step["first_changed"] == {"label": "LIMIT", "kind": "module name", "depth": 1}
    reset = next(r for r in records if r["id"] == "reset")
    assert reset["status"] == "FRESH" and reset["first_changed"] is None


def test_explain_lists_every_changed_dependency_nearest_first(tmp_path):
    repos = _two_deep(tmp_path)
    result = invoke("check", "--explain", "step", str(repos / "notes.yaml"), str(repos / "v2"))
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines() if line.strip().startswith("changed:")]
    assert lines == ["changed: LIMIT (module name, depth 1)", "changed: FACTOR (module name, depth 2)"]


def test_explain_an_unknown_note_is_a_one_line_error(tmp_path):
    repos = _two_deep(tmp_path)
    result = invoke("check", "--explain", "nope", str(repos / "notes.yaml"), str(repos / "v2"))
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["error: --explain 'nope': '" + str(repos / "notes.yaml") + "' has no note with that id"]


def test_check_names_own_code_first_when_the_symbol_changed(tmp_path):
    repos = _two_deep(tmp_path)
    (repos / "v2" / "pkg" / "runner.py").write_text(TWO_DEEP.replace("min(helper(n), LIMIT)", "max(helper(n), LIMIT)"))
    result = invoke("check", str(repos / "notes.yaml"), str(repos / "v2"))
    assert "step: CHANGED" in result.output
    assert "  reviewer: look first at its own code (own code)" in result.output


COMMENTED = (
    "# Notes of the team, reviewed every release.\n"
    "notes:\n"
    "  # the step rule\n"
    "  - id: step           # the one agents get wrong\n"
    "    text: \"n is 0-based\"\n"
    "    path: pkg/runner.py\n"
    "    qualname: Runner.step\n"
    "    tier: high\n"
    "    approved: true\n"
    "\n"
    "  # kept short on purpose\n"
    "  - {id: reset, text: 'clears the log', path: pkg/runner.py, qualname: Runner.reset, tier: low, approved: true}\n"
)


def _comments_and_order(text: str) -> list[str]:
    """The comment lines, blank lines and keys of a notes file, in order (what a rewrite must keep)."""
    kept = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            kept.append(stripped)
        elif "#" in line:
            kept.append("#" + line.split("#", 1)[1])
    return kept


def test_anchor_keeps_the_comments_blank_lines_and_order_of_a_yaml_notes_file(repos):
    notes = repos / "commented.yaml"
    notes.write_text(COMMENTED)
    done = invoke("anchor", str(notes), str(repos / "v1"))
    assert done.exit_code == 0, done.output
    text = notes.read_text()
    assert _comments_and_order(text) == _comments_and_order(COMMENTED)
    assert text.startswith("# Notes of the team, reviewed every release.\nnotes:\n  # the step rule\n"
                           "  - id: step           # the one agents get wrong\n    text: \"n is 0-based\"\n")
    assert "\n\n  # kept short on purpose\n  - id: reset\n" in text  # the fingerprint lands above the gap
    assert [n.id for n in read_notes(notes)] == ["step", "reset"]
    assert all(len(n.anchor.dep_hash) == 64 for n in read_notes(notes))
    again = invoke("anchor", str(notes), str(repos / "v1"), "--all")
    assert again.exit_code == 0, again.output
    assert notes.read_text() == text  # re-anchoring the same code changes nothing, comments included


@pytest.mark.parametrize("command", [[], ["check"], ["anchor"]])
def test_help_is_plain_text(command):
    result = invoke(*command, "--help")
    assert result.exit_code == 0, result.output
    assert "`" not in result.output and ":func:" not in result.output and ":class:" not in result.output
