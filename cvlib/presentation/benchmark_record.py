"""The benchmark record as pages show it: reading it, judging its rows, its tables and figures.

``python -m benchmarks`` (``scripts/bench.sh``) measures and writes
``data/benchmarks/latest.json``; nothing here measures or computes a
result. Each function takes that record (a dict, as read by
:func:`load_record`) and returns what a page shows: a table with human
column names or a figure in the book's style (the README's table is written
by ``benchmarks/report.py`` from the same record and the same rules). What
only the Performance chapter says of the record (its glued numbers, its
targets in one table, its breakdowns in parts that add up) is
:mod:`cvlib.presentation.chapters.performance`. The original
implementation's figures appear as measured in the same run when the suite
was given a checkout of it (``--original``), else as quoted figures,
labelled as such.

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
from cvlib.presentation.formatting import fmt, listing, plural, span
from cvlib.repository import data_path

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

#: How the README and the chapter name each timed case.
CASE_NAMES: dict[str, str] = {
    "chain": "chain (scenario D1)",
    "isolated_branches": "isolated branches (scenario D3)",
    "grid": "the 96-configuration grid (D2)",
    "single_runs": "the grid's plans as 96 single runs (D2)",
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
#: A row measured over a whole run (the model rows) is busy when other processes kept more than this many
#: cores busy on average meanwhile (``benchmarks.machine.OthersMeter``): a burst the load average misses.
BUSY_OTHERS_CORES = 0.25
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
    others = row.get("others_cores_during")
    if others is not None and others > BUSY_OTHERS_CORES:
        return True
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


def case_row(record: Mapping[str, Any], case: str, size: int | None = None) -> Mapping[str, Any]:
    """The record's row of one timed case (at one size, when given).

    Parameters
    ----------
    record : dict
        A benchmark record.
    case : str
        ``"chain"``, ``"isolated_branches"``, ``"grid"`` or ``"random_family"``.
    size : int or None
        The case's size; None takes its first row.

    Returns
    -------
    dict

    Raises
    ------
    ParameterError
        The record has no such row.
    """
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
    has it (``--original``), else the quoted figure; when every row's original
    was had the same way the column's name says how, else each figure does. A
    row measured on a busy machine shows :data:`BUSY_TEXT` instead of figures.
    Narrow enough for the text column: the steps go with the size when they
    differ from it, and each row's load average is in :func:`case_loads`.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    hows = {original_seconds(r)[1] for r in record["cases"]} - {""}
    common = hows.pop() if len(hows) == 1 else None
    original_name = f"original, {common} (ms)" if common else "original (ms)"
    rows = []
    for r in record["cases"]:
        size = f"{r['size']:,} {r['unit']}"
        row: dict[str, Any] = {
            "case": CASE_NAMES.get(r["case"], r["case"].replace("_", " ")),
            "size": size if r["unit"] == "steps" else f"{size}, {r['steps']:,} steps",
        }
        if is_busy(record, r):
            row.update({"cvlib (ms)": BUSY_TEXT, "reference loop (ms)": "", "reference ÷ cvlib": "",
                        original_name: "", "original ÷ cvlib": ""})
        else:
            original, how = original_seconds(r)
            written = "" if original is None else fmt(1000 * original, "milliseconds")
            row.update({
                "cvlib (ms)": fmt(1000 * r["fast"]["cpu_median_s"], "milliseconds"),
                "reference loop (ms)": fmt(1000 * r["reference"]["cpu_median_s"], "milliseconds"),
                "reference ÷ cvlib": fmt(r["ratio"], "ratio"),
                original_name: written if common or not written else f"{written} ({how})",
                "original ÷ cvlib": "" if original is None else fmt(original / r["fast"]["cpu_median_s"], "ratio"),
            })
        rows.append(row)
    return pd.DataFrame(rows).set_index("case")


def case_loads(record: Mapping[str, Any]) -> tuple[float, float] | None:
    """The lowest and highest 1-minute load average before or after any timed case (None: none recorded).

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    tuple of float, or None
    """
    loads = [x[0] for r in record["cases"] for x in (r.get("load_before"), r.get("load_after")) if x]
    return (min(loads), max(loads)) if loads else None


def original_seconds(row: Mapping[str, Any]) -> tuple[float | None, str]:
    """The original's CPU seconds for a row and how it was had: measured in the same run, or quoted.

    Parameters
    ----------
    row : dict
        One of the record's timed cases.

    Returns
    -------
    tuple
        ``(seconds, "same run")``, ``(seconds, "quoted")`` or ``(None, "")``.
    """
    if "original" in row:
        return row["original"]["cpu_median_s"], "same run"
    if row.get("quoted_original_s") is not None:
        return row["quoted_original_s"], "quoted"
    return None, ""


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


def breakdown_of(record: Mapping[str, Any], which: str) -> Mapping[str, Any]:
    """One of the record's breakdowns: each phase of a job timed alone, and the whole job.

    Parameters
    ----------
    record : dict
        A benchmark record.
    which : str
        ``"grid"``, ``"chain"`` or ``"branches"``.

    Returns
    -------
    dict

    Raises
    ------
    ParameterError
        The record has no such breakdown.
    """
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


    b = breakdown_of(record, which)
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


def _arms(values: Mapping[str, float]) -> str:
    return ", ".join(f"{arm.replace('_', ' ')} {fmt(v, 'seconds')}" for arm, v in values.items())


def _first_edition(values: Mapping[str, float]) -> list[float]:
    """The first edition's seconds per call (greedy, sampled), without the second edition's cell."""
    return list(_split_editions(values)[0].values())


def _split_editions(values: Mapping[str, float]) -> tuple[dict[str, float], dict[str, float]]:
    """Seconds per call of the first edition (greedy, sampled) and of the second edition's cell by evaluation."""
    second = {kind.removeprefix("edition2_"): v for kind, v in values.items() if kind.startswith("edition2_")}
    ordered: dict[str, float] = {way: second[way] for way in ("pure", "aligned", "cached") if way in second}
    return {kind: v for kind, v in values.items() if not kind.startswith("edition2_")}, ordered


