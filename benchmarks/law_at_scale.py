"""The largest law-at-scale run: a seeded random family through the Dask backend, recorded to JSON.

Run it as ``python -m benchmarks.law_at_scale --plans 1000000`` from the
repository root. It checkpoints to ``--checkpoint`` (resumable), and writes
``data/benchmarks/law_at_scale_largest.json``: the parameters, the wall time
(a LocalCluster started before the clock and handed to the sweep as
``client=``), the plan-size distribution and the mismatches, with the
machine, the date and the load averages, which the chapter "The law at scale"
shows as a recorded run.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import cvlib as cv

from .machine import describe, load

OUT = Path("data/benchmarks/law_at_scale_largest.json")


def summarize(
    frame, *, seed: int, family: str, max_steps: int, chunk_size: int, workers: int, seconds: float, loads: list
) -> dict:
    """What the chapter reports about one run (no per-plan rows)."""
    steps = frame["total_steps"]
    quantiles = {f"q{int(q * 100):02d}": int(steps.quantile(q, interpolation="lower")) for q in (0.1, 0.5, 0.9, 0.99)}
    bins = [1, 2, 5, 10, 20, 50, 100, 200, 500]
    edges = [b for b in bins if b <= int(steps.max())] + [int(steps.max()) + 1]
    histogram = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        if hi <= lo:
            continue
        histogram.append({"from": lo, "to": hi - 1, "plans": int(((steps >= lo) & (steps < hi)).sum())})
    return {
        "label": "recorded run (not re-executed by the chapter)",
        "plans": int(len(frame)),
        "seed": seed,
        "family": family,
        "max_steps": max_steps,
        "chunk_size": chunk_size,
        "backend": "dask",
        "workers": workers,
        "seconds": round(seconds, 1),
        "plans_per_second": round(len(frame) / seconds, 1),
        "law_mismatches": int((~frame["law_holds"]).sum()),
        "validity_pfw_nonzero": int((frame["validity_aware_pfw"] != 0).sum()),
        "total_steps": int(steps.sum()),
        "steps": {"min": int(steps.min()), "mean": round(float(steps.mean()), 2), "max": int(steps.max()), **quantiles},
        "steps_histogram": histogram,
        "families": {k: int(v) for k, v in frame["family"].value_counts().sort_index().items()},
        "plans_with_breaks": int((frame["broken_facts"] > 0).sum()),
        "plans_with_pfw": int((frame["baseline_pfw"] > 0).sum()),
        "load_average_start_end": loads,
        "machine": describe(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plans", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--family", default="mixed")
    parser.add_argument("--max-steps", type=int, default=60)
    parser.add_argument("--chunk-size", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--checkpoint", default=None, help="folder for resumable chunks")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    spec = cv.RandomFamily(seed=args.seed, count=args.plans, family=args.family, max_steps=args.max_steps)
    loads = [load()[0]]
    # The cluster is started before the clock, as a user with a running cluster would have it.
    with cv.large_sweeps.local_client(args.workers) as client:
        start = time.perf_counter()
        frame = cv.sweep(spec, backend="dask", client=client, chunk_size=args.chunk_size, checkpoint=args.checkpoint,
                         progress=True)
        seconds = time.perf_counter() - start
    loads.append(load()[0])
    record = summarize(
        frame,
        seed=args.seed,
        family=args.family,
        max_steps=args.max_steps,
        chunk_size=args.chunk_size,
        workers=args.workers,
        seconds=seconds,
        loads=loads,
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, out)
    print(json.dumps({k: v for k, v in record.items() if k != "machine"}, indent=1))


if __name__ == "__main__":
    main()
