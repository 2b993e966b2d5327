"""Run the hostile inputs of :mod:`cvlib.experiments.robustness_cases` and tabulate what happened.

Each case runs in a child process of its own, in a fresh folder, under a
time limit and an address-space limit (``RLIMIT_AS``): an input that made
cvlib hang or allocate without bound shows up as a timeout or an "out of
memory" line instead of taking the machine down. What the child did becomes
an :class:`Outcome`: its exit status or the exception it raised, the one line
it printed, whether a traceback or a partial file was left, and, for a
damaged checkpoint, whether the result equals an undamaged run.

Every outcome is checked against what its case requires, and the book's
robustness page shows the same outcomes as a table, written from the runs
by::

    python -m cvlib.experiments.robustness --write book/robustness_table.md

and a test fails if the committed table differs from what the cases do now.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cvlib.experiments.robustness_cases import AREAS, CASES, FIXTURES, Case
from cvlib.repository import project_root

__all__ = [
    "MEMORY_LIMIT",
    "TIME_LIMIT",
    "Outcome",
    "checkpoint_trial",
    "main",
    "outcome_problems",
    "robustness_table",
    "run_case",
    "run_cases",
]

#: Seconds a case may take before it counts as a hang (three times this for papermill cases, which start a kernel).
TIME_LIMIT = 60
#: Address space a case's process may reserve, in bytes (4 GiB; the plans it refuses would need far more).
MEMORY_LIMIT = 4 << 30
#: Characters of a message the table shows.
_SHOWN = 220


@dataclass(frozen=True)
class Outcome:
    """What one case did.

    ``status`` is the exit status of a command, the class name of the
    exception an API call raised (``"ok"`` if none), ``"same as undamaged"``
    for a damaged checkpoint whose result equals an undamaged run, ``"timeout"``
    or ``"crashed"``. ``message`` is the line the user reads: the last line
    on stderr, the exception's message, or the warnings a checkpoint gave.
    """

    case_id: str
    status: int | str
    message: str
    stderr_lines: int
    stdout: str
    traceback: bool
    files_left: tuple[str, ...]
    equal: bool | None = None


# -- the parent side --------------------------------------------------------------------------------


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def run_case(case: Case, *, timeout: float | None = None) -> Outcome:
    """Run one case in a child process, in a fresh temporary folder, and say what it did.

    Parameters
    ----------
    case : Case
        The input to try.
    timeout : float or None
        Seconds before the child is killed and the case counts as a hang;
        None uses :data:`TIME_LIMIT` (three times that for papermill).

    Returns
    -------
    Outcome
    """
    limit = timeout if timeout is not None else TIME_LIMIT * (3 if case.kind == "papermill" else 1)
    workdir = Path(tempfile.mkdtemp(prefix="cvlib-hostile-"))
    try:
        for name in case.files:
            FIXTURES[name](workdir / name)
        before = _files(workdir)
        payload = json.dumps({"id": case.id, "root": str(project_root())})
        env = {**os.environ, **dict(case.env), "PYTHONDONTWRITEBYTECODE": "1"}
        command = [sys.executable, "-c", "from cvlib.experiments.robustness import _child; _child()", payload]
        proc = subprocess.Popen(
            command,
            cwd=workdir,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            process_group=0,  # its own process group, so a timeout kills everything it started
        )
        try:
            out, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return Outcome(case.id, "timeout", f"still running after {limit:.0f} s", 0, "", False, ())
        # A checkpoint or notes case makes its folders on purpose; a checkpoint's child reports the temporary files left.
        left = () if case.kind in {"checkpoint", "notes"} else tuple(sorted(_files(workdir) - before))
        return _outcome(case, proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), left)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _outcome(case: Case, code: int, out: str, err: str, left: tuple[str, ...]) -> Outcome:
    lines = [line for line in err.splitlines() if line.strip()]
    traceback = "Traceback (most recent call last)" in err
    if case.kind == "cli":
        message = err.strip() if case.multi_line else (lines[-1] if lines else "")
        return Outcome(case.id, code, message, len(lines), out, traceback, left)
    if case.kind == "notes":
        message = _note_x(out) if code == 0 else (lines[-1] if lines else "")
        return Outcome(case.id, code, message, len(lines), "", traceback, left)
    try:
        report = json.loads(out.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return Outcome(case.id, "crashed", lines[-1] if lines else f"exit status {code}", len(lines), out, traceback, left)
    stray = tuple(report.get("stray", ()))
    return Outcome(
        case.id, report["status"], report["message"], len(lines), "", traceback, left + stray, report.get("equal")
    )


def _note_x(out: str) -> str:
    """What ``cvlib notes check`` printed about note ``x``: its line and the indented lines under it."""
    said: list[str] = []
    for line in out.splitlines():
        if line.startswith("x: "):
            said.append(line.strip())
        elif said and line.startswith("  "):
            said.append(line.strip())
        elif said:
            break
    return " / ".join(said)


def run_cases(cases: Iterable[Case] = CASES, *, workers: int = 2) -> dict[str, Outcome]:
    """Run ``cases`` (default: all), ``workers`` child processes at a time.

    Parameters
    ----------
    cases : collections.abc.Iterable
    workers : int
        Children running at once.

    Returns
    -------
    dict
        Case id -> its outcome, in the cases' order.
    """
    cases = list(cases)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        outcomes = list(pool.map(run_case, cases))
    return {case.id: outcome for case, outcome in zip(cases, outcomes)}


def outcome_problems(case: Case, outcome: Outcome) -> list[str]:
    """Every way ``outcome`` falls short of what ``case`` demands; empty when it behaved.

    Parameters
    ----------
    case : Case
    outcome : Outcome

    Returns
    -------
    list of str
    """
    problems = []
    if outcome.status != case.status:
        problems.append(f"status {outcome.status!r}, expected {case.status!r}")
    for fragment in case.expect:
        if fragment not in outcome.message:
            problems.append(f"{fragment!r} is not in the message {outcome.message[:400]!r}")
    for fragment in case.absent:
        if fragment in outcome.message:
            problems.append(f"{fragment!r} is in the message {outcome.message[:400]!r}")
    if outcome.files_left:
        problems.append(f"partial files left: {list(outcome.files_left)}")
    if case.kind in {"cli", "notes"} and outcome.status != 0:
        if outcome.stdout:
            problems.append(f"something was printed on stdout: {outcome.stdout[:200]!r}")
        if not case.multi_line:
            if outcome.stderr_lines != 1:
                problems.append(f"{outcome.stderr_lines} lines on stderr, expected one")
            if outcome.traceback:
                problems.append("a traceback was printed")
            if not outcome.message.startswith("error: "):
                problems.append("the line does not start with 'error: '")
    elif outcome.traceback:
        problems.append("a traceback was printed")
    if case.kind == "notes" and outcome.status == 0 and outcome.stderr_lines:
        problems.append(f"{outcome.stderr_lines} lines on stderr")
    if case.kind == "checkpoint" and case.status == "same as undamaged" and outcome.equal is not True:
        problems.append("the result differs from an undamaged run")
    return problems


# -- the table ---------------------------------------------------------------------------------------


_MARKDOWN_PUNCTUATION = set("\\`*_{}[]<>()#+-.!|~$&:")


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, cut to a readable length, every Markdown character escaped.

    Plain text rather than code, so a message wraps between its words; a long
    word stays whole (the book's tables scroll inside their frame on a phone
    rather than break words). A zero-width space keeps ``--`` from being
    typeset as a dash (``--max-steps`` must read as the option it is).
    """
    text = " ".join(text.split()).replace("--", "-\u200b-")
    if len(text) > _SHOWN:
        text = text[: _SHOWN - 1] + "…"
    return "".join("\\" + c if c in _MARKDOWN_PUNCTUATION else c for c in text)