def model_name(row: Mapping[str, Any]) -> str:
    """How the pages name the model of a record's row: ``SmolLM2-135M`` for a bundled model's file, else the file's stem.

    Parameters
    ----------
    row : dict
        A model row (or the layout) of a benchmark record; its ``model`` is a GGUF file name or a recording stem.

    Returns
    -------
    str
    """
    from cvlib.models.bundled import BUNDLED
    from cvlib.models.naming import recording_stem
    from cvlib.presentation._study_models import model_label

    by_file = {m.file_name: name for name, m in BUNDLED.items()}
    return model_label(by_file.get(row["model"], recording_stem(row["model"])))


def _threads(count: int) -> str:
    return {1: "one thread", 2: "two threads"}.get(count, plural(count, "thread"))


def model_table(record: Mapping[str, Any]) -> pd.DataFrame | None:
    """A local language model on the record's machine, one row per model and thread count; None when the record has none.

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
            "agent-study call (s)": _arms(_split_editions(row["seconds_per_decision"])[0]),
            "second edition's call (s)": _arms(_split_editions(row["seconds_per_decision"])[1]) or "not measured",
            "notes edit trial (s)": _arms(row.get("seconds_per_edit_trial", {})),
        }
        if busy:
            shown = {key: (BUSY_TEXT if i == 0 else "") for i, key in enumerate(shown)}
        rows.append({"model, threads": f"{model_name(row)}, {row['threads']}", **shown})
    return pd.DataFrame(rows).set_index("model, threads") if rows else None


def model_summary(record: Mapping[str, Any]) -> str:
    """A few short sentences on the record's model rows, or one on why it has none (so the paragraph always reads).

    Per thread count: each model's seconds per agent-study call and per
    notes edit trial (one figure when the arms took the same time, else
    their range); then what a second thread gave; then what recording a
    task's arms together saves (``benchmarks.model_layout``).

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    str
        Whole sentences, each ending with a full stop.
    """
    part = record.get("models")
    if not part:
        return "This record has no model rows: it was written before the suite measured a model."
    if "skipped" in part:
        return f"This record has no model rows: the model packages were not installed ({part['skipped']})."
    by_threads: dict[int, dict[str, Mapping[str, Any] | None]] = {}
    for row in part["rows"]:
        by_threads.setdefault(int(row["threads"]), {})[model_name(row)] = None if is_busy(record, row) else row
    sentences = []
    for threads, rows in sorted(by_threads.items()):
        calls = [(name, f"{span(_first_edition(r['seconds_per_decision']), 'seconds')} s" if r else BUSY_TEXT)
                 for name, r in rows.items()]
        sentences.append(f"On {_threads(threads)}, an agent-study call took "
                         + listing([f"{said} with {name}" for name, said in calls], last=" and ") + ".")
        pure = [(name, r["seconds_per_decision"]) for name, r in rows.items()
                if r and "edition2_pure" in r["seconds_per_decision"]]
        if pure:
            sentences.append("A call of the second edition's first cell took "
                             + listing([_second_edition_costs(name, d) for name, d in pure], last="; ") + ".")
        edits = [f"{span(r['seconds_per_edit_trial'].values(), 'seconds')} s" if r else BUSY_TEXT
                 for r in rows.values() if r is None or r.get("seconds_per_edit_trial")]
        if edits:
            sentences.append(f"A notes edit trial took {listing(edits, last=' and ')}, in the same order.")
    gains = _second_thread(by_threads)
    if gains:
        sentences.append(f"A second thread made generation {listing(gains, last=' and ')} as fast.")
    return " ".join(sentences) + _layout_sentence(record)


def _second_edition_costs(name: str, seconds: Mapping[str, float]) -> str:
    """Seconds per call pure, aligned where measured (the two ways an answer depends on its prompt alone), and cached."""
    ways = [f"{fmt(seconds[f'edition2_{way}'], 'seconds')} s {way}" for way in ("pure", "aligned", "cached")
            if f"edition2_{way}" in seconds]
    return f"{listing(ways, last=' and ')} with {name}"


def _second_thread(by_threads: Mapping[int, Mapping[str, Mapping[str, Any] | None]]) -> list[str]:
    """Each model's generation rate on two threads over one, where both were measured."""
    one, two = by_threads.get(1, {}), by_threads.get(2, {})
    out = []
    for name, row in one.items():
        other = two.get(name)
        if row and other:
            out.append(f"{fmt(other['generation_tokens_per_s'] / row['generation_tokens_per_s'], 'ratio')} ({name})")
    return out


def _layout_sentence(record: Mapping[str, Any]) -> str:
    """What recording a task's arms together saves over one fresh run per arm (``benchmarks.model_layout``)."""
    layout = record.get("models", {}).get("layout")
    if not layout:
        return ""
    if is_busy(record, layout):
        return f" The recording layouts were {BUSY_TEXT}."
    regen, chosen = layout["regenerated"], layout["chosen"]
    return (f" Recording a task's four arms back to back after one reset, so that only the first reads the shared "
            f"prompt, is {fmt(layout['layout_speedup'], 'ratio_fine')} as fast per task as one fresh run per arm."
            f" That is {fmt(layout['floor_ratio'], 'ratio_fine')} the runtime's own floor, measured with "
            f"{model_name(layout)} on {plural(layout['tasks'], 'task')} with {plural(chosen['workers'], 'worker')} of "
            f"{_threads(int(chosen['threads']))}; {fmt(regen['identical'])} of {fmt(regen['sampled'])} re-generated "
            "calls came back byte-identical.")
