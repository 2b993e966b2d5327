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
with the serial one, a local language model is timed on its own (load, tokens
per second, seconds per decision and per edit trial, when the model packages
are installed) (on wall time: the work happens in other processes), and
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
import tempfile
import time
from pathlib import Path
from typing import Any

from .cases import CASES, FAMILY_SEED, PEAK_TARGET_MIB, QUOTED, QUOTED_PEAK_MIB, QUOTED_SOURCE, TARGETS
from .machine import describe, load
from .report import format_table, mark_busy, verdicts

OUT = Path("data/benchmarks/latest.json")
MILLION = 1_000_000
#: A job longer than this (CPU seconds) is timed in three rounds only.
LONG_S = 5.0

METHOD = (
    "CPU time (time.process_time) medians of interleaved repeats, each case in a fresh process; the library's job "
    "and the same job with the step-by-step executors of tests/reference_executor.py timed in the same run, their "
    "results checked equal, the ratio their medians' ratio. Start-up: child processes' CPU time (getrusage) against "
    "the bare interpreter. Sweeps: wall time against the serial backend. Peak memory: the process's maximum "
    "resident set."
)


#: What the record says of the original when it was run (the folder is the reader's, so it is not recorded).
ORIGINAL_SOURCE = (
    "the original implementation (Emmimal/context-validity-benchmark), run in the same run from a checkout given "
    "with --original, its results checked equal to cvlib's before timing"
)


# -- children ------------------------------------------------------------------------------------


def measure_pair(case: str, size: int, repeats: int, original: str | None = None) -> dict[str, Any]:
    """In this process: one case at one size, the library's job against the reference job, interleaved.

    With ``original`` (a checkout of the original implementation), the
    original's job joins the interleaving where :func:`benchmarks.original.runs`
    says it can, its results checked equal to cvlib's first; a job of more than
    ``LONG_S`` seconds is timed in the first three rounds only.
    """
    from . import original as orig
    from .timing import interleaved

    before = load()
    make, _, unit = CASES[case]
    fast, reference, steps, comparable = make(size)
    # The warm-up runs, and the check that both compute the same thing (outside the timings).
    got = fast()
    if comparable(got) != comparable(reference()):
        raise SystemExit(f"{case} at {size} {unit}: the library and the reference executors disagree")
    jobs = {"fast": fast, "reference": reference}
    limits: dict[str, int] = {}
    if case == "random_family":
        from . import floor

        plan_steps = plan_sizes(size)
        floor_rows = floor.family(FAMILY_SEED, plan_steps)
        if not floor.law_holds(floor_rows):
            raise SystemExit("the floor's own plans break the law: its loops are wrong")
        jobs["floor"] = lambda: floor.family(FAMILY_SEED, plan_steps)
    if original is not None and orig.runs(case, size):
        job, original_comparable = orig.job(orig.load(original), case, size)
        start = time.process_time()
        if original_comparable(job()) != orig.comparable_fast(case, got):
            raise SystemExit(f"{case} at {size} {unit}: cvlib and the original disagree")
        if time.process_time() - start > LONG_S:
            limits["original"] = 3
        jobs["original"] = job
    timed = interleaved(jobs, repeats, limits)
    row: dict[str, Any] = {
        "case": case,
        "size": size,
        "unit": unit,
        "steps": steps,
        "fast": timed["fast"],
        "reference": timed["reference"],
        "ratio": timed["reference"]["cpu_median_s"] / timed["fast"]["cpu_median_s"],
        "results_equal": True,
    }
    if "floor" in timed:
        row["floor"] = timed["floor"]
        row["per_plan_us"] = {name: 1e6 * timed[name]["cpu_median_s"] / size for name in ("fast", "reference", "floor")}
        row["fast_vs_floor"] = timed["fast"]["cpu_median_s"] / timed["floor"]["cpu_median_s"]
    if "original" in timed:
        row["original"] = timed["original"]
        row["original_results_equal"] = True
        row["original_vs_fast"] = timed["original"]["cpu_median_s"] / timed["fast"]["cpu_median_s"]
        row["original_vs_reference"] = timed["original"]["cpu_median_s"] / timed["reference"]["cpu_median_s"]
    row["load_before"], row["load_after"] = before, load()
    return row


