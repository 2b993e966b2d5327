"""How the suite times things: CPU time, repeats, interleaving, medians.

On a 2-core machine shared with other jobs, wall-clock time measures the
scheduler as much as the code, so every in-process job is timed on CPU time
(:func:`time.process_time`), wall time recorded beside it; jobs that are
compared run interleaved (A B, B A, A B, …) so that a change in the machine's
load during the run touches both alike.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def summary(cpu: list[float], wall: list[float]) -> dict[str, Any]:
    """Median, min and max of the CPU times, and the median wall time."""
    return {
        "runs": len(cpu),
        "cpu_median_s": statistics.median(cpu),
        "cpu_min_s": min(cpu),
        "cpu_max_s": max(cpu),
        "wall_median_s": statistics.median(wall),
    }


def interleaved(
    jobs: dict[str, Callable[[], Any]], repeats: int, limits: dict[str, int] | None = None
) -> dict[str, dict[str, Any]]:
    """Time each job ``repeats`` times, rotating their order every round; one summary per job.

    ``limits`` caps some jobs' runs (a job of half a minute is timed in the
    first rounds only, still interleaved with the others).
    """
    names = list(jobs)
    limits = limits or {}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    wall: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(repeats):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            if len(cpu[name]) >= limits.get(name, repeats):
                continue
            start, cpu_start = time.perf_counter(), time.process_time()
            jobs[name]()
            cpu[name].append(time.process_time() - cpu_start)
            wall[name].append(time.perf_counter() - start)
    return {name: summary(cpu[name], wall[name]) for name in names}
