"""The benchmark record as the Performance chapter and the README show it: tables, figures, numbers.

``python -m benchmarks`` (``scripts/bench.sh``) measures and writes
``data/benchmarks/latest.json``; nothing here measures or computes a
result. Each function takes that record (a dict, as read by
:func:`load_record`) and returns what a page shows: a table with human
column names, a figure in the book's style, the numbers the chapter glues,
(the README's table is written by ``benchmarks/report.py`` from the same
record and the same rules). The original implementation's figures appear as
measured in the same run when the suite was given a checkout of it
(``--original``), else as quoted figures, labelled as such.

A row measured while the machine was busy (a 1-minute load average above
:data:`BUSY_LOAD_PER_CORE` per core before or after it) is shown as
:data:`BUSY_TEXT`, never as a figure; the parallel sweeps count only when
other processes kept fewer than :data:`IDLE_OTHERS_CORES` cores busy before
and after them, since a speed-up on a shared machine measures the other jobs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.presentation.figures import ACCENTS, PALETTE
from cvlib.presentation.formatting import fmt
from cvlib.repository import data_path

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

#: How the README and the chapter name each timed case.
CASE_NAMES: dict[str, str] = {
    "chain": "chain (scenario D1)",
    "isolated_branches": "isolated branches (scenario D3)",
    "grid": "the 96-configuration grid (D2)",
    "random_family": "random family (both executors and the law)",
}

#: How the chapter names each phase of a breakdown.
PHASE_NAMES: dict[str, str] = {
    "checks": "checking parameters",
    "plans": "building plans",
    "setup": "facts, event, budget, set-up check",
    "structure": "structure summary",
    "executors": "both executors",
    "table": "the rows",
    "remainder": "the rest (calls between phases)",
}

_REQUIRED = ("machine", "cases")

#: A row measured above this 1-minute load average per core (before or after it) is not printed as a figure.
BUSY_LOAD_PER_CORE = 1.5
#: The parallel sweeps count only when other processes kept fewer cores than this busy, before and after them.
IDLE_OTHERS_CORES = 0.25
#: What a page shows in place of a figure measured on a busy machine.
BUSY_TEXT = "not measured: machine busy"
#: What a page shows in place of a parallel speed-up measured while other jobs ran.
NOT_IDLE_TEXT = "not counted: machine not otherwise idle"


def row_busy(row: Mapping[str, Any], cores: int) -> bool | None:
    """Whether a row was measured above :data:`BUSY_LOAD_PER_CORE` per core; None when its loads were not recorded.

    Parameters
    ----------
    row : dict
        A record's row, with ``load_before`` and ``load_after`` (1-, 5- and 15-minute load averages).
    cores : int
        The machine's cores.

    Returns
    -------
    bool or None
    """
    loads = [row.get("load_before"), row.get("load_after")]
    if not all(loads):
        return None
    return max(load[0] for load in loads if load) / max(cores, 1) > BUSY_LOAD_PER_CORE


def is_busy(record: Mapping[str, Any], row: Mapping[str, Any]) -> bool:
    """Whether a row is to be shown as :data:`BUSY_TEXT` (its recorded ``busy`` mark, else :func:`row_busy`).

    Parameters
    ----------
    record : dict
        A benchmark record.
    row : dict
        One of its rows.

    Returns
    -------
    bool
    """
    if "busy" in row:
        return bool(row["busy"])
    return bool(row_busy(row, record["machine"]["cores"]))


def parallel_counts(record: Mapping[str, Any]) -> bool:
    """Whether the record's parallel sweeps count: not busy, and the machine otherwise idle before and after.

    Parameters
    ----------
    record : dict
        A benchmark record with ``sweeps``.

    Returns
    -------
    bool
    """
    sweeps = record["sweeps"]
    others = sweeps.get("others_busy_cores") or [None, None]
    if is_busy(record, sweeps) or any(o is None for o in others):
        return False
    return max(others) < IDLE_OTHERS_CORES


def load_record(path: str | Path | None = None) -> dict[str, Any]:
    """The benchmark record: ``data/benchmarks/latest.json`` or the file at ``path``.

    Parameters
    ----------
    path : str or pathlib.Path or None
        A record written by ``python -m benchmarks``; None reads the latest.

    Returns
    -------
    dict
    """
    file = Path(path) if path is not None else data_path("benchmarks", "latest.json")
    try:
        record = json.loads(file.read_text())
    except (OSError, ValueError) as err:
        raise ParameterError(f"cannot read benchmark record {str(file)!r}: {err}") from None
    missing = [key for key in _REQUIRED if key not in record]
    if missing:
        raise ParameterError(f"benchmark record {str(file)!r} lacks {', '.join(missing)}; run python -m benchmarks")
    return record


def _case(record: Mapping[str, Any], case: str, size: int | None = None) -> Mapping[str, Any]:
    for row in record["cases"]:
        if row["case"] == case and (size is None or row["size"] == size):
            return row
    raise ParameterError(f"the benchmark record has no case {case!r}" + (f" at size {size}" if size else ""))


def machine_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """When and where the record was measured, and how (one row per fact about the run).

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    m = record["machine"]
    rows = [
        ("measured", m.get("measured_at", "not recorded")),
        ("CPU", m["cpu"]),
        ("cores", m["cores"]),
        ("memory (GiB)", m["memory_gib"]),
        ("OS", m["os"]),
        ("Python", f"{m['python']} ({m['implementation']})"),
        ("cvlib / numpy / pandas", f"{m['cvlib']} / {m['numpy']} / {m['pandas']}"),
        ("repeats per timing (median)", record["repeats"]),
        ("load average at start, end (1 min)", _loads(record)),
    ]
    return pd.DataFrame(rows, columns=["", "value"]).set_index("")


