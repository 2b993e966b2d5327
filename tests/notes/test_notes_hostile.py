"""Hostile notes repositories: every input gives a status or a one-line error, never a hang or a traceback.

Each case builds a clean repository, writes a notes file with fingerprints
taken there, then damages the repository (or the notes file) and checks it
through the API and through ``cvlib notes check`` run as a separate process
with a timeout, so that a FIFO that made the check wait would fail the test
instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cvlib.notes import Status, SymbolIndex, Unreadable, anchor, locate, read_snapshot
from cvlib.notes.notesfile import anchor_notes_file

GOOD = "def step(n):\n    return n + 1\n"
TIMEOUT = 60  # seconds: far above a normal check (well under one), far below a hang


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from cvlib.presentation.cli import main; sys.argv = ['cvlib', *sys.argv[1:]]; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "ok.py").write_text(GOOD)
    (root / "x.py").write_text(GOOD)
    notes = tmp_path / "notes.yaml"
    notes.write_text(
        "notes:\n"
        "  - {id: ok, text: fine, path: ok.py, qualname: step, tier: high, approved: true}\n"
        "  - {id: x, text: target, path: x.py, qualname: step, tier: high, approved: true}\n"
    )
    anchor_notes_file(notes, root)
    return root, notes


def _damage(root: Path, kind: str, tmp_path: Path) -> None:
    target = root / "x.py"
    target.unlink()
    if kind == "symlink loop":
        os.symlink("x.py", target)
    elif kind == "two-link loop":
        os.symlink("y.py", target)
        os.symlink("x.py", root / "y.py")
    elif kind == "dangling symlink":
        os.symlink("nowhere.py", target)
    elif kind == "symlink out of the repository":
        outside = tmp_path / "outside.py"
        outside.write_text(GOOD)
        os.symlink(outside, target)
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "directory named x.py":
        target.mkdir()
    elif kind == "binary":
        target.write_bytes(b"\x00\x01\x02\xff\xfe" * 50)
    elif kind == "not utf-8":
        target.write_bytes("def step(n):\n    return 'é' + n\n".encode("latin-1"))
    elif kind == "symlink inside the repository":
        (root / "real.py").write_text(GOOD)
        os.symlink("real.py", target)
    else:  # pragma: no cover
        raise AssertionError(kind)


CASES = [
    ("symlink loop", Status.UNREADABLE, "symlink loop"),
    ("two-link loop", Status.UNREADABLE, "symlink loop"),
    ("dangling symlink", Status.UNREADABLE, "dangling symlink"),
    ("symlink out of the repository", Status.UNREADABLE, "outside the repository"),
    ("fifo", Status.UNREADABLE, "not a regular file"),
    ("directory named x.py", Status.MISSING, ""),
    ("binary", Status.UNPARSABLE, ""),
    ("not utf-8", Status.UNPARSABLE, ""),
    ("symlink inside the repository", Status.FRESH, ""),
]


@pytest.mark.parametrize(("kind", "status", "reason"), CASES, ids=[c[0] for c in CASES])
def test_hostile_file_gives_a_status(repo, tmp_path, kind, status, reason):
    root, notes = repo
    _damage(root, kind, tmp_path)
    from cvlib.notes import read_notes

    loaded = {n.id: n for n in read_notes(notes)}
    index = SymbolIndex.from_snapshot(read_snapshot(root))
    where = locate(loaded["x"], index)
    assert where.status is status
    assert reason in where.reason
    assert locate(loaded["ok"], index).status is Status.FRESH  # the rest of the tree is still checked
    done = _cli("notes", "check", str(notes), str(root))
    assert done.returncode == 0, done.stderr
    assert f"x: {status.name}" in done.stdout and "Traceback" not in done.stderr + done.stdout
    if status is not Status.FRESH:
        assert "agent sees: target" not in done.stdout


def test_symlink_out_of_the_repository_is_never_read(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    secret = tmp_path / "secret.py"
    secret.write_text("TOKEN = 'do not read me'\n")
    os.symlink(secret, root / "leak.py")
    snapshot = read_snapshot(root)
    assert isinstance(snapshot["leak.py"], Unreadable)
    assert "do not read me" not in repr(snapshot)


def test_symlinked_directory_loop_is_not_walked(tmp_path):
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text(GOOD)
    os.symlink("..", root / "pkg" / "up")
    os.symlink(".", root / "self")
    assert list(read_snapshot(root)) == ["pkg/a.py"]


def test_unreadable_file_is_reported(repo, monkeypatch):
    root, _ = repo
    real_open = os.open

    def refuse(path, *args, **kwargs):
        if str(path).endswith("x.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    snapshot = read_snapshot(root)
    assert snapshot["x.py"] == Unreadable("permission denied")
    stored = anchor({"x.py": GOOD}, "x.py", "step")
    assert locate(stored, snapshot).status is Status.UNREADABLE


def test_cannot_anchor_on_an_unreadable_file(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    os.symlink("x.py", root / "x.py")
    from cvlib.notes import UnknownSymbolError

    with pytest.raises(UnknownSymbolError, match="cannot be read"):
        anchor(read_snapshot(root), "x.py", "step")


NOTES_FILE_CASES = ["fifo", "symlink loop", "binary", "not utf-8", "directory"]


@pytest.mark.parametrize("kind", NOTES_FILE_CASES)
def test_hostile_notes_file_gives_a_one_line_error(repo, kind):
    root, notes = repo
    notes.unlink()
    if kind == "fifo":
        os.mkfifo(notes)
    elif kind == "symlink loop":
        os.symlink(notes.name, notes)
    elif kind == "binary":
        notes.write_bytes(b"\x00\xff" * 100)
    elif kind == "not utf-8":
        notes.write_bytes("notes: [{id: 'é'}]\n".encode("latin-1"))
    else:
        notes.mkdir()
    done = _cli("notes", "check", str(notes), str(root))
    assert done.returncode == 1  # what was read is wrong: a runtime error
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "notes file" in lines[0]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("kind", ["missing", "symlink loop", "fifo", "file"])
def test_hostile_repository_directory_gives_a_one_line_error(repo, tmp_path, kind):
    _, notes = repo
    bad = tmp_path / "bad"
    if kind == "symlink loop":
        os.symlink("bad", bad)
    elif kind == "fifo":
        os.mkfifo(bad)
    elif kind == "file":
        bad.write_text("x")
    done = _cli("notes", "check", str(notes), str(bad))
    assert done.returncode == 1, done.stderr  # the folder cannot be read: a runtime error
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in done.stderr