def _status_words(case: Case, outcome: Outcome) -> str:
    if case.kind == "notes" and outcome.status == 0:
        return "exit 0; the note is withheld"
    if case.kind in {"cli", "notes"}:
        return {0: "exit 0", 1: "exit 1 (runtime error)", 2: "exit 2 (usage error)"}.get(outcome.status, f"exit {outcome.status}")  # type: ignore[arg-type]
    if outcome.status == "same as undamaged":
        return "result equals an undamaged run" if outcome.equal else "WRONG RESULT"
    if outcome.status in {"timeout", "crashed"}:
        return str(outcome.status).upper()
    return f"raises {outcome.status}"


def _message_of(case: Case, outcome: Outcome) -> str:
    if case.multi_line:
        lines = outcome.message.splitlines()
        return f"traceback, then: {lines[-1] if lines else ''}"
    return outcome.message


def robustness_table(outcomes: dict[str, Outcome], cases: Sequence[Case] = CASES) -> str:
    """The robustness page's tables (Markdown): a summary by area, then every input tried, by area.

    Parameters
    ----------
    outcomes : dict
        Case id -> outcome, as :func:`run_cases` returns.
    cases : collections.abc.Sequence
        The cases, in the order to show them.

    Returns
    -------
    str
        Markdown for ``book/robustness_table.md``.
    """
    lines = [
        "<!-- Written by `python -m cvlib.experiments.robustness --write book/robustness_table.md`;",
        "     tests/experiments/test_hostile_inputs.py fails when it differs from what the cases do now. -->",
        "",
        "| Area | Inputs tried | Behaved as required | Tracebacks | Hangs | Partial files left |",
        "| :-- | --: | --: | --: | --: | --: |",
    ]
    for area in AREAS:
        mine = [c for c in cases if c.area == area and c.id in outcomes]
        if not mine:
            continue
        good = sum(1 for c in mine if not outcome_problems(c, outcomes[c.id]))
        tracebacks = sum(1 for c in mine if outcomes[c.id].traceback and not c.multi_line)
        hangs = sum(1 for c in mine if outcomes[c.id].status == "timeout")
        partial = sum(1 for c in mine if outcomes[c.id].files_left)
        lines.append(f"| {area} | {len(mine)} | {good} | {tracebacks} | {hangs} | {partial} |")
    for area in AREAS:
        mine = [c for c in cases if c.area == area and c.id in outcomes]
        if not mine:
            continue
        lines += [
            "",
            f":::{{dropdown}} {area[0].upper()}{area[1:]}: {len(mine)} inputs",
            "",
            "| Input tried | Outcome | What cvlib says |",
            "| :-- | :-- | :-- |",
        ]
        for case in mine:
            outcome = outcomes[case.id]
            lines.append(f"| {_cell(case.input)} | {_status_words(case, outcome)} | {_cell(_message_of(case, outcome))} |")
        lines += ["", ":::"]
    return "\n".join(lines) + "\n"