def _loads(record: Mapping[str, Any]) -> str:
    start, end = record.get("load_average_start") or [None], record.get("load_average_end") or [None]
    if start[0] is None or end[0] is None:
        return "not recorded"
    return f"{start[0]:.1f}, {end[0]:.1f}"


def speed_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """Each timed case: cvlib's CPU time, the reference loop's, their ratio, and the original's beside them.

    The original's time is the one measured in the same run when the record
    has it (``--original``), else the quoted figure, labelled; a row measured
    on a busy machine shows :data:`BUSY_TEXT` instead of figures.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    rows = []
    for r in record["cases"]:
        row: dict[str, Any] = {
            "case": CASE_NAMES.get(r["case"], r["case"]),
            "size": f"{r['size']:,} {r['unit']}",
            "steps": f"{r['steps']:,}",
            "load before, after": _row_loads(r),
        }
        if is_busy(record, r):
            row.update({"cvlib, CPU (ms)": BUSY_TEXT, "reference loop, CPU (ms)": "", "reference ÷ cvlib": "",
                        "original, CPU (ms)": "", "original ÷ cvlib": ""})
        else:
            original, how = _original_s(r)
            row.update({
                "cvlib, CPU (ms)": fmt(1000 * r["fast"]["cpu_median_s"], "milliseconds"),
                "reference loop, CPU (ms)": fmt(1000 * r["reference"]["cpu_median_s"], "milliseconds"),
                "reference ÷ cvlib": fmt(r["ratio"], "ratio"),
                "original, CPU (ms)": "" if original is None else f"{fmt(1000 * original, 'milliseconds')} ({how})",
                "original ÷ cvlib": "" if original is None else fmt(original / r["fast"]["cpu_median_s"], "ratio"),
            })
        rows.append(row)
    return pd.DataFrame(rows).set_index("case")


def _original_s(row: Mapping[str, Any]) -> tuple[float | None, str]:
    """The original's CPU seconds for a row and how it was had: measured in the same run, or quoted."""
    if "original" in row:
        return row["original"]["cpu_median_s"], "same run"
    if row.get("quoted_original_s") is not None:
        return row["quoted_original_s"], "quoted"
    return None, ""


def _row_loads(row: Mapping[str, Any]) -> str:
    before, after = row.get("load_before"), row.get("load_after")
    if not before or not after:
        return "not recorded"
    return f"{before[0]:.1f}, {after[0]:.1f}"


def _quoted_ms(seconds: float | None) -> str:
    """A quoted figure in ms as text, blank when there is none (never NaN on the page)."""
    return "" if seconds is None else f"{1000 * seconds:,.0f}"


