"""Start-up: a fresh interpreter running one short job, timed from outside, against the bare interpreter.

Each command runs as a child process; its CPU time is read from
``getrusage(RUSAGE_CHILDREN)`` (user + system, the child's own), its wall
time from the clock. The commands run interleaved with ``python -c pass``,
the floor no Python program goes below, so the ratio says how many bare
interpreter starts the job costs.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def commands() -> dict[str, list[str]]:
    """The start-up jobs timed, by case name (the console script if installed, else ``python -m``)."""
    script = Path(sys.executable).with_name("cvlib")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "cvlib.presentation.cli"]
    return {
        "interpreter": [sys.executable, "-c", "pass"],
        "cold_start": [sys.executable, "-c", "import cvlib; cvlib.run_scenario('A')"],
        "cli_cold_start": [*cli, "run", "A"],
        "cli_law": [*cli, "law"],
    }


def _child(command: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def measure(repeats: int) -> dict[str, dict[str, Any]]:
    """Every start-up command ``repeats`` times, interleaved; one summary per command."""
    jobs = commands()
    for command in jobs.values():  # warm the file cache and the bytecode caches
        _child(command)
    names = list(jobs)
    cpu: dict[str, list[float]] = {n: [] for n in names}
    wall: dict[str, list[float]] = {n: [] for n in names}
    for round_ in range(repeats):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            c, w = _child(jobs[name])
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
