"""Run the benchmark suite, print the table and save it to ``data/benchmarks/latest.json``.

Usage, from the repository root::

    python -m benchmarks                 # everything (a few minutes)
    python -m benchmarks --quick         # sizes up to 10⁵ steps, no sweeps
    python -m benchmarks --repeats 7 --only grid startup

Every timed case runs the library's job and the same job with the
step-by-step executors of ``tests/reference_executor.py`` (see
:mod:`benchmarks.reference`) in one fresh process, checks that both give the
same results, and times them interleaved; the ratio of their median CPU
times is the case's speed-up, measured in the same run on the same machine.
Start-up is compared with the bare interpreter, sweeps on parallel backends
with the serial one (on wall time: the work happens in other processes), and
peak memory with the reference job's, each in its own fresh process. The
original implementation's figures appear only as quoted figures, with where
they come from; nothing is divided by them except to say so.

Times are CPU time (:func:`time.process_time`) unless a field says wall: on a
2-core machine shared with other jobs, wall time measures the scheduler as
much as the code (the load averages, recorded, say how much). Timings belong
here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from .cases import CASES, PEAK_TARGET_MIB, QUOTED, QUOTED_SOURCE, TARGETS
from .machine import describe, load

OUT = Path("data/benchmarks/latest.json")
MILLION = 1_000_000

METHOD = (
    "CPU time (time.process_time) medians of interleaved repeats, each case in a fresh process; the library's job "
    "and the same job with the step-by-step executors of tests/reference_executor.py timed in the same run, their "
    "results checked equal, the ratio their medians' ratio. Start-up: child processes' CPU time (getrusage) against "
    "the bare interpreter. Sweeps: wall time against the serial backend. Peak memory: the process's maximum "
    "resident set."
)


# -- children ------------------------------------------------------------------------------------


def measure_pair(case: str, size: int, repeats: int) -> dict[str, Any]:
    """In this process: one case at one size, the library's job against the reference job, interleaved."""
    from .timing import interleaved

    make, _, unit = CASES[case]
    fast, reference, steps, comparable = make(size)
    # The warm-up runs, and the check that both compute the same thing (outside the timings).
    if comparable(fast()) != comparable(reference()):
        raise SystemExit(f"{case} at {size} {unit}: the library and the reference executors disagree")
    timed = interleaved({"fast": fast, "reference": reference}, repeats)
    return {
        "case": case,
        "size": size,
        "unit": unit,
        "steps": steps,
        "fast": timed["fast"],
        "reference": timed["reference"],
        "ratio": timed["reference"]["cpu_median_s"] / timed["fast"]["cpu_median_s"],
        "results_equal": True,
        "load_average": load(),
    }


def _python(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"benchmark child {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the parts ----------------------------------------------------------------------------------


def timed_cases(repeats: int, quick: bool, only: set[str]) -> list[dict[str, Any]]:
    rows = []
    for case, (_, sizes, _) in CASES.items():
        if case not in only:
            continue
        for size in sizes:
            if quick and size * (6 if case == "isolated_branches" else 1) > 100_000:
                continue
            row = _python("-m", "benchmarks.run", "--pair", case, str(size), "--repeats", str(repeats))
            rows.append(row)
            print(f"  {case} at {size:,} {row['unit']}: ×{row['ratio']:.0f}", file=sys.stderr)
    for case in {r["case"] for r in rows}:
        exponent = growth_exponent([r for r in rows if r["case"] == case])
        for r in rows:
            if r["case"] == case:
                r["growth_exponent"] = exponent
    for r in rows:
        key = (r["case"], r["size"])
        r["quoted_original_s"] = QUOTED.get(key)
        r["fast_vs_quoted"] = None if key not in QUOTED else QUOTED[key] / r["fast"]["cpu_median_s"]
        r["target_s"] = TARGETS.get(key)
        r["target_met"] = None if key not in TARGETS else r["fast"]["cpu_median_s"] <= TARGETS[key]
    return rows


def growth_exponent(rows: list[dict[str, Any]]) -> float | None:
    """Least-squares slope of log(median CPU time) against log(steps), over the sizes measured."""
    points = [(math.log(r["steps"]), math.log(r["fast"]["cpu_median_s"])) for r in rows]
    if len(points) < 2:
        return None
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    return round(sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points), 3)