def memory_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """Peak memory of the million-step scenario: cvlib, the reference loop, the original, and the bare import.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    m = record["memory"]
    busy = is_busy(record, m)

    def peak(mib: float) -> str:
        return BUSY_TEXT if busy else fmt(mib, "mib")

    rows = [
        {"process": "python, cvlib imported, nothing run", "peak memory": peak(m["baseline"]["peak_mib"])},
        {"process": f"cvlib: {m['scenario']}", "peak memory": peak(m["fast"]["peak_mib"])},
        {"process": "the same with the reference loop", "peak memory": peak(m["reference"]["peak_mib"])},
    ]
    if "original" in m:
        rows.append({"process": "the same with the original (same run)", "peak memory": peak(m["original"]["peak_mib"])})
    elif m.get("quoted_original_mib") is not None:
        rows.append({"process": "the same with the original (quoted)", "peak memory": fmt(m["quoted_original_mib"], "mib")})
    return pd.DataFrame(rows).set_index("process")


def startup_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """Start-up of a fresh interpreter running one short job, against the bare interpreter and the original.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    names = {
        "interpreter": "python -c pass (the floor)",
        "cold_start": "import cvlib; cvlib.run_scenario('A')",
        "cli_cold_start": "cvlib run A",
        "cli_law": "cvlib law",
        "original_cold_start": "the original's scenario A (same run)",
    }
    rows = []
    for key, label in names.items():
        row = record["startup"].get(key)
        if row is None:
            continue
        busy = is_busy(record, row)
        rows.append(
            {
                "command": label,
                "CPU (ms)": BUSY_TEXT if busy else fmt(1000 * row["cpu_median_s"], "milliseconds"),
                "wall (ms)": "" if busy else fmt(1000 * row["wall_median_s"], "milliseconds"),
                "× bare interpreter (CPU)": "" if busy else fmt(row["ratio_to_interpreter"], "ratio"),
                "original, quoted (ms)": _quoted_ms(row.get("quoted_original_s")) if key == "cold_start" else "",
            }
        )
    return pd.DataFrame(rows).set_index("command")


def sweep_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """One random family swept on each backend (wall time), and the processes backend's first start.

    The parallel rows show their speed-up only when :func:`parallel_counts`
    says the machine was otherwise idle.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    t, s = record["sweeps"]["throughput"], record["sweeps"]["startup"]
    busy, counts = is_busy(record, record["sweeps"]), parallel_counts(record)
    rows = []
    for name, row in t["backends"].items():
        what = f"{t['plans']:,} plans, {name} backend" + ("" if name == "serial" else f", {t['workers']} workers")
        if busy:
            rows.append({"what": what, "wall (s)": BUSY_TEXT, "serial ÷ this": ""})
            continue
        speedup = "" if name == "serial" else fmt(row["speedup_vs_serial_wall"], "ratio") if counts else NOT_IDLE_TEXT
        rows.append({"what": what, "wall (s)": fmt(row["wall_median_s"], "seconds"), "serial ÷ this": speedup})
    rows += [
        {
            "what": f"first processes sweep in a fresh interpreter, workers by {method}",
            "wall (s)": BUSY_TEXT if busy else fmt(s[method]["wall_median_s"], "seconds"),
            "serial ÷ this": "",
        }
        for method in ("forkserver", "spawn")
    ]
    return pd.DataFrame(rows).set_index("what")


#: What each of the record's ratio targets compares, in the words of the table.
TARGET_NAMES = {
    "grid_vs_original": "the grid, the original's time over cvlib's",
    "cold_start_vs_original": "cold start, cvlib's time over the original's",
    "cold_start_vs_interpreter": "cold start, cvlib's time over the bare interpreter's",
    "random_family_vs_reference": "random plans, the reference loop's time per plan over cvlib's",
    "processes_vs_serial": "sweep, processes backend's speed-up over serial",
    "dask_vs_serial": "sweep, Dask backend's speed-up over serial",
}


def target_table(record: Mapping[str, Any]) -> pd.DataFrame | None:
    """Each ratio target of the record beside the ratio measured and whether it is met; None for an older record.

    The ratios are shown to two decimals, so that a ratio just short of its
    target (9.95 against 10) does not read as reaching it; a target whose
    row was busy, or whose parallel rows ran on a machine that was not
    otherwise idle, says so instead of a verdict.

    Parameters
    ----------
    record : dict
        A benchmark record with ``verdicts`` (written by the suite).

    Returns
    -------
    pandas.DataFrame or None
    """
    import pandas as pd

    verdicts = record.get("verdicts")
    if not verdicts:
        return None
    rows = []
    for name, v in verdicts.items():
        measured = v["ratio"] is not None
        rows.append(
            {
                "target": TARGET_NAMES.get(name, name),
                "wanted": f"{v['why']} {v['target']:g}×" if measured else f"{v['target']:g}×",
                "measured": f"{v['ratio']:.2f}×" if measured else v["why"],
                "verdict": _met(v["met"]) if measured else "",
            }
        )
    return pd.DataFrame(rows).set_index("target")


def breakdown_table(record: Mapping[str, Any], which: str = "grid") -> pd.DataFrame:
    """Where one job's time goes: each measured phase, its CPU time and its share of the whole job.

    Parameters
    ----------
    record : dict
        A benchmark record.
    which : str
        ``"grid"``, ``"chain"`` (a million-step D1 scenario) or ``"branches"`` (D3 with 10,000 branches).

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    phases = _breakdown(record, which)["phases"]
    return pd.DataFrame(
        [
            {
                "phase": PHASE_NAMES.get(p["phase"], p["phase"])
                + (f" (part of {PHASE_NAMES[p['part_of']]})" if p["part_of"] else ""),
                "CPU (ms)": round(1000 * p["cpu_median_s"], 2),
                "share of the whole (%)": round(100 * p["share_of_whole"], 1),
                "what it covers": p["what"],
            }
            for p in phases
        ]
    ).set_index("phase")