# -- the child side ----------------------------------------------------------------------------------


def _child() -> None:  # pragma: no cover - runs in the child process, measured by its outcome
    import resource

    # The memory limit is set here, first thing, rather than by a preexec_fn (unsafe
    # when the parent runs several cases from threads); it holds for every process
    # the case starts, a papermill kernel included.
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    payload = json.loads(sys.argv[1])
    case = next(c for c in CASES if c.id == payload["id"])
    if case.kind == "cli":
        _cli_child(case)
    elif case.kind == "api":
        _report(_api_child(case))
    elif case.kind == "notes":
        _notes_child(case)
    elif case.kind == "checkpoint":
        _report(checkpoint_trial(case.code))
    else:
        _report(_papermill_child(case, Path(payload["root"])))


def _report(report: dict[str, Any]) -> None:  # pragma: no cover - child side
    print(json.dumps(report))


#: The command line's module, which the child runs by name as ``python -m cvlib.presentation.cli`` would.
#: The harness drives the installed program from outside, as a user does, and imports nothing above its layer.
_COMMAND = "cvlib.presentation.cli"


def _run_command(args: Sequence[str], *, quiet: bool = False) -> None:  # pragma: no cover - child side
    """Run ``cvlib ARGS``; ``quiet`` for a set-up step: its output is dropped, and it must succeed."""
    import contextlib
    import io
    import runpy

    sys.argv = ["cvlib", *args]
    if not quiet:
        runpy.run_module(_COMMAND, run_name="__main__", alter_sys=True)
        return
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            runpy.run_module(_COMMAND, run_name="__main__", alter_sys=True)
        except SystemExit as done:
            if done.code not in (0, None):
                raise


def _cli_child(case: Case) -> None:  # pragma: no cover - child side
    if case.fault in {"bug", "memory"}:
        # Planted where the command finds it (it looks the scenario runner up when it starts), before it starts.
        from cvlib.scenarios import named

        def planted(*args: object, **kwargs: object) -> Any:
            if case.fault == "memory":
                raise MemoryError
            raise RuntimeError("a planted bug")

        named.run_scenario = planted
    _run_command(case.args)


