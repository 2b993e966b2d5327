"""The Performance chapter: every number its prose glues, its targets in one table, and its breakdowns, read from the benchmark record.

:mod:`cvlib.presentation.benchmark_record` reads the record the suite writes
(``data/benchmarks/latest.json``), judges which rows were measured on a busy
machine and shows the record's tables and figures. This module holds what
only the chapter says about that record:

* :func:`glue_values` (and :func:`glued`, paired with how each is written):
  every number the prose names, each read from the record once, so a number
  in a sentence is the number in the table beside it, formatted the same way
  (the million-step chain is the speed table's figure in both);
* :func:`target_table`: every target the suite judges, met or missed, in one
  table, the absolute ones (the grid's time, both cold starts, peak memory)
  beside the ratio targets;
* :func:`breakdown_parts` and :func:`breakdown_table`: where one job's time
  goes, in parts that add up to their total. Each phase is timed alone and
  the whole job in the same rounds; when the phases together take longer
  than the whole job (the million-step chain, where building the plan is
  nearly all of it and its spread from run to run exceeds the other phases
  together), the difference is spread between runs, not a phase, so the
  shares are of the phases' sum and the table says so rather than printing a
  negative remainder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cvlib.presentation._study_models import model_label
from cvlib.presentation.benchmark_record import (
    BUSY_LOAD_PER_CORE,
    BUSY_TEXT,
    NOT_IDLE_TEXT,
    PHASE_NAMES,
    breakdown_of,
    case_loads,
    case_row,
    is_busy,
    model_summary,
    original_seconds,
    parallel_counts,
)
from cvlib.presentation.formatting import fmt, listing, span

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "KINDS",
    "TARGET_NAMES",
    "BreakdownPart",
    "breakdown_parts",
    "breakdown_table",
    "glue_values",
    "glued",
    "target_rows",
    "target_table",
]


def _met(verdict: bool | None) -> str:
    return "not judged" if verdict is None else "met" if verdict else "missed"


def _shown(busy: bool, values: dict[str, Any]) -> dict[str, Any]:
    """``values``, or :data:`BUSY_TEXT` in place of every number when the row was measured on a busy machine."""
    if not busy:
        return values
    return {k: BUSY_TEXT if isinstance(v, (int, float)) and not isinstance(v, bool) else v for k, v in values.items()}


def _vs_original(row: Mapping[str, Any], fast_s: float) -> tuple[float | None, str]:
    """The original's time over cvlib's for a row, and whether it was measured in the same run or quoted."""
    original, how = original_seconds(row)
    return (None, "") if original is None else (original / fast_s, how)


# -- the breakdowns -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BreakdownPart:
    """One row of a breakdown: a phase (or the rest, or the total), its CPU time and its share of the total.

    Attributes
    ----------
    phase : str
        The record's key of the phase (``"remainder"`` for the rest, ``"total"`` for the total row).
    name : str
        How the chapter names it.
    ms : float
        CPU time in milliseconds, to two decimals; the top-level rows add up to the total row's.
    share : float
        Percent of the total, to one decimal; the top-level rows add up to 100.0.
    what : str
        What the phase covers.
    part_of : str or None
        The phase this one is a part of (its time is inside that phase's), or None for a top-level row.
    """

    phase: str
    name: str
    ms: float
    share: float
    what: str
    part_of: str | None = None


def _tenths_adding_to_1000(values: Sequence[float], total: float) -> list[int]:
    """Each value's share of ``total`` in tenths of a percent, rounded so that they add up to exactly 1,000.

    Each share is rounded down and the tenths left over go to the largest
    fractions first (the largest-remainder method), so a table's column of
    shares adds up to 100.0 instead of 99.9 or 100.1.
    """
    exact = [1000 * v / total for v in values]
    floors = [int(x // 1) for x in exact]
    left = 1000 - sum(floors)
    for i in sorted(range(len(exact)), key=lambda i: exact[i] - floors[i], reverse=True)[: max(left, 0)]:
        floors[i] += 1
    return floors


def breakdown_parts(record: Mapping[str, Any], which: str = "grid") -> tuple[BreakdownPart, ...]:
    """Where one job's time goes, in parts that add up: each phase, the rest, and the total they make.

    When the whole job took at least as long as its phases, the rest (calls
    between phases) is the whole minus the phases and the total is the whole
    job. When the phases, each timed alone, took longer than the whole job
    timed in the same rounds, there is no rest to show: the total is the
    phases' sum, and its row says by how much it exceeds the whole job.

    Parameters
    ----------
    record : dict
        A benchmark record.
    which : str
        ``"grid"``, ``"chain"`` or ``"branches"``.

    Returns
    -------
    tuple of BreakdownPart
        The phases in the record's order, the rest when there is one, then the total.
    """
    b = breakdown_of(record, which)
    phases = [p for p in b["phases"] if p["phase"] != "remainder"]
    top = [p for p in phases if p["part_of"] is None]
    whole = 1000 * b["whole_cpu_median_s"]
    summed = sum(1000 * p["cpu_median_s"] for p in top)
    ms = {p["phase"]: round(1000 * p["cpu_median_s"], 2) for p in phases}
    if summed <= whole:
        total = round(whole, 2)
        rest = [{"phase": "remainder", "what": "the whole job minus its phases", "part_of": None}]
        ms["remainder"] = round(total - sum(ms[p["phase"]] for p in top), 2)
        total_row = ("the whole job", "timed on its own, in the same rounds as its phases")
    else:
        total = round(sum(ms[p["phase"]] for p in top), 2)
        rest = []
        total_row = (
            "the phases together",
            f"each phase timed alone; the whole job, timed in the same rounds, took {fmt(whole, 'tenths')} ms, "
            f"{fmt(summed - whole, 'tenths')} ms less: spread between runs, not a phase",
        )
    rows = phases + rest
    shares = dict(
        zip([p["phase"] for p in top + rest], _tenths_adding_to_1000([ms[p["phase"]] for p in top + rest], total))
    )
    parts = [
        BreakdownPart(
            p["phase"],
            PHASE_NAMES.get(p["phase"], p["phase"])
            + (f" (part of {PHASE_NAMES[p['part_of']]})" if p["part_of"] else ""),
            ms[p["phase"]],
            shares[p["phase"]] / 10 if p["phase"] in shares else round(100 * ms[p["phase"]] / total, 1),
            p["what"],
            p["part_of"],
        )
        for p in rows
    ]
    return (*parts, BreakdownPart("total", total_row[0], total, 100.0, total_row[1]))


def breakdown_table(record: Mapping[str, Any], which: str = "grid") -> pd.DataFrame:
    """:func:`breakdown_parts` as a table: each part's CPU time and its share of the total, which they add up to.

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

    rows = [
        {"phase": p.name, "CPU (ms)": p.ms, "share of the total (%)": p.share, "what it covers": p.what}
        for p in breakdown_parts(record, which)
    ]
    return pd.DataFrame(rows).set_index("phase")


def _balance(parts: Sequence[BreakdownPart], whole_ms: float) -> str:
    """The clause that says how a breakdown's parts make its total, and why when the phases overrun the whole job."""
    rest = [p for p in parts if p.phase == "remainder"]
    if rest:
        return f"the calls between phases are the remaining {fmt(rest[0].share, 'tenths')} %"
    total = parts[-1]
    overrun = total.ms - whole_ms
    top = max((p for p in parts[:-1] if p.part_of is None), key=lambda p: p.ms)
    clause = (
        f"the phases, each timed alone, add up to {fmt(overrun, 'tenths')} ms more than the whole job timed in the "
        "same rounds: spread between runs rather than a phase"
    )
    if overrun > total.ms - top.ms:
        clause += f", larger than all the other phases together, since {top.name} is nearly all of the job"
    return clause + "; so the shares are of the phases' sum, and no rest below zero is shown"


def _breakdown_values(record: Mapping[str, Any], which: str) -> dict[str, Any]:
    b = breakdown_of(record, which)
    parts = breakdown_parts(record, which)
    values: dict[str, Any] = {}
    measured = {p["phase"]: 1000 * p["cpu_median_s"] for p in b["phases"]}
    for p in parts[:-1]:
        values[f"perf_{which}_share_{p.phase}"] = p.share
        values[f"perf_{which}_ms_{p.phase}"] = p.ms if p.phase == "remainder" else measured[p.phase]
    values[f"perf_{which}_breakdown_whole_ms"] = 1000 * b["whole_cpu_median_s"]
    values[f"perf_{which}_breakdown_total_ms"] = parts[-1].ms
    out = _shown(is_busy(record, b), values)
    out[f"perf_{which}_balance"] = _balance(parts, 1000 * b["whole_cpu_median_s"])
    out[f"perf_{which}_breakdown_steps"] = b["steps"]
    if "size" in b:
        out[f"perf_{which}_size"] = b["size"]
    top = max(
        (p for p in b["phases"] if p["part_of"] is None and p["phase"] != "remainder"), key=lambda p: p["cpu_median_s"]
    )
    out[f"perf_{which}_top_phase"] = PHASE_NAMES[top["phase"]]
    return out


# -- the targets ----------------------------------------------------------------------------------

#: What each of the record's ratio targets compares, in the words of the table.
TARGET_NAMES = {
    "grid_vs_original": "the grid, the original's time over cvlib's",
    "cold_start_vs_original": "cold start, cvlib's time over the original's",
    "cold_start_vs_interpreter": "cold start, cvlib's time over the bare interpreter's",
    "random_family_vs_reference": "random plans, the reference loop's time per plan over cvlib's",
    "processes_vs_serial": "sweep, processes backend's speed-up over serial",
    "dask_vs_serial": "sweep, Dask backend's speed-up over serial",
    "model_layout_speedup": "model recording, a task's arms together over one fresh run per arm",
}


def _absolute_targets(record: Mapping[str, Any]) -> Iterable[dict[str, Any]]:
    """The record's targets on a time or a size (the grid, both cold starts, peak memory), as table rows."""
    grid = next((r for r in record.get("cases", ()) if r["case"] == "grid"), None)
    if grid is not None and grid.get("target_s"):
        ms, target = 1000 * grid["fast"]["cpu_median_s"], 1000 * grid["target_s"]
        yield _absolute(
            record,
            grid,
            "the grid, CPU time",
            f"at most {fmt(target, 'tenths')} ms",
            f"{fmt(ms, 'tenths')} ms",
            grid.get("target_met"),
        )
    startup = record.get("startup", {})
    for key, name in (
        ("cold_start", "cold start, import cvlib; cvlib.run_scenario('A'), CPU time"),
        ("cli_cold_start", "the command line's start, cvlib run A, CPU time"),
    ):
        row = startup.get(key)
        if row is not None and row.get("target_s"):
            measured = f"{fmt(row['cpu_median_s'], 'milliseconds')} s"
            yield _absolute(record, row, name, f"at most {row['target_s']:g} s", measured, row.get("target_met"))
    mem = record.get("memory")
    if mem is not None and mem.get("target_mib"):
        name = f"peak memory, a {mem['steps']:,}-step scenario"
        yield _absolute(
            record,
            mem,
            name,
            f"at most {mem['target_mib']:g} MiB",
            fmt(mem["fast"]["peak_mib"], "mib"),
            mem.get("target_met"),
        )


def _absolute(
    record: Mapping[str, Any], row: Mapping[str, Any], name: str, wanted: str, measured: str, met: bool | None
) -> dict[str, Any]:
    busy = is_busy(record, row)
    return {
        "target": name,
        "wanted": wanted,
        "measured": BUSY_TEXT if busy else measured,
        "verdict": "" if busy else _met(met),
        "met": None if busy else met,
    }


def target_rows(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every target the record judges: the absolute ones first, then the ratio targets of its ``verdicts``.

    Each row holds ``target``, ``wanted``, ``measured``, ``verdict`` (met,
    missed, not judged, or blank when the row was not measured) and ``met``
    (True, False or None).

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    list of dict
    """
    rows = list(_absolute_targets(record))
    for name, v in (record.get("verdicts") or {}).items():
        measured = v["ratio"] is not None
        rows.append(
            {
                "target": TARGET_NAMES.get(name, name),
                "wanted": f"{v['why']} {v['target']:g}×" if measured else f"{v['target']:g}×",
                "measured": f"{v['ratio']:.2f}×" if measured else v["why"],
                "verdict": _met(v["met"]) if measured else "",
                "met": v["met"] if measured else None,
            }
        )
    return rows


def target_table(record: Mapping[str, Any]) -> pd.DataFrame | None:
    """Every target beside what was measured and whether it is met, in one table; None for a record with none.

    The ratios are shown to two decimals, so that a ratio just short of its
    target (9.95 against 10) does not read as reaching it; a target whose
    row was busy, or whose parallel rows ran on a machine that was not
    otherwise idle, says so instead of a verdict.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    pandas.DataFrame or None
    """
    import pandas as pd

    rows = target_rows(record)
    if not rows:
        return None
    return pd.DataFrame([{k: v for k, v in row.items() if k != "met"} for row in rows]).set_index("target")


def _target_values(record: Mapping[str, Any]) -> dict[str, Any]:
    rows = target_rows(record)
    judged = [r for r in rows if r["met"] is not None]
    missed = [r["target"] for r in judged if not r["met"]]
    return {
        "perf_targets": len(rows),
        "perf_targets_judged": len(judged),
        "perf_targets_met": sum(1 for r in judged if r["met"]),
        "perf_targets_missed": listing(missed, last=" and ") if missed else "none",
    }


# -- the glued numbers ----------------------------------------------------------------------------


def _machine_values(record: Mapping[str, Any]) -> dict[str, Any]:
    m = record["machine"]
    return {
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


def _grid_values(record: Mapping[str, Any]) -> dict[str, Any]:
    grid = case_row(record, "grid")
    grid_vs, grid_how = _vs_original(grid, grid["fast"]["cpu_median_s"])
    out = _shown(
        is_busy(record, grid),
        {
            "perf_grid_ms": 1000 * grid["fast"]["cpu_median_s"],
            "perf_grid_wall_ms": 1000 * grid["fast"]["wall_median_s"],
            "perf_grid_ratio": grid["ratio"],
            "perf_grid_vs_original": grid_vs if grid_vs is not None else "not measured",
        },
    )
    out.update(
        perf_grid_target_ms=1000 * grid["target_s"] if grid.get("target_s") else None,
        perf_grid_met=BUSY_TEXT if is_busy(record, grid) else _met(grid.get("target_met")),
        perf_grid_steps=grid["steps"],
        perf_grid_configs=grid["size"],
        perf_grid_quoted_ms=1000 * grid["quoted_original_s"] if grid.get("quoted_original_s") else None,
        perf_grid_original_how=grid_how or "not measured",
    )
    return out


def _case_values(record: Mapping[str, Any], case: str) -> dict[str, Any]:
    """The largest size of a scaling case (chain or isolated branches), in milliseconds as the speed table writes them."""
    rows = [r for r in record["cases"] if r["case"] == case]
    if not rows:
        return {}
    largest = max(rows, key=lambda r: r["steps"])
    shown = [r for r in rows if not is_busy(record, r)]
    vs, how = _vs_original(largest, largest["fast"]["cpu_median_s"])
    out: dict[str, Any] = {f"perf_{case}_largest_steps": largest["steps"]}
    values = {
        f"perf_{case}_largest_cpu": 1000 * largest["fast"]["cpu_median_s"],
        f"perf_{case}_largest_reference": 1000 * largest["reference"]["cpu_median_s"],
        f"perf_{case}_vs_original": vs if vs is not None else "not measured",
    }
    out.update(_shown(is_busy(record, largest), values))
    out[f"perf_{case}_original_how"] = how or "not measured"
    out[f"perf_{case}_ratio_min"] = min(r["ratio"] for r in shown) if shown else BUSY_TEXT
    out[f"perf_{case}_ratio_max"] = max(r["ratio"] for r in shown) if shown else BUSY_TEXT
    out[f"perf_{case}_exponent"] = rows[0].get("growth_exponent") if len(shown) == len(rows) else BUSY_TEXT
    return out


def _chain_job_values(record: Mapping[str, Any]) -> dict[str, Any]:
    """The chain the breakdown cuts up, timed as the speed table times it (one number for one job), else as the breakdown's whole."""
    b = record.get("breakdowns", {}).get("chain")
    if b is None:
        return {}
    row = next((r for r in record["cases"] if r["case"] == "chain" and r["steps"] == b["steps"]), None)
    if row is None:
        return _shown(is_busy(record, b), {"perf_chain_job_ms": 1000 * b["whole_cpu_median_s"]})
    return _shown(is_busy(record, row), {"perf_chain_job_ms": 1000 * row["fast"]["cpu_median_s"]})


def _family_values(record: Mapping[str, Any]) -> dict[str, Any]:
    family = [r for r in record["cases"] if r["case"] == "random_family"]
    if not family:
        return {}
    f = family[0]
    per_plan = f.get("per_plan_us") or {k: 1e6 * f[k]["cpu_median_s"] / f["size"] for k in ("fast", "reference")}
    out: dict[str, Any] = {"perf_family_plans": f["size"]}
    values = {
        "perf_family_ratio": f["ratio"],
        "perf_family_us": per_plan["fast"],
        "perf_family_reference_us": per_plan["reference"],
        "perf_family_floor_us": per_plan.get("floor", "not measured"),
        "perf_family_vs_floor": f.get("fast_vs_floor", "not measured"),
    }
    out.update(_shown(is_busy(record, f), values))
    return out


def _memory_values(record: Mapping[str, Any]) -> dict[str, Any]:
    if "memory" not in record:
        return {}
    mem = record["memory"]
    original_mib = mem["original"]["peak_mib"] if "original" in mem else mem.get("quoted_original_mib")
    out = _shown(
        is_busy(record, mem),
        {
            "perf_peak_mib": mem["fast"]["peak_mib"],
            "perf_peak_reference_mib": mem["reference"]["peak_mib"],
            "perf_peak_baseline_mib": mem["baseline"]["peak_mib"],
            "perf_peak_original_mib": original_mib if original_mib is not None else "not measured",
        },
    )
    out.update(
        perf_peak_steps=mem["steps"],
        perf_peak_target_mib=mem["target_mib"],
        perf_peak_met=BUSY_TEXT if is_busy(record, mem) else _met(mem["target_met"]),
        perf_peak_original_how="same run" if "original" in mem else "quoted",
    )
    return out


def _startup_values(record: Mapping[str, Any]) -> dict[str, Any]:
    if "startup" not in record:
        return {}
    s = record["startup"]
    cold, cli = s["cold_start"], s["cli_cold_start"]
    busy = is_busy(record, cold)
    original = s.get("original_cold_start")
    original_s = original["cpu_median_s"] if original else cold.get("quoted_original_s")
    out = _shown(
        busy,
        {
            "perf_cold_start": cold["cpu_median_s"],
            "perf_cold_vs_interpreter": cold["ratio_to_interpreter"],
            "perf_cold_original": original_s if original_s is not None else "not measured",
            "perf_cold_vs_original": cold["cpu_median_s"] / original_s if original_s else "not measured",
            "perf_cli_cold_start": cli["cpu_median_s"],
            "perf_interpreter": s["interpreter"]["cpu_median_s"],
        },
    )
    out.update(
        perf_cold_start_met=BUSY_TEXT if busy else _met(cold["target_met"]),
        perf_cold_target=cold["target_s"],
        perf_cli_met=BUSY_TEXT if busy else _met(cli["target_met"]),
        perf_cli_target=cli.get("target_s") or "none",
        perf_cli_vs_interpreter=BUSY_TEXT if busy else cli["ratio_to_interpreter"],
        perf_cold_original_how="same run" if original else "quoted",
    )
    return out


def _sweep_values(record: Mapping[str, Any]) -> dict[str, Any]:
    if "sweeps" not in record:
        return {}
    t, st = record["sweeps"]["throughput"], record["sweeps"]["startup"]
    busy, counts = is_busy(record, record["sweeps"]), parallel_counts(record)
    out: dict[str, Any] = {
        "perf_sweep_plans": t["plans"],
        "perf_sweep_workers": t["workers"],
        "perf_sweep_chunks": t.get("chunks", "not recorded"),
        "perf_sweep_chunk_size": t.get("chunk_size", "not recorded"),
    }
    values = {
        "perf_sweep_serial": t["backends"]["serial"]["wall_median_s"],
        "perf_sweep_first_forkserver": st["forkserver"]["wall_median_s"],
        "perf_sweep_first_spawn": st["spawn"]["wall_median_s"],
    }
    out.update(_shown(busy, values))
    for name in ("processes", "dask"):
        speedup = t["backends"][name]["speedup_vs_serial_wall"]
        out[f"perf_sweep_{name}_speedup"] = BUSY_TEXT if busy else speedup if counts else NOT_IDLE_TEXT
    others = record["sweeps"].get("others_busy_cores") or [None, None]
    out["perf_sweep_others"] = max(others) if None not in others else "not recorded"
    return out


def glue_values(record: Mapping[str, Any]) -> dict[str, Any]:
    """Every number the Performance chapter states, by glue key (``perf_…``), read from the record.

    A row measured on a busy machine gives :data:`~cvlib.presentation.benchmark_record.BUSY_TEXT`
    for each of its numbers, and the parallel speed-ups
    :data:`~cvlib.presentation.benchmark_record.NOT_IDLE_TEXT` unless
    :func:`~cvlib.presentation.benchmark_record.parallel_counts`; the chapter's
    sentences are written so that either reads.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    dict
        Plain ints, floats and strings.
    """
    out = _machine_values(record) | _grid_values(record)
    for case in ("chain", "isolated_branches"):
        out |= _case_values(record, case)
    out |= _chain_job_values(record) | _family_values(record) | _memory_values(record) | _startup_values(record)
    for which in ("grid", "chain", "branches"):
        if which in record.get("breakdowns", {}):
            out |= _breakdown_values(record, which)
    out |= _sweep_values(record) | _target_values(record)
    out["perf_model_summary"] = model_summary(record)
    out |= _model_values(record) | _load_values(record)
    return out


def _model_values(record: Mapping[str, Any]) -> dict[str, Any]:
    """The models the record's ``models`` part timed, named as the pages name them."""
    stems = record.get("models", {}).get("models") or []
    names = listing(dict.fromkeys(model_label(s) for s in stems), last=" and ") if stems else ""
    return {"perf_models": names or "no model (this record has no model rows)"}


def _load_values(record: Mapping[str, Any]) -> dict[str, Any]:
    """The lowest and highest load average around the timed cases (the speed table leaves each row's out)."""
    loads = case_loads(record)
    return {"perf_case_loads": span(loads, "tenths") if loads else "not recorded"}


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
    "perf_chain_largest_cpu": "milliseconds",
    "perf_chain_largest_reference": "milliseconds",
    "perf_chain_job_ms": "milliseconds",
    "perf_chain_vs_original": "count",
    "perf_isolated_branches_largest_cpu": "milliseconds",
    "perf_isolated_branches_largest_reference": "milliseconds",
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
    "perf_cli_target": "mean",
    "perf_cli_vs_interpreter": "mean",
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

    A breakdown's shares and times are written to one decimal, as its table writes them.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    dict
        Key to (value, kind of quantity).
    """
    values = glue_values(record)
    kinds = dict(KINDS)
    for key in values:
        if key.startswith(("perf_grid_share_", "perf_chain_share_", "perf_branches_share_")):
            kinds.setdefault(key, "tenths")
        elif key.endswith("_ms") or "_ms_" in key:
            kinds.setdefault(key, "tenths")
    return {key: (value, kinds.get(key, "count")) for key, value in values.items()}