def _breakdown(record: Mapping[str, Any], which: str) -> Mapping[str, Any]:
    try:
        return record["breakdowns"][which]
    except KeyError:
        raise ParameterError(
            f"the benchmark record has no {which!r} breakdown; expected one of {', '.join(record.get('breakdowns', {}))}"
        ) from None


def breakdown_figure(record: Mapping[str, Any], which: str = "grid") -> Figure:
    """Each top-level phase's share of the job as a horizontal bar, the draws shown inside plan building.

    Parameters
    ----------
    record : dict
        A benchmark record.
    which : str
        ``"grid"`` or ``"chain"``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt


    b = _breakdown(record, which)
    phases = [p for p in b["phases"] if p["part_of"] is None]
    nested = {p["part_of"]: p for p in b["phases"] if p["part_of"]}
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * len(phases) + 1.2))
    labels = [PHASE_NAMES.get(p["phase"], p["phase"]) for p in phases][::-1]
    values = [1000 * p["cpu_median_s"] for p in phases][::-1]
    ax.barh(labels, values, color=PALETTE["validity_aware"])
    for i, p in enumerate(phases[::-1]):
        inner = nested.get(p["phase"])
        if inner is not None:
            ax.barh(i, 1000 * inner["cpu_median_s"], color=ACCENTS["exposure"], label=PHASE_NAMES[inner["phase"]])
    ax.set_xlabel(f"CPU time (ms), median of {b['runs']} runs; whole job {1000 * b['whole_cpu_median_s']:.1f} ms")
    if nested:
        ax.legend(loc="lower right", fontsize=9)
    fig.tight_layout()
    return fig


def scaling_figure(record: Mapping[str, Any]) -> Figure:
    """CPU time against plan size for the chain and isolated branches: cvlib and the reference loop.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt


    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for case, marker in (("chain", "o"), ("isolated_branches", "s")):
        rows = sorted((r for r in record["cases"] if r["case"] == case), key=lambda r: r["steps"])
        if not rows:
            continue
        steps = [r["steps"] for r in rows]
        name = CASE_NAMES[case].split(" (")[0]
        ax.plot(steps, [r["fast"]["cpu_median_s"] for r in rows], marker=marker, color=PALETTE["validity_aware"],
                label=f"{name}, cvlib")
        ax.plot(steps, [r["reference"]["cpu_median_s"] for r in rows], marker=marker, color=ACCENTS["replan"],
                linestyle="--", label=f"{name}, reference loop")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("plan steps")
    ax.set_ylabel("CPU time, median (s)")
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


def _shown(busy: bool, values: dict[str, Any]) -> dict[str, Any]:
    """``values``, or :data:`BUSY_TEXT` in place of every number when the row was measured on a busy machine."""
    if not busy:
        return values
    return {k: BUSY_TEXT if isinstance(v, (int, float)) and not isinstance(v, bool) else v for k, v in values.items()}


def _vs_original(row: Mapping[str, Any], fast_s: float) -> tuple[float | None, str]:
    """The original's time over cvlib's for a row, and whether it was measured in the same run or quoted."""
    original, how = _original_s(row)
    return (None, "") if original is None else (original / fast_s, how)


