"""The benchmark record as the Performance chapter and the README show it: tables, figures, numbers.

``python -m benchmarks`` (``scripts/bench.sh``) measures and writes
``data/benchmarks/latest.json``; nothing here measures or computes a
result. Each function takes that record (a dict, as read by
:func:`load_record`) and returns what a page shows: a table with human
column names, a figure in the book's style, the numbers the chapter glues,
or the README's performance table. The original implementation's figures
appear only where the record quotes them, labelled as quoted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.presentation.figures import ACCENTS, PALETTE
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
    "draws": "random draws of the wiring",
    "plans": "building plans",
    "setup": "facts, event, budget, set-up check",
    "structure": "structure summary",
    "executors": "both executors",
    "table": "rows and DataFrame",
    "remainder": "the rest (calls between phases)",
}

_REQUIRED = ("machine", "cases")


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
    """Each timed case: the library's CPU time, the reference loop's, their ratio; quoted figures labelled.

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
        rows.append(
            {
                "case": CASE_NAMES.get(r["case"], r["case"]),
                "size": f"{r['size']:,} {r['unit']}",
                "steps": f"{r['steps']:,}",
                "cvlib, CPU (ms)": round(1000 * r["fast"]["cpu_median_s"], 2),
                "reference loop, CPU (ms)": round(1000 * r["reference"]["cpu_median_s"], 1),
                "reference ÷ cvlib": round(r["ratio"], 1),
                "original, quoted (ms)": _quoted_ms(r.get("quoted_original_s")),
            }
        )
    return pd.DataFrame(rows).set_index("case")


def _quoted_ms(seconds: float | None) -> str:
    """A quoted figure in ms as text, blank when there is none (never NaN on the page)."""
    return "" if seconds is None else f"{1000 * seconds:,.0f}"


def memory_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """Peak memory of the million-step scenario: cvlib, the reference loop, and the bare import.

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
    return pd.DataFrame(
        [
            {"process": "python, cvlib imported, nothing run", "peak memory (MiB)": round(m["baseline"]["peak_mib"])},
            {"process": f"cvlib: {m['scenario']}", "peak memory (MiB)": round(m["fast"]["peak_mib"])},
            {"process": "the same with the reference loop", "peak memory (MiB)": round(m["reference"]["peak_mib"])},
        ]
    ).set_index("process")


def startup_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """Start-up of a fresh interpreter running one short job, against the bare interpreter.

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
    }
    rows = []
    for key, label in names.items():
        row = record["startup"][key]
        rows.append(
            {
                "command": label,
                "CPU (ms)": round(1000 * row["cpu_median_s"], 1),
                "wall (ms)": round(1000 * row["wall_median_s"], 1),
                "× bare interpreter (CPU)": round(row["ratio_to_interpreter"], 1),
                "original, quoted (ms)": _quoted_ms(row.get("quoted_original_s")),
            }
        )
    return pd.DataFrame(rows).set_index("command")