def plan_sizes(count: int) -> list[int]:
    """The number of steps of each plan of the timed random family (the floor's plans get the same)."""
    import cvlib as cv

    return [len(s.plan) for s in cv.random_plans.random_setups(FAMILY_SEED, count)]


def _python(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"benchmark child {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the parts ----------------------------------------------------------------------------------


#: Rounds of the sweep rows (each about 8 s for 40,000 plans). A parallel sweep now and then runs at nearly serial
#: speed on this shared 2-core machine (3 of 21 runs on 2026-12-01, while nothing else was running), so the
#: median needs enough rounds to leave such a run out: with 7, up to 3 can be.
SWEEP_REPEATS = 7

#: The models the suite's ``models`` part measures (the three of the studies), the thread counts (one per
#: recording worker, and both cores), and the model whose recording layouts are compared (the studies' middle one).
MODELS = ("smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
MODEL_THREADS = (1, 2)
LAYOUT_MODEL = "qwen2.5-coder-0.5b"


def _child(module: str, *args: str) -> dict[str, Any]:
    """Run ``python -m module ... --save FILE`` in a fresh process (one model in memory at a time) and read FILE."""
    with tempfile.TemporaryDirectory() as folder:
        saved = Path(folder) / "result.json"
        done = subprocess.run([sys.executable, "-m", module, *args, "--save", str(saved)], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"benchmark child {module} {' '.join(args)} failed:\n{done.stderr[-2000:]}")
        return json.loads(saved.read_text())


def _measured(module: str, *args: str) -> dict[str, Any]:
    """A child's result with the loads around it and the cores others kept busy during it."""
    from .machine import OthersMeter

    before, meter = load(), OthersMeter()
    meter.start()
    row = _child(module, *args)
    row.pop("machine", None)
    row["others_cores_during"] = meter.stop()
    row["load_before"], row["load_after"] = before, load()
    return row


def models_part(models: tuple[str, ...] = MODELS, threads: tuple[int, ...] = MODEL_THREADS, *, rows: bool = True,
                layout: bool = True, kept: dict[str, Any] | None = None) -> dict[str, Any]:
    """Per model and thread count: load, token rates, seconds per study call and edit trial; then the layouts.

    Each measurement runs in a fresh process. The layouts (``benchmarks.model_layout``: today's one run
    per arm against a task's arms together) give ``layout_speedup`` and ``floor_ratio``. A model that is
    not installed is skipped with one line saying why (the rest of the suite does not need them). With
    ``kept`` (the record's part so far), what is not re-measured is kept: the other models' rows, or the layout.
    """
    try:
        import xllamacpp  # noqa: F401
    except Exception as err:  # noqa: BLE001 (any reason the runtime cannot be had skips the part, said in one line)
        return {"skipped": f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"}
    from cvlib.models import model_path

    part: dict[str, Any] = {k: v for k, v in (kept or {}).items() if k != "skipped"}
    measured: list[dict[str, Any]] = []
    missing = dict(part.get("not_installed", {}))
    for model in models if rows else ():
        try:
            model_path(model)
        except Exception as err:  # noqa: BLE001
            missing[model] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            continue
        for count in threads:
            measured.append(_measured("benchmarks.models", "--model", model, "--threads", str(count)))
            print(f"  model {model}, {count} thread(s) measured", file=sys.stderr)
    fresh = {(r["model"], r["threads"]): r for r in measured}
    kept_rows = [fresh.pop((r["model"], r["threads"]), r) for r in part.get("rows", [])]  # re-measured in place
    part["rows"] = kept_rows + list(fresh.values())
    part["not_installed"] = missing
    if layout and LAYOUT_MODEL not in missing:
        part["layout"] = _measured("benchmarks.model_layout", "--model", LAYOUT_MODEL)
        part["layout_speedup"], part["floor_ratio"] = part["layout"]["layout_speedup"], part["layout"]["floor_ratio"]
        print("  model layouts measured", file=sys.stderr)
    return part


#: Cases timed over more rounds than ``--repeats``: the random family's library job lasts about 0.15 s, and on
#: this shared machine back-to-back runs of it ranged from 63 to 106 µs a plan (2026-12-01), so its median needs
#: more rounds to settle (the reference and the floor take them too, interleaved).
MIN_REPEATS: dict[str, int] = {"random_family": 11}


def timed_cases(repeats: int, quick: bool, only: set[str], original: str | None = None) -> list[dict[str, Any]]:
    rows = []
    extra = [] if original is None else ["--original", original]
    for case, (_, sizes, _) in CASES.items():
        if case not in only:
            continue
        for size in sizes:
            if quick and size * (6 if case == "isolated_branches" else 1) > 100_000:
                continue
            rounds = str(max(repeats, MIN_REPEATS.get(case, 0)))
            row = _python("-m", "benchmarks.run", "--pair", case, str(size), "--repeats", rounds, *extra)
            rows.append(row)
            also = f", the original ×{row['original_vs_fast']:.1f} cvlib's time" if "original" in row else ""
            print(f"  {case} at {size:,} {row['unit']}: ×{row['ratio']:.1f} the reference loop{also}", file=sys.stderr)
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


def memory(quick: bool, original: str | None = None) -> dict[str, Any]:
    """Peak memory of a million-step scenario, the library's, the reference's (and the original's), and the bare import."""
    before = load()
    steps = 100_000 if quick else MILLION
    runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "fast": [], "reference": []}
    if original is not None:
        runs["original"] = []
    for _ in range(3):
        for job in runs:
            extra = [original] if job == "original" and original is not None else []
            runs[job].append(_python("-m", "benchmarks.memory", job, str(0 if job == "baseline" else steps), *extra))
    out: dict[str, Any] = {"steps": steps, "scenario": f"D1 (a chain of {steps:,} steps, its root fact broken)"}
    for job, got in runs.items():
        out[job] = {"peak_mib": statistics.median(r["peak_mib"] for r in got), "runs": len(got),
                    "cpu_median_s": statistics.median(r["cpu_s"] for r in got)}
    out["ratio"] = out["reference"]["peak_mib"] / out["fast"]["peak_mib"]
    if original is not None:
        out["original_vs_fast"] = out["original"]["peak_mib"] / out["fast"]["peak_mib"]
    out["quoted_original_mib"] = QUOTED_PEAK_MIB if steps == MILLION else None
    out["target_mib"] = PEAK_TARGET_MIB
    out["load_before"], out["load_after"] = before, load()
    out["target_met"] = out["fast"]["peak_mib"] <= PEAK_TARGET_MIB if steps == MILLION else None
    print(f"  peak memory at {steps:,} steps: {out['fast']['peak_mib']:.0f} MiB", file=sys.stderr)
    return out


def startup(repeats: int, original: str | None = None) -> dict[str, Any]:
    from .startup import measure

    before = load()
    got = measure(max(repeats, 15), original)
    after = load()
    floor = got["interpreter"]["cpu_median_s"]
    if "original_cold_start" in got:
        got["cold_start"]["original_vs_fast"] = got["original_cold_start"]["cpu_median_s"] / got["cold_start"]["cpu_median_s"]
    for name, row in got.items():
        row["load_before"], row["load_after"] = before, after
        row["ratio_to_interpreter"] = row["cpu_median_s"] / floor
        key = (name, 0)
        row["target_s"] = TARGETS.get(key)
        row["target_met"] = None if key not in TARGETS else row["cpu_median_s"] <= TARGETS[key]
        row["quoted_original_s"] = QUOTED.get(key)
    print(f"  cold start: {got['cold_start']['cpu_median_s']:.3f} s CPU", file=sys.stderr)
    return got


def sweeps(repeats: int, count: int) -> dict[str, Any]:
    from .machine import others_busy
    from .sweeps import startup as sweep_startup
    from .sweeps import throughput

    idle_before = others_busy()
    before = load()
    result: dict[str, Any] = {"throughput": throughput(count, repeats)}
    # Idle after the parallel rows themselves, before the start-up row's fresh interpreters leave their workers.
    result["load_before"], result["load_after"] = before, load()
    result["others_busy_cores"] = [idle_before, others_busy()]
    result["startup"] = sweep_startup(repeats)
    serial = result["throughput"]["backends"]["serial"]["wall_median_s"]
    for row in result["throughput"]["backends"].values():
        row["speedup_vs_serial_wall"] = serial / row["wall_median_s"]
    return result


def main(argv: list[str] | None = None) -> None:
    parts = ["cases", "memory", "startup", "breakdowns", "sweeps", "models", "model_layout"]
    parser = argparse.ArgumentParser(description="cvlib benchmark suite")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="sizes up to 10⁵ steps, no sweeps")
    parser.add_argument("--only", nargs="*", default=None, help=f"some of: {', '.join(parts + list(CASES))}")
    parser.add_argument("--sweep-plans", type=int, default=40_000)
    parser.add_argument("--original", metavar="DIR", default=None,
                        help="a checkout of the original implementation, kept outside this repository: "
                             "times it in the same run beside every case it can run")
    parser.add_argument("--models", nargs="+", default=list(MODELS), metavar="SPEC",
                        help=f"the models the models part measures (default: {' '.join(MODELS)})")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--update", action="store_true",
                        help="keep the parts of the record in --out that this run does not measure (with --only)")
    parser.add_argument("--pair", nargs=2, metavar=("CASE", "SIZE"), help=argparse.SUPPRESS)
    parser.add_argument("--breakdown", choices=["grid", "chain", "branches"], help=argparse.SUPPRESS)
    parser.add_argument("--sweeps", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.original is not None:
        from .original import OriginalError, check_dir

        try:
            args.original = str(check_dir(args.original))
        except OriginalError as err:
            parser.error(str(err))
    if args.sweeps:
        print(json.dumps(sweeps(args.repeats, args.sweeps)))
        return
    if args.pair:
        case, size = args.pair
        print(json.dumps(measure_pair(case, int(size), args.repeats, args.original)))
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
                              "quick": args.quick, "method": METHOD, "quoted_source": QUOTED_SOURCE,
                              "original": None if args.original is None else ORIGINAL_SOURCE}
    if args.update:
        if only & set(CASES) or not Path(args.out).is_file():
            parser.error("--update re-measures whole parts (e.g. --only models) into an existing --out record, not cases")
        record = json.loads(Path(args.out).read_text())
        record.setdefault("updated", {}).update({name: describe() for name in sorted(only)})
    else:
        record["cases"] = timed_cases(args.repeats, args.quick, only, args.original)
    if "memory" in only:
        record["memory"] = memory(args.quick, args.original)
    if "startup" in only:
        record["startup"] = startup(args.repeats, args.original)
    if "breakdowns" in only:
        which = {"grid": max(args.repeats, 15), "branches": args.repeats}
        if not args.quick:
            which["chain"] = args.repeats
        record["breakdowns"] = {}
        for name, repeats in which.items():
            before = load()
            got = _python("-m", "benchmarks.run", "--breakdown", name, "--repeats", str(repeats))
            got["load_before"], got["load_after"] = before, load()
            record["breakdowns"][name] = got
        print("  breakdowns measured", file=sys.stderr)
    if "sweeps" in only and not args.quick:
        record["sweeps"] = _python("-m", "benchmarks.run", "--sweeps", str(args.sweep_plans),
                                   "--repeats", str(max(SWEEP_REPEATS, args.repeats)))
        print("  sweeps measured", file=sys.stderr)
    if only & {"models", "model_layout"} and not args.quick:
        record["models"] = models_part(tuple(args.models), rows="models" in only, layout="model_layout" in only,
                                       kept=record.get("models") if args.update else None)
    if not args.update:
        record["load_average_end"] = load()
    mark_busy(record)
    record["verdicts"] = verdicts(record)
    print(format_table(record))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, out)
    print(f"saved {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