def glue_values(record: Mapping[str, Any]) -> dict[str, Any]:
    """Every number the Performance chapter states, by glue key (``perf_…``), read from the record.

    A row measured on a busy machine gives :data:`BUSY_TEXT` for each of its
    numbers, and the parallel speed-ups :data:`NOT_IDLE_TEXT` unless
    :func:`parallel_counts`; the chapter's sentences are written so that
    either reads.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    dict
        Plain ints, floats and strings.
    """
    m = record["machine"]
    grid = _case(record, "grid")
    out: dict[str, Any] = {
        "perf_measured_at": m.get("measured_at", "not recorded"),
        "perf_cores": m["cores"],
        "perf_memory": m["memory_gib"],
        "perf_cpu": m["cpu"],
        "perf_python": m["python"],
        "perf_repeats": record["repeats"],
        "perf_load_start": (record.get("load_average_start") or [0.0])[0],
        "perf_load_end": (record.get("load_average_end") or [0.0])[0],
        "perf_busy_per_core": BUSY_LOAD_PER_CORE,
        "perf_original_how": "measured in the same run" if record.get("original") else "quoted, not re-run",
    }
    grid_vs, grid_how = _vs_original(grid, grid["fast"]["cpu_median_s"])
    out.update(_shown(is_busy(record, grid), {
        "perf_grid_ms": 1000 * grid["fast"]["cpu_median_s"],
        "perf_grid_wall_ms": 1000 * grid["fast"]["wall_median_s"],
        "perf_grid_ratio": grid["ratio"],
        "perf_grid_vs_original": grid_vs if grid_vs is not None else "not measured",
    }))
    out.update(
        perf_grid_target_ms=1000 * grid["target_s"] if grid.get("target_s") else None,
        perf_grid_met=BUSY_TEXT if is_busy(record, grid) else _met(grid.get("target_met")),
        perf_grid_steps=grid["steps"],
        perf_grid_configs=grid["size"],
        perf_grid_quoted_ms=1000 * grid["quoted_original_s"] if grid.get("quoted_original_s") else None,
        perf_grid_original_how=grid_how or "not measured",
    )
    for case in ("chain", "isolated_branches"):
        rows = [r for r in record["cases"] if r["case"] == case]
        if rows:
            largest = max(rows, key=lambda r: r["steps"])
            shown = [r for r in rows if not is_busy(record, r)]
            vs, how = _vs_original(largest, largest["fast"]["cpu_median_s"])
            out[f"perf_{case}_largest_steps"] = largest["steps"]
            out.update(_shown(is_busy(record, largest), {
                f"perf_{case}_largest_cpu": largest["fast"]["cpu_median_s"],
                f"perf_{case}_largest_reference": largest["reference"]["cpu_median_s"],
                f"perf_{case}_vs_original": vs if vs is not None else "not measured",
            }))
            out[f"perf_{case}_original_how"] = how or "not measured"
            out[f"perf_{case}_ratio_min"] = min(r["ratio"] for r in shown) if shown else BUSY_TEXT
            out[f"perf_{case}_ratio_max"] = max(r["ratio"] for r in shown) if shown else BUSY_TEXT
            out[f"perf_{case}_exponent"] = rows[0].get("growth_exponent") if len(shown) == len(rows) else BUSY_TEXT
    family = [r for r in record["cases"] if r["case"] == "random_family"]
    if family:
        f = family[0]
        per_plan = f.get("per_plan_us") or {k: 1e6 * f[k]["cpu_median_s"] / f["size"] for k in ("fast", "reference")}
        out["perf_family_plans"] = f["size"]
        out.update(_shown(is_busy(record, f), {
            "perf_family_ratio": f["ratio"],
            "perf_family_us": per_plan["fast"],
            "perf_family_reference_us": per_plan["reference"],
            "perf_family_floor_us": per_plan.get("floor", "not measured"),
            "perf_family_vs_floor": f.get("fast_vs_floor", "not measured"),
        }))
    if "memory" in record:
        mem = record["memory"]
        original_mib = mem["original"]["peak_mib"] if "original" in mem else mem.get("quoted_original_mib")
        out.update(_shown(is_busy(record, mem), {
            "perf_peak_mib": mem["fast"]["peak_mib"],
            "perf_peak_reference_mib": mem["reference"]["peak_mib"],
            "perf_peak_baseline_mib": mem["baseline"]["peak_mib"],
            "perf_peak_original_mib": original_mib if original_mib is not None else "not measured",
        }))
        out.update(perf_peak_steps=mem["steps"], perf_peak_target_mib=mem["target_mib"],
                   perf_peak_met=BUSY_TEXT if is_busy(record, mem) else _met(mem["target_met"]),
                   perf_peak_original_how="same run" if "original" in mem else "quoted")
    if "startup" in record:
        s = record["startup"]
        cold = s["cold_start"]
        busy = is_busy(record, cold)
        original = s.get("original_cold_start")
        original_s = original["cpu_median_s"] if original else cold.get("quoted_original_s")
        out.update(_shown(busy, {
            "perf_cold_start": cold["cpu_median_s"],
            "perf_cold_vs_interpreter": cold["ratio_to_interpreter"],
            "perf_cold_original": original_s if original_s is not None else "not measured",
            "perf_cold_vs_original": cold["cpu_median_s"] / original_s if original_s else "not measured",
            "perf_cli_cold_start": s["cli_cold_start"]["cpu_median_s"],
            "perf_interpreter": s["interpreter"]["cpu_median_s"],
        }))
        out.update(
            perf_cold_start_met=BUSY_TEXT if busy else _met(cold["target_met"]),
            perf_cold_target=cold["target_s"],
            perf_cli_met=BUSY_TEXT if busy else _met(s["cli_cold_start"]["target_met"]),
            perf_cold_original_how="same run" if original else "quoted",
        )
    for which in ("grid", "chain", "branches"):
        b = record.get("breakdowns", {}).get(which)
        if b is None:
            continue
        values: dict[str, Any] = {}
        for p in b["phases"]:
            values[f"perf_{which}_share_{p['phase']}"] = 100 * p["share_of_whole"]
            values[f"perf_{which}_ms_{p['phase']}"] = 1000 * p["cpu_median_s"]
        values[f"perf_{which}_breakdown_whole_ms"] = 1000 * b["whole_cpu_median_s"]
        out.update(_shown(is_busy(record, b), values))
        out[f"perf_{which}_breakdown_steps"] = b["steps"]
        if "size" in b:
            out[f"perf_{which}_size"] = b["size"]
        top = max((p for p in b["phases"] if p["part_of"] is None and p["phase"] != "remainder"),
                  key=lambda p: p["cpu_median_s"])
        out[f"perf_{which}_top_phase"] = PHASE_NAMES[top["phase"]]
    if "sweeps" in record:
        t, st = record["sweeps"]["throughput"], record["sweeps"]["startup"]
        busy, counts = is_busy(record, record["sweeps"]), parallel_counts(record)
        out["perf_sweep_plans"] = t["plans"]
        out["perf_sweep_workers"] = t["workers"]
        out["perf_sweep_chunks"] = t.get("chunks", "not recorded")
        out["perf_sweep_chunk_size"] = t.get("chunk_size", "not recorded")
        out.update(_shown(busy, {
            "perf_sweep_serial": t["backends"]["serial"]["wall_median_s"],
            "perf_sweep_first_forkserver": st["forkserver"]["wall_median_s"],
            "perf_sweep_first_spawn": st["spawn"]["wall_median_s"],
        }))
        for name in ("processes", "dask"):
            speedup = t["backends"][name]["speedup_vs_serial_wall"]
            out[f"perf_sweep_{name}_speedup"] = BUSY_TEXT if busy else speedup if counts else NOT_IDLE_TEXT
        others = record["sweeps"].get("others_busy_cores") or [None, None]
        out["perf_sweep_others"] = max(others) if None not in others else "not recorded"
    out["perf_model_summary"] = model_summary(record)
    return out