def memory(quick: bool) -> dict[str, Any]:
    """Peak memory of a million-step scenario, the library's and the reference's, and of the bare import."""
    steps = 100_000 if quick else MILLION
    runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "fast": [], "reference": []}
    for _ in range(3):
        for job in runs:
            runs[job].append(_python("-m", "benchmarks.memory", job, str(0 if job == "baseline" else steps)))
    out: dict[str, Any] = {"steps": steps, "scenario": f"D1 (a chain of {steps:,} steps, its root fact broken)"}
    for job, got in runs.items():
        out[job] = {"peak_mib": statistics.median(r["peak_mib"] for r in got), "runs": len(got),
                    "cpu_median_s": statistics.median(r["cpu_s"] for r in got)}
    out["ratio"] = out["reference"]["peak_mib"] / out["fast"]["peak_mib"]
    out["target_mib"] = PEAK_TARGET_MIB
    out["target_met"] = out["fast"]["peak_mib"] <= PEAK_TARGET_MIB if steps == MILLION else None
    print(f"  peak memory at {steps:,} steps: {out['fast']['peak_mib']:.0f} MiB", file=sys.stderr)
    return out


def startup(repeats: int) -> dict[str, Any]:
    from .startup import measure

    got = measure(max(repeats, 15))
    floor = got["interpreter"]["cpu_median_s"]
    for name, row in got.items():
        row["ratio_to_interpreter"] = row["cpu_median_s"] / floor
        key = (name, 0)
        row["target_s"] = TARGETS.get(key)
        row["target_met"] = None if key not in TARGETS else row["cpu_median_s"] <= TARGETS[key]
        row["quoted_original_s"] = QUOTED.get(key)
    print(f"  cold start: {got['cold_start']['cpu_median_s']:.3f} s CPU", file=sys.stderr)
    return got


def sweeps(repeats: int, count: int) -> dict[str, Any]:
    from .sweeps import startup as sweep_startup
    from .sweeps import throughput

    result = {"throughput": throughput(count, repeats), "startup": sweep_startup(repeats)}
    serial = result["throughput"]["backends"]["serial"]["wall_median_s"]
    for row in result["throughput"]["backends"].values():
        row["speedup_vs_serial_wall"] = serial / row["wall_median_s"]
    return result


# -- the table ----------------------------------------------------------------------------------


