"""Sweeps: one random family through each backend, and how fast the processes backend's workers start.

Throughput: ``cv.sweep`` of the same seeded family on the serial backend, on
the processes backend and on Dask (the library's ``local_client``, started once, before the
timings, and handed to every sweep as ``client=``, as the law-at-scale
chapter does), interleaved. Parallel work happens in other processes, so the
sweeps are compared on **wall time** (CPU time of the calling process would
leave the workers out); the serial backend is the reference.

Start-up: a fresh interpreter running a tiny sweep on the processes backend,
with the library's fork server (workers forked from a server that imported
cvlib once) and, as the reference, with ``spawn`` (every worker a fresh
interpreter importing cvlib and pandas itself), interleaved, timed from
outside on wall time. ``python -m benchmarks.sweeps first forkserver|spawn``
is that child.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from typing import Any

import cvlib as cv

from .timing import interleaved

FAMILY_SEED = 2026


def throughput(count: int, repeats: int, workers: int = 2, chunk_size: int | None = None) -> dict[str, Any]:
    """Wall and CPU medians of one family swept on every backend, with the rows checked equal.

    Each parallel backend's efficiency (serial wall time over ``workers``
    times its own) is recorded: one minus it is everything a parallel sweep
    spends beyond dividing the work, scheduling, transfers and the wait for
    the last chunk together.
    """
    from cvlib.experiments.large_sweeps import auto_chunk_size, local_client

    # What a parallel sweep chooses for itself, given to all three so that they compute the same chunks.
    chunk_size = auto_chunk_size(count, "processes", workers) if chunk_size is None else chunk_size

    spec = cv.RandomFamily(seed=FAMILY_SEED, count=count)
    with local_client(workers) as client:
        jobs = {
            "serial": lambda: cv.sweep(spec, chunk_size=chunk_size, progress=False),
            "processes": lambda: cv.sweep(
                spec, backend="processes", workers=workers, chunk_size=chunk_size, progress=False
            ),
            "dask": lambda: cv.sweep(spec, backend="dask", client=client, chunk_size=chunk_size, progress=False),
        }
        first = {name: job() for name, job in jobs.items()}  # warm-up: the fork server, the cluster's imports
        for name, frame in first.items():
            if not frame.equals(first["serial"]):
                raise SystemExit(f"the {name} backend's rows differ from the serial backend's")
        timed = interleaved(jobs, repeats)
    column = "total_steps" if "total_steps" in first["serial"] else "steps"
    steps = int(first["serial"][column].sum())
    serial = timed["serial"]["wall_median_s"]
    for name in ("processes", "dask"):
        timed[name]["efficiency"] = serial / (workers * timed[name]["wall_median_s"])
    return {"plans": count, "steps": steps, "workers": workers, "chunk_size": chunk_size,
            "chunks": -(-count // chunk_size), "backends": timed}


def _first_sweep(method: str) -> None:
    """Child: one tiny sweep on the processes backend, its workers started by ``method``."""
    from cvlib.experiments import sweep_backends

    if method == "spawn":
        import multiprocessing

        sweep_backends._worker_context = lambda: multiprocessing.get_context("spawn")
    elif method != "forkserver":
        raise SystemExit(f"unknown start method {method!r}")
    cv.sweep(cv.RandomFamily(seed=1, count=40), backend="processes", workers=2, chunk_size=10, progress=False)


def startup(repeats: int) -> dict[str, Any]:
    """Wall time of a fresh interpreter's first processes sweep, fork server vs spawn, interleaved."""
    methods = ("forkserver", "spawn")
    wall: dict[str, list[float]] = {m: [] for m in methods}
    for round_ in range(repeats + 1):
        for method in methods if round_ % 2 == 0 else methods[::-1]:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "benchmarks.sweeps", "first", method], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if round_:  # the first round warms the file cache
                wall[method].append(time.perf_counter() - start)
    return {m: {"runs": repeats, "wall_median_s": statistics.median(w), "wall_min_s": min(w), "wall_max_s": max(w)}
            for m, w in wall.items()}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "first":
        _first_sweep(sys.argv[2])
    else:
        raise SystemExit("usage: python -m benchmarks.sweeps first forkserver|spawn")