def _arms(values: Mapping[str, float]) -> str:
    return ", ".join(f"{arm} {fmt(v, 'seconds')} s" for arm, v in values.items())


def model_table(record: Mapping[str, Any]) -> pd.DataFrame | None:
    """A local language model on the record's machine, one row per thread count; None when the record has none.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    pandas.DataFrame or None
    """
    import pandas as pd

    rows = []
    for row in record.get("models", {}).get("rows", []):
        busy = is_busy(record, row)
        shown = {
            "load (s)": fmt(row["load_s"], "seconds"),
            "peak RSS (MiB)": fmt(row["peak_rss_mib"], "count"),
            "prompt (tokens/s)": fmt(row["prompt_tokens_per_s"], "count"),
            "generation (tokens/s)": fmt(row["generation_tokens_per_s"], "tenths"),
            "seconds per decision": _arms(row["seconds_per_decision"]),
            "seconds per edit trial": _arms(row.get("seconds_per_edit_trial", {})),
        }
        if busy:
            shown = {key: (BUSY_TEXT if i == 0 else "") for i, key in enumerate(shown)}
        rows.append({"model, threads": f"{row['model']}, {row['threads']}", **shown})
    return pd.DataFrame(rows).set_index("model, threads") if rows else None


def model_summary(record: Mapping[str, Any]) -> str:
    """One sentence on the record's model rows, or why it has none (so the chapter's paragraph always reads).

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    str
    """
    part = record.get("models")
    if not part:
        return "This record has no model rows (it was written before the suite measured a model)"
    if "skipped" in part:
        return f"This record has no model rows: the model packages were not installed ({part['skipped']})"
    said = []
    for row in part["rows"]:
        if is_busy(record, row):
            said.append(f"with {row['threads']} thread(s) it was {BUSY_TEXT}")
            continue
        decisions = row["seconds_per_decision"].values()
        edits = row.get("seconds_per_edit_trial", {}).values()
        said.append(
            f"with {row['threads']} thread(s) it loaded in {fmt(row['load_s'], 'seconds')} s, generated "
            f"{fmt(row['generation_tokens_per_s'], 'tenths')} tokens/s, took {fmt(min(decisions), 'seconds')}–"
            f"{fmt(max(decisions), 'seconds')} s per agent-loop decision"
            + (f" and {fmt(min(edits), 'seconds')}–{fmt(max(edits), 'seconds')} s per notes edit trial" if edits else "")
        )
    return f"{part['rows'][0]['model']}: " + "; ".join(said)


