"""Notes files and the ``cvlib notes`` commands (cvlib/notes/notesfile.py, cvlib/notes/cli.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cvlib.presentation.cli import main
from cvlib.notes import NotesFileError, Tier
from cvlib.notes.notesfile import note_entry, read_notes

V1 = "class Runner:\n    def step(self, n):\n        return self.count + n + 1\n\n    def reset(self):\n        self.count = 0\n        self.log = []\n"


@pytest.fixture
def repos(tmp_path):
    (tmp_path / "v1" / "pkg").mkdir(parents=True)
    (tmp_path / "v1" / "pkg" / "runner.py").write_text(V1)
    (tmp_path / "v2" / "pkg").mkdir(parents=True)
    (tmp_path / "v2" / "pkg" / "runner.py").write_text(
        V1.replace("n + 1", "n + 1  # on purpose").replace("def reset", "def restart")
    )
    (tmp_path / "notes.yaml").write_text(
        "anchor_dir: v1\nnotes:\n"
        "  - {id: step, text: 'n is 0-based', path: pkg/runner.py, qualname: Runner.step, tier: high, approved: true}\n"
        "  - {id: reset, text: 'clears the log', path: pkg/runner.py, qualname: Runner.reset, tier: high, approved: true}\n"
        "  - {id: low, text: 'low tier', path: pkg/runner.py, qualname: Runner.step, tier: low, approved: true}\n"
    )
    return tmp_path


def test_check_prints_status_and_what_the_agent_sees(repos):
    result = CliRunner().invoke(main, ["notes", "check", str(repos / "notes.yaml"), str(repos / "v2")])
    assert result.exit_code == 0, result.output
    assert "step: FRESH" in result.output
    assert "agent sees: n is 0-based" in result.output
    assert "reset: RENAMED" in result.output and "moved to pkg/runner.py::Runner.restart" in result.output
    assert "clears the log" not in result.output  # withheld means absent
    assert "3 notes: 1 shown, 2 withheld" in result.output


def test_check_json(repos):
    result = CliRunner().invoke(main, ["notes", "check", "--json", str(repos / "notes.yaml"), str(repos / "v2")])
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [(r["id"], r["status"], r["agent_sees"]) for r in rows] == [
        ("step", "FRESH", "n is 0-based"), ("reset", "RENAMED", None), ("low", "FRESH", None),
    ]


def test_anchor_prints_an_entry_that_reads_back(repos):
    result = CliRunner().invoke(main, ["notes", "anchor", str(repos / "v1"), "pkg/runner.py", "Runner.step", "--text", "hi", "--approved"])
    assert result.exit_code == 0, result.output
    (repos / "pasted.yaml").write_text(result.output)
    notes = read_notes(repos / "pasted.yaml")
    assert notes[0].tier is Tier.HIGH and notes[0].approved and len(notes[0].anchor.norm_hash) == 64
    assert note_entry(notes[0])["text"] == "hi"


def test_json_notes_file_with_hashes(repos):
    entry = note_entry(read_notes(repos / "notes.yaml")[0])
    (repos / "n.json").write_text(json.dumps([entry]))
    assert read_notes(repos / "n.json")[0].anchor.qualname == "Runner.step"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("notes: [", "could not be parsed"),
        ("- 3", "note 1 must be a mapping"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high}]", "missing required key 'approved'"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: urgent, approved: true}]", "'tier' must be high, medium or low"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high, approved: yes please}]", "'approved' must be true or false"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high, approved: true}]", "no 'raw_hash'/'norm_hash'"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high, approved: true, raw_hash: x, norm_hash: y}]", "64 lowercase hex"),
        ("[{id: a, text: t, path: p.py, qualname: f, tier: high, approved: true, colour: red}]", "unknown key(s) 'colour'"),
        ("{notes: [], extra: 1}", "unknown top-level key(s) 'extra'"),
        ("{anchor_dir: nowhere, notes: []}", "'anchor_dir'"),
        ("{anchor_dir: v1, notes: [{id: a, text: t, path: pkg/runner.py, qualname: Nope, tier: high, approved: true}]}", "does not define it"),
        ("notes: 5", "must be a list"),
    ],
)
def test_bad_notes_files_get_clear_errors(repos, content, message):
    path = repos / "bad.yaml"
    path.write_text(content)
    with pytest.raises(NotesFileError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        read_notes(path)
    result = CliRunner().invoke(main, ["notes", "check", str(path), str(repos / "v2")])
    assert result.exit_code == 2
    assert result.output.startswith("error: ") and "Traceback" not in result.output


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
    result = CliRunner().invoke(main, ["notes", "check", str(repos / "notes.yaml"), str(repos / "nowhere")])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_help_documents_the_format():
    result = CliRunner().invoke(main, ["notes", "check", "--help"])
    assert "anchor_dir" in result.output and "norm_hash" in result.output