def sweep_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """One random family swept on each backend (wall time), and the processes backend's first start.

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
    rows = [
        {
            "what": f"{t['plans']:,} plans, {name} backend" + ("" if name == "serial" else f", {t['workers']} workers"),
            "wall (s)": round(row["wall_median_s"], 2),
            "serial ÷ this": f"{row['speedup_vs_serial_wall']:.2f}",
        }
        for name, row in t["backends"].items()
    ]
    rows += [
        {
            "what": f"first processes sweep in a fresh interpreter, workers by {method}",
            "wall (s)": round(s[method]["wall_median_s"], 2),
            "serial ÷ this": "",
        }
        for method in ("forkserver", "spawn")
    ]
    return pd.DataFrame(rows).set_index("what")


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


def glue_values(record: Mapping[str, Any]) -> dict[str, Any]:
    """Every number the Performance chapter states, by glue key (``perf_…``), read from the record.

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
        "perf_grid_ms": 1000 * grid["fast"]["cpu_median_s"],
        "perf_grid_wall_ms": 1000 * grid["fast"]["wall_median_s"],
        "perf_grid_target_ms": 1000 * grid["target_s"] if grid.get("target_s") else None,
        "perf_grid_met": _met(grid.get("target_met")),
        "perf_grid_ratio": grid["ratio"],
        "perf_grid_steps": grid["steps"],
        "perf_grid_configs": grid["size"],
        "perf_grid_quoted_ms": 1000 * grid["quoted_original_s"] if grid.get("quoted_original_s") else None,
    }
    for case in ("chain", "isolated_branches"):
        rows = [r for r in record["cases"] if r["case"] == case]
        if rows:
            largest = max(rows, key=lambda r: r["steps"])
            out[f"perf_{case}_largest_steps"] = largest["steps"]
            out[f"perf_{case}_largest_cpu"] = largest["fast"]["cpu_median_s"]
            out[f"perf_{case}_largest_reference"] = largest["reference"]["cpu_median_s"]
            out[f"perf_{case}_ratio_min"] = min(r["ratio"] for r in rows)
            out[f"perf_{case}_ratio_max"] = max(r["ratio"] for r in rows)
            out[f"perf_{case}_exponent"] = rows[0].get("growth_exponent")
    family = [r for r in record["cases"] if r["case"] == "random_family"]
    if family:
        out["perf_family_ratio"] = family[0]["ratio"]
        out["perf_family_plans"] = family[0]["size"]
    if "memory" in record:
        mem = record["memory"]
        out.update(
            perf_peak_steps=mem["steps"],
            perf_peak_mib=mem["fast"]["peak_mib"],
            perf_peak_reference_mib=mem["reference"]["peak_mib"],
            perf_peak_baseline_mib=mem["baseline"]["peak_mib"],
            perf_peak_target_mib=mem["target_mib"],
            perf_peak_met=_met(mem["target_met"]),
        )
    if "startup" in record:
        s = record["startup"]
        out.update(
            perf_cold_start=s["cold_start"]["cpu_median_s"],
            perf_cold_start_met=_met(s["cold_start"]["target_met"]),
            perf_cold_target=s["cold_start"]["target_s"],
            perf_cli_cold_start=s["cli_cold_start"]["cpu_median_s"],
            perf_cli_met=_met(s["cli_cold_start"]["target_met"]),
            perf_interpreter=s["interpreter"]["cpu_median_s"],
        )
    for which in ("grid", "chain", "branches"):
        b = record.get("breakdowns", {}).get(which)
        if b is None:
            continue
        for p in b["phases"]:
            out[f"perf_{which}_share_{p['phase']}"] = 100 * p["share_of_whole"]
            out[f"perf_{which}_ms_{p['phase']}"] = 1000 * p["cpu_median_s"]
        out[f"perf_{which}_breakdown_whole_ms"] = 1000 * b["whole_cpu_median_s"]
        out[f"perf_{which}_breakdown_steps"] = b["steps"]
        if "size" in b:
            out[f"perf_{which}_size"] = b["size"]
        top = max((p for p in b["phases"] if p["part_of"] is None and p["phase"] != "remainder"),
                  key=lambda p: p["cpu_median_s"])
        out[f"perf_{which}_top_phase"] = PHASE_NAMES[top["phase"]]
    if "sweeps" in record:
        t, st = record["sweeps"]["throughput"], record["sweeps"]["startup"]
        out.update(
            perf_sweep_plans=t["plans"],
            perf_sweep_serial=t["backends"]["serial"]["wall_median_s"],
            perf_sweep_processes_speedup=t["backends"]["processes"]["speedup_vs_serial_wall"],
            perf_sweep_dask_speedup=t["backends"]["dask"]["speedup_vs_serial_wall"],
            perf_sweep_first_forkserver=st["forkserver"]["wall_median_s"],
            perf_sweep_first_spawn=st["spawn"]["wall_median_s"],
        )
    return out


def _met(verdict: bool | None) -> str:
    return "not judged" if verdict is None else "met" if verdict else "missed"