#: How each number the chapter glues is written (:mod:`cvlib.presentation.formatting` kinds); others are counts.
KINDS: dict[str, str] = {
    "perf_load_start": "tenths",
    "perf_load_end": "tenths",
    "perf_busy_per_core": "tenths",
    "perf_grid_ms": "tenths",
    "perf_grid_wall_ms": "tenths",
    "perf_grid_target_ms": "tenths",
    "perf_grid_ratio": "tenths",
    "perf_grid_vs_original": "tenths",
    "perf_grid_quoted_ms": "tenths",
    "perf_grid_breakdown_whole_ms": "tenths",
    "perf_chain_largest_cpu": "seconds",
    "perf_chain_largest_reference": "seconds",
    "perf_chain_vs_original": "count",
    "perf_isolated_branches_largest_cpu": "seconds",
    "perf_isolated_branches_largest_reference": "seconds",
    "perf_isolated_branches_vs_original": "count",
    "perf_chain_exponent": "exponent",
    "perf_isolated_branches_exponent": "exponent",
    "perf_family_ratio": "mean",
    "perf_family_us": "count",
    "perf_family_reference_us": "count",
    "perf_family_floor_us": "count",
    "perf_family_vs_floor": "tenths",
    "perf_cold_start": "milliseconds",
    "perf_cold_original": "milliseconds",
    "perf_cold_vs_interpreter": "mean",
    "perf_cold_vs_original": "mean",
    "perf_cold_target": "mean",
    "perf_cli_cold_start": "milliseconds",
    "perf_interpreter": "milliseconds",
    "perf_sweep_serial": "seconds",
    "perf_sweep_processes_speedup": "mean",
    "perf_sweep_dask_speedup": "mean",
    "perf_sweep_first_forkserver": "mean",
    "perf_sweep_first_spawn": "mean",
    "perf_sweep_others": "mean",
}


def glued(record: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    """:func:`glue_values` paired with how each is written, ready for :func:`cvlib.presentation.formatting.glue_all`.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    dict
        Key to (value, kind of quantity).
    """
    kinds = dict(KINDS)
    for key in glue_values(record):
        if key.startswith(("perf_grid_share_", "perf_chain_share_", "perf_branches_share_")):
            kinds.setdefault(key, "count")
        elif key.endswith("_whole_ms") or "_ms_" in key:
            kinds.setdefault(key, "tenths")
    return {key: (value, kinds.get(key, "count")) for key, value in glue_values(record).items()}


def _met(verdict: bool | None) -> str:
    return "not judged" if verdict is None else "met" if verdict else "missed"
