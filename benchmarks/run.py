"""Run the benchmark suite, print the table and save it to ``data/benchmarks/latest.json``.

Usage, from the repository root::

    python -m benchmarks            # every case, 5 runs each
    python -m benchmarks --quick    # sizes up to 10⁵ only
    python -m benchmarks --repeats 7 --cases chain_core grid

Each (case, size) runs in a fresh Python process, so the peak memory
reported (``ru_maxrss``) is that of the whole process doing that job, imports
included. Times are wall-clock medians of ``--repeats`` runs after one
warm-up; the growth exponent is the least-squares slope of log(median) against
log(steps) over the sizes measured from 10⁴ up. Timings belong here, never in
tests.

Both wall-clock and CPU time (:func:`time.process_time`) are recorded, with
the 1-minute load average. The targets, the exponent and the speed-ups are
judged on CPU time: on a 2-core machine shared with other jobs, wall-clock
time measures the scheduler as much as the code (the load average says how
much). On an idle machine the two agree to within a few per cent.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .cases import CASES, EXPONENT_TARGET, PEAK_TARGET_MIB, QUOTED, TARGETS
from .machine import describe

OUT = Path("data/benchmarks/latest.json")


def measure_one(case: str, size: int | None, repeats: int) -> dict:
    """Time one case at one size in this process (called in a child process by :func:`main`)."""
    function, _ = CASES[case]
    arg = size or 0
    function(arg)  # warm-up: imports, caches of the interpreter
    times, cpu_times = [], []
    steps = 0
    for _ in range(repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        steps = function(arg)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "case": case,
        "size": size,
        "steps": steps,
        "runs": repeats,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "cpu_median_s": statistics.median(cpu_times),
        "cpu_min_s": min(cpu_times),
        "cpu_max_s": max(cpu_times),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "peak_mib": round(peak_mib, 1),
    }


def _child(case: str, size: int | None, repeats: int) -> dict:
    command = [sys.executable, "-m", "benchmarks.run", "--one", case, str(size or 0), "--repeats", str(repeats)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def growth_exponent(rows: list[dict]) -> float | None:
    """Least-squares slope of log(median CPU time) against log(steps), over rows with at least 10⁴ steps."""
    points = [(math.log(r["steps"]), math.log(r["cpu_median_s"])) for r in rows if r["steps"] >= 10_000]
    if len(points) < 2:
        return None
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def annotate(rows: list[dict]) -> list[dict]:
    """Add each case's growth exponent, the quoted original figure, the speed-up and the target verdicts."""
    by_case: dict[str, list[dict]] = {}
    for row in rows:
        by_case.setdefault(row["case"], []).append(row)
    for case, case_rows in by_case.items():
        exponent = growth_exponent(case_rows)
        for row in case_rows:
            key = (case, row["size"])
            row["growth_exponent"] = None if exponent is None else round(exponent, 3)
            row["exponent_ok"] = None if exponent is None else exponent <= EXPONENT_TARGET
            quoted = QUOTED.get(key)
            row["quoted_original_s"] = quoted
            row["speedup_vs_quoted"] = None if quoted is None else round(quoted / row["cpu_median_s"], 1)
            target = TARGETS.get(key)
            row["target_s"] = target
            row["target_met"] = None if target is None else row["cpu_median_s"] <= target
            peak_target = PEAK_TARGET_MIB.get(key)
            row["peak_target_mib"] = peak_target
            row["peak_met"] = None if peak_target is None else row["peak_mib"] <= peak_target
    return rows


def format_table(rows: list[dict]) -> str:
    header = (
        f"{'case':<19} {'steps':>9} {'CPU med s':>9} {'CPU min–max s':>17} {'wall med s':>10} {'load':>5} "
        f"{'peak MiB':>8} {'exponent':>8} {'quoted s':>8} {'speed-up':>8}  target (on CPU time)"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        verdict = ""
        if r["target_s"] is not None:
            verdict = f"≤ {r['target_s']} s {'met' if r['target_met'] else 'MISSED'}"
        if r["peak_target_mib"] is not None:
            verdict += f"; ≤ {r['peak_target_mib']:.0f} MiB {'met' if r['peak_met'] else 'MISSED'}"
        exponent = "" if r["growth_exponent"] is None else f"{r['growth_exponent']:.2f}"
        quoted = "" if r["quoted_original_s"] is None else f"{r['quoted_original_s']:g}"
        speedup = "" if r["speedup_vs_quoted"] is None else f"{r['speedup_vs_quoted']:g}×"
        lines.append(
            f"{r['case']:<19} {r['steps']:>9} {r['cpu_median_s']:>9.4f} {r['cpu_min_s']:>8.4f}–{r['cpu_max_s']:<8.4f} "
            f"{r['median_s']:>10.4f} {r['load_average_1min']:>5.1f} "
            f"{r['peak_mib']:>8.1f} {exponent:>8} {quoted:>8} {speedup:>8}  {verdict}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="cvlib benchmark suite")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="sizes up to 10⁵ steps only")
    parser.add_argument("--cases", nargs="*", default=list(CASES))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--one", nargs=2, metavar=("CASE", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        case, size = args.one
        print(json.dumps(measure_one(case, int(size) or None, args.repeats)))
        return
    if args.repeats < 5:
        parser.error(f"--repeats must be at least 5 (medians of fewer runs are not worth printing), got {args.repeats}")
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; expected some of {', '.join(CASES)}")
    rows = []
    for case in args.cases:
        _, sizes = CASES[case]
        for size in sizes or (None,):
            if args.quick and size is not None and size > 100_000:
                continue
            rows.append(_child(case, size, args.repeats))
            print(f"  measured {case} at {rows[-1]['steps']} steps", file=sys.stderr)
    rows = annotate(rows)
    print(format_table(rows))
    record = {"machine": describe(), "repeats": args.repeats, "quick": args.quick, "rows": rows,
              "targets": {"exponent": EXPONENT_TARGET}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, out)
    print(f"saved {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
