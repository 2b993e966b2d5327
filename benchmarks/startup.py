"""Start-up: a fresh interpreter running one short job, timed from outside, against the bare interpreter.

Each command runs as a child process; its CPU time is read from
``getrusage(RUSAGE_CHILDREN)`` (user + system, the child's own), its wall
time from the clock. The commands run interleaved with ``python -c pass``,
the floor no Python program goes below, so the ratio says how many bare
interpreter starts the job costs. With a checkout of the original
implementation, its scenario A in a fresh interpreter joins them.

Every child runs with bytecode caching on (``PYTHONDONTWRITEBYTECODE``
removed from its environment) and one warm-up run first, so each command is
timed as a user's second run finds it: the ``.pyc`` files of cvlib and of
the original written, the file cache warm.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def commands(original: str | None = None) -> dict[str, list[str]]:
    """The start-up jobs timed, by case name (the console script if installed, else ``python -m``).

    Parameters
    ----------
    original : str or None
        A checkout of the original implementation; adds ``original_cold_start``.

    Returns
    -------
    dict of str to list of str
    """
    from .original import COLD_START

    script = Path(sys.executable).with_name("cvlib")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "cvlib.presentation.cli"]
    jobs = {
        "interpreter": [sys.executable, "-c", "pass"],
        "cold_start": [sys.executable, "-c", "import cvlib; cvlib.run_scenario('A')"],
        "cli_cold_start": [*cli, "run", "A"],
        "cli_law": [*cli, "law"],
    }
    if original is not None:
        jobs["original_cold_start"] = [sys.executable, "-c", COLD_START]
    return jobs


def environment(name: str, original: str | None = None) -> dict[str, str]:
    """The environment a start-up child runs in: bytecode caching on; the original's folder on the path for its job.

    Parameters
    ----------
    name : str
        The job's name (see :func:`commands`).
    original : str or None
        A checkout of the original implementation.

    Returns
    -------
    dict of str to str
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if name == "original_cold_start" and original is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (original, env.get("PYTHONPATH", "")) if p)
    return env


def _child(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def measure(repeats: int, original: str | None = None) -> dict[str, dict[str, Any]]:
    """Every start-up command ``repeats`` times, interleaved; one summary per command."""
    jobs = commands(original)
    envs = {name: environment(name, original) for name in jobs}
    for name, command in jobs.items():  # warm the file cache and write the bytecode caches
        _child(command, envs[name])
    names = list(jobs)
    cpu: dict[str, list[float]] = {n: [] for n in names}
    wall: dict[str, list[float]] = {n: [] for n in names}
    for round_ in range(repeats):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            c, w = _child(jobs[name], envs[name])
            cpu[name].append(c)
            wall[name].append(w)
    return {
        n: {
            "runs": repeats,
            "cpu_median_s": statistics.median(cpu[n]),
            "cpu_min_s": min(cpu[n]),
            "cpu_max_s": max(cpu[n]),
            "wall_median_s": statistics.median(wall[n]),
            "command": " ".join(Path(jobs[n][0]).name if i == 0 else part for i, part in enumerate(jobs[n])),
        }
        for n in names
    }