def _notes_child(case: Case) -> None:  # pragma: no cover - child side
    """A repository with two anchored notes (``ok`` and ``x``), ``x.py`` damaged, then ``cvlib notes check``."""
    code = "def step(n):\n    return n + 1\n"
    repo, notes = Path("repo"), Path("notes.yaml")
    repo.mkdir()
    (repo / "ok.py").write_text(code)
    (repo / "x.py").write_text(code)
    notes.write_text(
        "notes:\n"
        "  - {id: ok, text: fine, path: ok.py, qualname: step, tier: high, approved: true}\n"
        "  - {id: x, text: target, path: x.py, qualname: step, tier: high, approved: true}\n"
    )
    _run_command(["notes", "anchor", str(notes), str(repo)], quiet=True)
    target = repo / "x.py"
    if case.code in {"fifo", "symlink_loop", "dangling", "outside", "binary"}:
        target.unlink()
    if case.code == "fifo":
        os.mkfifo(target)
    elif case.code == "symlink_loop":
        os.symlink("x.py", target)
    elif case.code == "dangling":
        os.symlink("nowhere.py", target)
    elif case.code == "outside":
        Path("outside.py").write_text(code)
        os.symlink(Path("outside.py").resolve(), target)
    elif case.code == "binary":
        target.write_bytes(b"\x00\x01\x02\xff\xfe" * 50)
    elif case.code == "notes_fifo":
        notes.unlink()
        os.mkfifo(notes)
    elif case.code == "repo_loop":
        repo = Path("loop")
        os.symlink("loop", repo)
    else:
        raise ValueError(f"unknown notes damage {case.code!r}")
    _run_command(["notes", "check", str(notes), str(repo)])


def _api_child(case: Case) -> dict[str, Any]:  # pragma: no cover - child side
    import cvlib as cv

    try:
        exec(case.code, {"cv": cv})  # noqa: S102 - the case's own code, from the table in this package
    except cv.CvlibError as err:
        return {"status": type(err).__name__, "message": str(err)}
    except BaseException as err:  # anything else is a failure of the case, shown as such
        return {"status": type(err).__name__, "message": f"{type(err).__name__}: {err}"[:2000]}
    return {"status": "ok", "message": ""}


def _papermill_child(case: Case, root: Path) -> dict[str, Any]:  # pragma: no cover - child side
    import runpy

    build = runpy.run_path(str(root / "book" / "build.py"))
    dest = Path("out.ipynb").resolve()
    try:
        build["execute"](root / "notebooks" / "value_change.ipynb", dest, json.loads(case.code))
    except build["BuildError"] as err:
        return {"status": "BuildError", "message": str(err)}
    return {"status": "ok", "message": ""}


# -- checkpoint trials -------------------------------------------------------------------------------

_CHUNK = 50


def _family(seed: int) -> Any:
    from cvlib.experiments.large_sweeps import RandomFamily

    return RandomFamily(seed=seed, count=200, max_steps=20)


def _manifest(folder: Path) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((folder / "sweep.json").read_text())
    return manifest


def _forge(folder: Path, chunk: int, **fields: Any) -> None:
    """Rewrite one manifest entry, as a user who wanted the damage to pass would."""
    import hashlib

    manifest = _manifest(folder)
    data = (folder / f"chunk-{chunk:06d}.parquet").read_bytes()
    entry = manifest["chunks"][str(chunk)]
    entry.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest(), **fields)
    (folder / "sweep.json").write_text(json.dumps(manifest))


def _rewrite_chunk(folder: Path, chunk: int, change: Any) -> None:
    import pyarrow.parquet as pq

    path = folder / f"chunk-{chunk:06d}.parquet"
    frame = pq.read_table(path).to_pandas()
    frame = change(frame)
    import pyarrow as pa

    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)


