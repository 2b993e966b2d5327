"""A parallel sweep works however the sweeping program was started: a script, ``python -c``, standard input.

Workers started by the fork server (or spawned, as Dask's are) used to
re-run the main script first: a script read from standard input died with a
raw ``BrokenProcessPool`` and a script without a ``__main__`` guard started
its sweep again in every worker. Each case runs a small sweep in a fresh
interpreter and checks it gives the serial rows; nothing is timed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SWEEP = (
    "import cvlib as cv\n"
    "spec = cv.RandomFamily(seed=3, count=24)\n"
    "rows = cv.sweep(spec, backend={backend!r}, workers=2, chunk_size=6, progress=False)\n"
    "print(len(rows), rows.equals(cv.sweep(spec, chunk_size=6, progress=False)))\n"
)
OWN_SPEC = (
    "import cvlib as cv\n"
    "class Mine(cv.RandomFamily):\n"
    "    pass\n"
    "cv.sweep(Mine(seed=3, count=4), backend='processes', workers=2, chunk_size=2, progress=False)\n"
)


def _python(args: list[str], *, stdin: str | None = None, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


@pytest.mark.parametrize("how", ["script without a main guard", "python -c", "script on standard input"])
def test_a_processes_sweep_runs_from_any_entry_point(how: str, tmp_path: Path) -> None:
    code = SWEEP.format(backend="processes")
    if how == "python -c":
        done = _python(["-c", code], cwd=tmp_path)
    elif how == "script on standard input":
        done = _python(["-"], stdin=code, cwd=tmp_path)
    else:
        (tmp_path / "sweep_it.py").write_text(code)
        done = _python([str(tmp_path / "sweep_it.py")], cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["24", "True"]


def test_a_dask_sweep_runs_from_standard_input(tmp_path: Path) -> None:
    done = _python(["-"], stdin=SWEEP.format(backend="dask"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["24", "True"]


def test_a_spec_defined_on_standard_input_is_refused_in_one_line(tmp_path: Path) -> None:
    done = _python(["-"], stdin=OWN_SPEC, cwd=tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("cvlib.core.errors.SweepError: this sweep's spec or policies are defined in '<stdin>'")
    assert "BrokenProcessPool" not in done.stderr