# -- the README ---------------------------------------------------------------------------------

README_BEGIN = "<!-- performance table: written by `python -m benchmarks.readme` from data/benchmarks/latest.json -->"
README_END = "<!-- end of performance table -->"


def readme_table(record: Mapping[str, Any]) -> str:
    """The README's performance table (Markdown) from a benchmark record, with the original's figures beside.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    str
        The table and a line saying when, where and how it was measured.
    """
    m = record["machine"]
    lines = [
        "| case | cvlib | compared with, in the same run | ratio | original, quoted |",
        "|---|---:|---:|---:|---:|",
    ]
    for case, size in (("chain", 100_000), ("chain", 1_000_000), ("isolated_branches", 10_000), ("grid", 96)):
        try:
            r = _case(record, case, size)
        except ParameterError:
            continue
        quoted = "" if r.get("quoted_original_s") is None else _seconds(r["quoted_original_s"])
        steps = "" if r["unit"] == "steps" else f" ({r['steps']:,} steps)"
        lines.append(
            f"| {CASE_NAMES[r['case']].split(' (')[0]}, {r['size']:,} {r['unit']}{steps} "
            f"| {_seconds(r['fast']['cpu_median_s'])} CPU | {_seconds(r['reference']['cpu_median_s'])} (reference loop) "
            f"| {r['ratio']:.0f}× faster | {quoted} |"
        )
    if "memory" in record:
        mem = record["memory"]
        lines.append(
            f"| peak memory, a {mem['steps']:,}-step scenario | {mem['fast']['peak_mib']:.0f} MiB "
            f"| {mem['reference']['peak_mib']:.0f} MiB (reference loop) | {mem['ratio']:.0f}× less | |"
        )
    if "startup" in record:
        s = record["startup"]
        for key, label in (("cold_start", "cold start, `import cvlib; cvlib.run_scenario('A')`"),
                           ("cli_cold_start", "CLI cold start, `cvlib run A`")):
            row = s[key]
            quoted = "" if row.get("quoted_original_s") is None else _seconds(row["quoted_original_s"])
            lines.append(
                f"| {label} | {_seconds(row['cpu_median_s'])} CPU | {_seconds(s['interpreter']['cpu_median_s'])} "
                f"(bare interpreter) | {row['ratio_to_interpreter']:.1f}× the interpreter's | {quoted} |"
            )
    if "sweeps" in record:
        t = record["sweeps"]["throughput"]
        serial = t["backends"]["serial"]["wall_median_s"]
        for name in ("processes", "dask"):
            row = t["backends"][name]
            lines.append(
                f"| sweep of {t['plans']:,} random plans, {name} backend, {t['workers']} workers "
                f"| {_seconds(row['wall_median_s'])} wall | {_seconds(serial)} (serial backend) "
                f"| {row['speedup_vs_serial_wall']:.2f}× faster | |"
            )
    lines.append("")
    lines.append(
        f"Measured {m.get('measured_at', '(date not recorded)')} on {m['cores']} cores ({m['cpu']}), "
        f"Python {m['python']}, load average {_loads(record)} at start and end; CPU-time medians of "
        f"{record['repeats']} interleaved runs (sweeps: wall time). Original: {record['quoted_source']}."
    )
    return "\n".join(lines)


def _seconds(value: float) -> str:
    if value < 1:
        return f"{1000 * value:.3g} ms"
    return f"{value:.3g} s"


def with_readme_table(readme: str, record: Mapping[str, Any]) -> str:
    """``readme`` with the text between the performance-table markers replaced by :func:`readme_table`.

    Parameters
    ----------
    readme : str
        The README's text; it must hold both markers.
    record : dict
        A benchmark record.

    Returns
    -------
    str
    """
    if README_BEGIN not in readme or README_END not in readme:
        raise ParameterError("the README has no performance-table markers; add README_BEGIN and README_END")
    head, rest = readme.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    return f"{head}{README_BEGIN}\n{readme_table(record)}\n{README_END}{tail}"