def format_table(record: dict[str, Any]) -> str:
    lines = [f"measured {record['machine']['measured_at']} on {record['machine']['cores']} cores "
             f"({record['machine']['cpu']}), load {record['load_average_start']} → {record['load_average_end']}"]
    header = f"{'case':<18} {'size':>9} {'steps':>9} {'CPU med s':>10} {'reference s':>11} {'ratio':>7} {'quoted s':>8}  target"
    lines += [header, "-" * len(header)]
    for r in record["cases"]:
        target = ""
        if r["target_s"] is not None:
            target = f"≤ {r['target_s']} s {'met' if r['target_met'] else 'MISSED'}"
        quoted = "" if r["quoted_original_s"] is None else f"{r['quoted_original_s']:g}"
        lines.append(
            f"{r['case']:<18} {r['size']:>9,} {r['steps']:>9,} {r['fast']['cpu_median_s']:>10.4f} "
            f"{r['reference']['cpu_median_s']:>11.4f} {r['ratio']:>6.0f}× {quoted:>8}  {target}"
        )
    m = record.get("memory")
    if m:
        verdict = "" if m["target_met"] is None else f"≤ {m['target_mib']:.0f} MiB {'met' if m['target_met'] else 'MISSED'}"
        lines.append(f"peak memory, {m['steps']:,} steps: {m['fast']['peak_mib']:.0f} MiB (reference loop "
                     f"{m['reference']['peak_mib']:.0f} MiB, cvlib imported {m['baseline']['peak_mib']:.0f} MiB) {verdict}")
    s = record.get("startup")
    if s:
        for name in ("cold_start", "cli_cold_start", "cli_law"):
            row = s[name]
            verdict = "" if row["target_s"] is None else f"≤ {row['target_s']} s {'met' if row['target_met'] else 'MISSED'}"
            lines.append(f"{name:<15} {row['cpu_median_s']:.3f} s CPU ({row['ratio_to_interpreter']:.1f}× the bare "
                         f"interpreter's {s['interpreter']['cpu_median_s']:.3f} s) {verdict}")
    w = record.get("sweeps")
    if w:
        t = w["throughput"]
        for name, row in t["backends"].items():
            lines.append(f"sweep {t['plans']:,} plans, {name:<9} {row['wall_median_s']:.2f} s wall "
                         f"(×{row['speedup_vs_serial_wall']:.2f} vs serial)")
        st = w["startup"]
        lines.append(f"first processes sweep: fork server {st['forkserver']['wall_median_s']:.2f} s, "
                     f"spawn {st['spawn']['wall_median_s']:.2f} s (wall)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parts = ["cases", "memory", "startup", "breakdowns", "sweeps"]
    parser = argparse.ArgumentParser(description="cvlib benchmark suite")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="sizes up to 10⁵ steps, no sweeps")
    parser.add_argument("--only", nargs="*", default=None, help=f"some of: {', '.join(parts + list(CASES))}")
    parser.add_argument("--sweep-plans", type=int, default=20_000)
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--pair", nargs=2, metavar=("CASE", "SIZE"), help=argparse.SUPPRESS)
    parser.add_argument("--breakdown", choices=["grid", "chain", "branches"], help=argparse.SUPPRESS)
    parser.add_argument("--sweeps", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.sweeps:
        print(json.dumps(sweeps(args.repeats, args.sweeps)))
        return
    if args.pair:
        case, size = args.pair
        print(json.dumps(measure_pair(case, int(size), args.repeats)))
        return
    if args.breakdown:
        from .breakdown import grid_phases, scenario_phases

        if args.breakdown == "grid":
            got = grid_phases(args.repeats)
        elif args.breakdown == "chain":
            got = scenario_phases("chain", MILLION, args.repeats)
        else:
            got = scenario_phases("branches", 10_000, args.repeats)
        print(json.dumps(got))
        return
    if args.repeats < 5:
        parser.error(f"--repeats must be at least 5 (medians of fewer runs are not worth printing), got {args.repeats}")
    only = set(args.only or parts + list(CASES))
    unknown = sorted(only - set(parts) - set(CASES))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; expected some of {', '.join(parts + list(CASES))}")
    if "cases" in only:
        only |= set(CASES)
    record: dict[str, Any] = {"machine": describe(), "load_average_start": load(), "repeats": args.repeats,
                              "quick": args.quick, "method": METHOD, "quoted_source": QUOTED_SOURCE}
    record["cases"] = timed_cases(args.repeats, args.quick, only)
    if "memory" in only:
        record["memory"] = memory(args.quick)
    if "startup" in only:
        record["startup"] = startup(args.repeats)
    if "breakdowns" in only:
        record["breakdowns"] = {
            "grid": _python("-m", "benchmarks.run", "--breakdown", "grid", "--repeats", str(max(args.repeats, 15))),
        }
        record["breakdowns"]["branches"] = _python("-m", "benchmarks.run", "--breakdown", "branches",
                                                   "--repeats", str(args.repeats))
        if not args.quick:
            record["breakdowns"]["chain"] = _python("-m", "benchmarks.run", "--breakdown", "chain",
                                                    "--repeats", str(args.repeats))
        print("  breakdowns measured", file=sys.stderr)
    if "sweeps" in only and not args.quick:
        record["sweeps"] = _python("-m", "benchmarks.run", "--sweeps", str(args.sweep_plans),
                                   "--repeats", str(max(3, args.repeats // 2)))
        print("  sweeps measured", file=sys.stderr)
    record["load_average_end"] = load()
    print(format_table(record))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, out)
    print(f"saved {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