def _damage(name: str, ck: Path) -> Any:
    """Damage the finished checkpoint ``ck`` as the case says; return the family the sweep is run again with."""
    import fcntl
    import random as stdlib_random

    def chunk(i: int) -> Path:
        return ck / f"chunk-{i:06d}.parquet"

    if name == "edited":

        def edit(frame: Any) -> Any:
            frame.loc[0, "baseline_pfw"] += 1
            return frame

        _rewrite_chunk(ck, 1, edit)
    elif name == "copied":
        shutil.copyfile(chunk(0), chunk(2))
    elif name == "copied_forged":
        shutil.copyfile(chunk(0), chunk(2))
        _forge(ck, 2)
    elif name == "fewer_rows":
        _rewrite_chunk(ck, 1, lambda frame: frame.iloc[10:])
    elif name == "fewer_rows_forged":
        _rewrite_chunk(ck, 1, lambda frame: frame.iloc[10:])
        _forge(ck, 1, rows=40)
    elif name == "truncated":
        data = chunk(3).read_bytes()
        chunk(3).write_bytes(data[: len(data) // 2])
    elif name == "garbage_forged":
        chunk(0).write_bytes(bytes(stdlib_random.Random(0).getrandbits(8) for _ in range(3000)))
        _forge(ck, 0)
    elif name == "missing":
        chunk(2).unlink()
    elif name == "empty_dir":
        chunk(1).unlink()
        chunk(1).mkdir()
    elif name == "full_dir":
        chunk(1).unlink()
        chunk(1).mkdir()
        (chunk(1) / "notes.txt").write_text("mine")
    elif name == "symlink":
        shutil.copyfile(chunk(2), ck.parent / "elsewhere.parquet")
        chunk(2).unlink()
        chunk(2).symlink_to(ck.parent / "elsewhere.parquet")
    elif name == "manifest_deleted_other_seed":
        (ck / "sweep.json").unlink()
        return _family(6)
    elif name == "manifest_garbage":
        (ck / "sweep.json").write_bytes(b"\x00garbage{")
    elif name == "manifest_bad_entry":
        manifest = _manifest(ck)
        manifest["chunks"]["1"]["sha256"] = "not a hash"
        (ck / "sweep.json").write_text(json.dumps(manifest))
    elif name == "manifest_old_format":
        identity = _manifest(ck)["identity"]
        (ck / "sweep.json").write_text(json.dumps({k: identity[k] for k in ("spec", "tasks", "chunk_size")}))
    elif name == "stray_tmp":
        (ck / ".chunk-000001.parquet.x7f3.tmp").write_bytes(b"PAR1 torn")
        (ck / ".sweep.json.k2p9.tmp").write_text("{")
    elif name == "other_sweep":
        return _family(6)
    elif name == "manifest_dir":
        (ck / "sweep.json").unlink()
        (ck / "sweep.json").mkdir()
    elif name == "locked":
        fd = os.open(ck / ".lock", os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)  # held until this process ends, like a running sweep's
    else:
        raise ValueError(f"unknown damage {name!r}")
    return _family(5)


def checkpoint_trial(damage: str) -> dict[str, Any]:
    """Finish a small sweep into a checkpoint, damage it, run the sweep again, and compare.

    The sweep is 200 random plans (seed 5) in chunks of 50. After the damage,
    the same sweep (or, for some damages, one of seed 6) runs on the damaged
    folder; its result is compared with a sweep of the same family that
    never touched a checkpoint.

    Parameters
    ----------
    damage : str
        Which damage to do (the ``code`` of a checkpoint :class:`Case`).

    Returns
    -------
    dict
        ``status`` ("same as undamaged" when the result equals the undamaged run,
        "WRONG RESULT" when not, or the class of the error raised),
        ``message`` (the warnings, or the error), ``equal`` and ``stray``
        (temporary files left in the folder).
    """
    import warnings

    import pandas as pd

    from cvlib.core.errors import CvlibError
    from cvlib.experiments.checkpoints import CheckpointWarning
    from cvlib.experiments.large_sweeps import sweep

    ck = Path("ck")
    sweep(_family(5), chunk_size=_CHUNK, checkpoint=ck, progress=False)
    family = _damage(damage, ck)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CheckpointWarning)
        try:
            got = sweep(family, chunk_size=_CHUNK, checkpoint=ck, progress=False)
        except CvlibError as err:
            return {"status": type(err).__name__, "message": str(err), "equal": None, "stray": _stray(ck)}
    said = " / ".join(str(w.message) for w in caught if issubclass(w.category, CheckpointWarning)) or "no warning"
    undamaged = sweep(family, chunk_size=_CHUNK, progress=False)
    try:
        pd.testing.assert_frame_equal(got, undamaged)
        equal = True
    except AssertionError:
        equal = False
    again = sweep(family, chunk_size=_CHUNK, checkpoint=ck, progress=False)  # and the repaired folder is whole
    equal = equal and again.equals(undamaged)
    return {"status": "same as undamaged" if equal else "WRONG RESULT", "message": said, "equal": equal, "stray": _stray(ck)}


def _stray(ck: Path) -> list[str]:
    return sorted(f"ck/{p.name}" for p in ck.glob("*.tmp")) if ck.is_dir() else []


# -- the command ---------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cvlib.experiments.robustness [--write PATH]``: run every case, print or write the table.

    Parameters
    ----------
    argv : list or None

    Returns
    -------
    int
        0 if every case behaved, 1 otherwise (the problems are printed).
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", metavar="PATH", help="write the Markdown table here instead of printing it")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    outcomes = run_cases(workers=args.workers)
    table = robustness_table(outcomes)
    bad = 0
    for case in CASES:
        for problem in outcome_problems(case, outcomes[case.id]):
            bad += 1
            print(f"{case.id}: {problem}", file=sys.stderr)
    if args.write:
        Path(args.write).write_text(table, encoding="utf-8")
        print(f"wrote {args.write}: {len(outcomes)} cases in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    else:
        print(table)
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
