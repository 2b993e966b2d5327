"""What a benchmark record says, written out: the console table, the README's table, the busy marks.

The suite (:mod:`benchmarks.run`) measures; this module only writes. The
rules for what may be printed as a figure are the chapter's
(:mod:`cvlib.presentation.performance`): a row measured above
``BUSY_LOAD_PER_CORE`` per core is shown as "not measured: machine busy",
and the parallel speed-ups count only when the machine was otherwise idle.
The original implementation's times are the ones measured in the same run
when the suite had a checkout of it (``--original``), else the quoted
figures, and the table says which.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cvlib.presentation.performance import (
    BUSY_TEXT,
    CASE_NAMES,
    NOT_IDLE_TEXT,
    is_busy,
    parallel_counts,
    row_busy,
)

README_BEGIN = "<!-- performance table: written by `python -m benchmarks.readme` from data/benchmarks/latest.json -->"
README_END = "<!-- end of performance table -->"


class ReportError(ValueError):
    """A README or record the report cannot be written into (one line saying what is missing)."""


def rows(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every measured row of a record that carries loads: the cases, memory, start-up, breakdowns and sweeps.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    list of dict
    """
    out: list[Mapping[str, Any]] = list(record.get("cases", []))
    for part in ("memory", "sweeps"):
        if part in record:
            out.append(record[part])
    out += list(record.get("startup", {}).values())
    out += list(record.get("breakdowns", {}).values())
    out += list(record.get("models", {}).get("rows", []))
    if "layout" in record.get("models", {}):
        out.append(record["models"]["layout"])
    return out


def mark_busy(record: dict[str, Any]) -> None:
    """Write each row's ``busy`` mark into the record (measured above the busy load per core, before or after).

    Parameters
    ----------
    record : dict
        A benchmark record, changed in place.

    Returns
    -------
    None
    """
    cores = record["machine"]["cores"]
    for row in rows(record):
        verdict = row_busy(row, cores)
        if verdict is not None:
            row["busy"] = verdict  # type: ignore[index]
    if "sweeps" in record:
        record["sweeps"]["parallel_counts"] = parallel_counts(record)


def _seconds(value: float) -> str:
    if value < 1:
        return f"{1000 * value:.3g} ms"
    return f"{value:.3g} s"


def _efficiency(row: Mapping[str, Any]) -> str:
    """A parallel row's efficiency (serial time over workers times its own), when recorded."""
    return "" if "efficiency" not in row else f", {100 * row['efficiency']:.0f} % efficient"


def _mib(value: float) -> str:
    return f"{value:.0f} MiB"


def _beside(value: float | None, how: str, written: Any) -> str:
    """The original's figure and how it was had, blank when there is none."""
    return "" if value is None else f"{written(value)} ({how})"


def _times(original: float | None, ours: float, places: int) -> str:
    """The original's figure over cvlib's, blank when there is none."""
    return "" if original is None else f"{original / ours:.{places}f}×"


def _original(row: Mapping[str, Any]) -> tuple[float | None, str]:
    if "original" in row:
        return row["original"]["cpu_median_s"], "same run"
    if row.get("quoted_original_s") is not None:
        return row["quoted_original_s"], "quoted"
    return None, ""


def _find(record: Mapping[str, Any], case: str, size: int) -> Mapping[str, Any] | None:
    return next((r for r in record.get("cases", []) if r["case"] == case and r["size"] == size), None)


def readme_table(record: Mapping[str, Any]) -> str:
    """The README's performance table (Markdown) from a benchmark record, the original's times beside cvlib's.

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
        "| case | cvlib | reference loop, same run | reference ÷ cvlib | original | original ÷ cvlib |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    busy_row = f"| {BUSY_TEXT} | | | | |"
    for case, size in (("chain", 100_000), ("chain", 1_000_000), ("isolated_branches", 10_000), ("grid", 96)):
        r = _find(record, case, size)
        if r is None:
            continue
        steps = "" if r["unit"] == "steps" else f" ({r['steps']:,} steps)"
        label = f"{CASE_NAMES[r['case']].split(' (')[0]}, {r['size']:,} {r['unit']}{steps}"
        if is_busy(record, r):
            lines.append(f"| {label} {busy_row}")
            continue
        original, how = _original(r)
        lines.append(
            f"| {label} | {_seconds(r['fast']['cpu_median_s'])} | {_seconds(r['reference']['cpu_median_s'])} "
            f"| {r['ratio']:.1f}× | {_beside(original, how, _seconds)} "
            f"| {_times(original, r['fast']['cpu_median_s'], 1)} |"
        )
    family = next((r for r in record.get("cases", []) if r["case"] == "random_family"), None)
    if family is not None:
        label = f"random plans, per plan (generation, both executors, the law; {family['size']:,} plans)"
        if is_busy(record, family):
            lines.append(f"| {label} {busy_row}")
        else:
            per = family.get("per_plan_us") or {
                k: 1e6 * family[k]["cpu_median_s"] / family["size"] for k in ("fast", "reference")
            }
            floor = f"; the floor {per['floor']:.0f} µs, cvlib {family['fast_vs_floor']:.1f}× it" if "floor" in per else ""
            lines.append(
                f"| {label} | {per['fast']:.0f} µs{floor} | {per['reference']:.0f} µs | {family['ratio']:.2f}× | | |"
            )
    if "memory" in record:
        mem = record["memory"]
        label = f"peak memory, a {mem['steps']:,}-step chain"
        if is_busy(record, mem):
            lines.append(f"| {label} {busy_row}")
        else:
            if "original" in mem:
                original, how = mem["original"]["peak_mib"], "same run"
            else:
                original, how = mem.get("quoted_original_mib"), "quoted"
            less = _times(original, mem["fast"]["peak_mib"], 0)
            lines.append(
                f"| {label} | {mem['fast']['peak_mib']:.0f} MiB | {mem['reference']['peak_mib']:.0f} MiB "
                f"| {mem['ratio']:.0f}× less | {_beside(original, how, _mib)} | {less and less + ' less'} |"
            )
    if "startup" in record:
        s = record["startup"]
        cold, bare = s["cold_start"], s["interpreter"]
        label = "cold start, `import cvlib; cvlib.run_scenario('A')`"
        if is_busy(record, cold):
            lines.append(f"| {label} {busy_row}")
        else:
            if "original_cold_start" in s:
                original, how = s["original_cold_start"]["cpu_median_s"], "same run"
            else:
                original, how = cold.get("quoted_original_s"), "quoted"
            lines.append(
                f"| {label} | {_seconds(cold['cpu_median_s'])} | {_seconds(bare['cpu_median_s'])} (bare interpreter) "
                f"| {cold['ratio_to_interpreter']:.2f}× the interpreter's "
                f"| {_beside(original, how, _seconds)} | {_times(original, cold['cpu_median_s'], 2)} |"
            )
    if "sweeps" in record:
        w = record["sweeps"]
        t = w["throughput"]
        serial = t["backends"]["serial"]["wall_median_s"]
        counts = parallel_counts(record)
        for name in ("processes", "dask"):
            row = t["backends"][name]
            label = f"sweep of {t['plans']:,} random plans, {name} backend, {t['workers']} workers (wall)"
            if is_busy(record, w):
                lines.append(f"| {label} {busy_row}")
            elif not counts:
                lines.append(f"| {label} | {NOT_IDLE_TEXT} | | | | |")
            else:
                lines.append(
                    f"| {label} | {_seconds(row['wall_median_s'])} | {_seconds(serial)} (serial backend) "
                    f"| {row['speedup_vs_serial_wall']:.2f}× faster{_efficiency(row)} | | |"
                )
    lines.append("")
    source = record.get("original") or record.get("quoted_source", "")
    lines.append(
        f"Measured {m.get('measured_at', '(date not recorded)')} on {m['cores']} cores ({m['cpu']}), "
        f"Python {m['python']}, load average {_loads(record)} at start and end; CPU-time medians of "
        f"{record['repeats']} interleaved runs ({_other_rounds(record)}); a row measured above a load of "
        f"1.5 per core says so instead of giving figures. Original: {source}."
    )
    lines += model_lines(record)
    return "\n".join(lines)


def _other_rounds(record: Mapping[str, Any]) -> str:
    """The rows timed over another number of rounds than the record's, and the sweeps' (on wall time)."""
    parts = []
    for row in record.get("cases", []):
        runs = row.get("fast", {}).get("runs")
        if runs is not None and runs != record["repeats"]:
            parts.append(f"{row['case'].replace('_', ' ')} {runs}")
    sweeps = record.get("sweeps", {}).get("throughput", {}).get("backends", {}).get("serial", {})
    parts.append(f"sweeps {sweeps['runs']}, on wall time" if "runs" in sweeps else "sweeps: wall time")
    return "; ".join(parts)


def _per_arm(values: Mapping[str, float]) -> str:
    return ", ".join(f"{arm} {v:.2f} s" for arm, v in values.items())


def model_lines(record: Mapping[str, Any]) -> list[str]:
    """The README's model table (Markdown lines, a blank line first): one row per thread count, or why there is none.

    Parameters
    ----------
    record : dict
        A benchmark record, with or without its ``models`` part.

    Returns
    -------
    list of str
        Empty when the record has no ``models`` part.
    """
    part = record.get("models")
    if not part:
        return []
    if "skipped" in part:
        return ["", f"A local language model: not measured ({part['skipped']})."]
    lines = ["", "Local language models (`python -m benchmarks.models`, a fresh process per model and thread count; "
                 "llama.cpp's own token timings; seconds per call of the agent study's first task as recorded, "
                 "greedy and sampled; of the second edition's first cell, evaluated pure, aligned and cached; edit "
                 "trials on the notes study's first task):", "",
             "| model | threads | load | peak RSS | prompt tokens/s | generation tokens/s | seconds per agent-study call "
             "| seconds per second-edition call | seconds per edit trial |",
             "|---|---:|---:|---:|---:|---:|---|---|---|"]
    for row in part["rows"]:
        head = f"| {row['model']} ({row['runtime']}) | {row['threads']} "
        if is_busy(record, row):
            lines.append(f"{head}| {BUSY_TEXT} | | | | | | |")
            continue
        first = {k: v for k, v in row["seconds_per_decision"].items() if not k.startswith("edition2_")}
        second = {way: row["seconds_per_decision"][f"edition2_{way}"] for way in ("pure", "aligned", "cached")
                  if f"edition2_{way}" in row["seconds_per_decision"]}
        lines.append(
            f"{head}| {row['load_s']:.2f} s | {row['peak_rss_mib']} MiB | {row['prompt_tokens_per_s']:.0f} "
            f"| {row['generation_tokens_per_s']:.1f} | {_per_arm(first)} | {_per_arm(second) or 'not measured'} "
            f"| {_per_arm(row.get('seconds_per_edit_trial', {}))} |"
        )
    return lines + _layout_lines(record, part.get("layout"))


def _layout_lines(record: Mapping[str, Any], layout: Mapping[str, Any] | None) -> list[str]:
    """The recording layouts compared (``benchmarks.model_layout``): seconds per task, against the runtime's floor."""
    if not layout:
        return []
    if is_busy(record, layout):
        return ["", f"Recording layouts ({layout['model']}): {BUSY_TEXT}."]
    regen = layout["regenerated"]
    out = ["", f"Recording layouts (`python -m benchmarks.model_layout`, {layout['model']}, the first "
               f"{layout['tasks']} tasks of the agent study, greedy; the floor is the calls' new prompt tokens at the "
               "large-batch prompt rate plus their generated tokens at the generation rate, per worker):", "",
           "| layout | seconds per task | floor | × floor | prompt tokens |", "|---|---:|---:|---:|---:|"]
    for name, row in layout["layouts"].items():
        out.append(f"| {name} | {row['seconds_per_task']:.2f} | {row['floor_per_task']:.2f} | {row['floor_ratio']:.2f} "
                   f"| {row['prompt_tokens']:,} |")
    out += ["", f"The arms together are {layout['layout_speedup']:.2f}× faster than today's layout; re-generated "
                f"{regen['identical']} of {regen['sampled']} calls byte-identical."]
    return out


def _loads(record: Mapping[str, Any]) -> str:
    start, end = record.get("load_average_start") or [None], record.get("load_average_end") or [None]
    if start[0] is None or end[0] is None:
        return "not recorded"
    return f"{start[0]:.1f}, {end[0]:.1f}"


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
        raise ReportError("the README has no performance-table markers; add README_BEGIN and README_END")
    head, rest = readme.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    return f"{head}{README_BEGIN}\n{readme_table(record)}\n{README_END}{tail}"


def verdicts(record: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each ratio target of ``RATIO_TARGETS`` against the record: the measured ratio and whether it is met.

    A target whose row is missing, busy or (for the parallel rows) not on an
    otherwise idle machine is "not judged" (``met`` None), never met.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    dict
        Target name to ``{"target", "ratio", "met", "why"}``.
    """
    from .cases import RATIO_TARGETS

    got: dict[str, tuple[float | None, str]] = {}
    grid = _find(record, "grid", 96)
    if grid is not None and "original" in grid and not is_busy(record, grid):
        got["grid_vs_original"] = (grid["original"]["cpu_median_s"] / grid["fast"]["cpu_median_s"], "")
    s = record.get("startup", {})
    if "cold_start" in s and not is_busy(record, s["cold_start"]):
        cold = s["cold_start"]["cpu_median_s"]
        if "original_cold_start" in s:
            got["cold_start_vs_original"] = (cold / s["original_cold_start"]["cpu_median_s"], "")
        got["cold_start_vs_interpreter"] = (cold / s["interpreter"]["cpu_median_s"], "")
    family = next((r for r in record.get("cases", []) if r["case"] == "random_family"), None)
    if family is not None and not is_busy(record, family):
        got["random_family_vs_reference"] = (family["ratio"], "")
    if "sweeps" in record and parallel_counts(record):
        backends = record["sweeps"]["throughput"]["backends"]
        got["processes_vs_serial"] = (backends["processes"]["speedup_vs_serial_wall"], "")
        got["dask_vs_serial"] = (backends["dask"]["speedup_vs_serial_wall"], "")
    layout = record.get("models", {}).get("layout")
    if layout is not None and not is_busy(record, layout):
        got["model_layout_speedup"] = (layout["layout_speedup"], "")
    out = {}
    at_most = {"cold_start_vs_original", "cold_start_vs_interpreter"}
    for name, target in RATIO_TARGETS.items():
        if name not in got:
            out[name] = {"target": target, "ratio": None, "met": None, "why": "not measured, busy or not idle"}
            continue
        ratio = got[name][0]
        met = ratio <= target if name in at_most else ratio >= target
        out[name] = {"target": target, "ratio": ratio, "met": met, "why": "at most" if name in at_most else "at least"}
    return out


def format_table(record: Mapping[str, Any]) -> str:
    """The console summary of a record: one line per row, with both ratios where the original was run.

    Parameters
    ----------
    record : dict
        A benchmark record.

    Returns
    -------
    str
    """
    m = record["machine"]
    lines = [f"measured {m['measured_at']} on {m['cores']} cores ({m['cpu']}), "
             f"load {record['load_average_start']} → {record['load_average_end']}"]
    header = (f"{'case':<18} {'size':>9} {'CPU med s':>10} {'reference s':>11} {'ratio':>7} "
              f"{'original s':>10} {'orig÷cvlib':>10}  load before→after")
    lines += [header, "-" * len(header)]
    for r in record["cases"]:
        loads = f"{(r.get('load_before') or ['?'])[0]} → {(r.get('load_after') or ['?'])[0]}"
        busy = "  BUSY" if is_busy(record, r) else ""
        original, how = _original(r)
        orig = "" if original is None else f"{original:.4g}{'q' if how == 'quoted' else ''}"
        vs = "" if original is None else f"{original / r['fast']['cpu_median_s']:.1f}×"
        lines.append(
            f"{r['case']:<18} {r['size']:>9,} {r['fast']['cpu_median_s']:>10.4f} "
            f"{r['reference']['cpu_median_s']:>11.4f} {r['ratio']:>6.1f}× {orig:>10} {vs:>10}  {loads}{busy}"
        )
        if "per_plan_us" in r:
            per = r["per_plan_us"]
            lines.append(f"{'':<18} per plan: cvlib {per['fast']:.1f} µs, reference {per['reference']:.1f} µs, "
                         f"floor {per['floor']:.1f} µs (cvlib {r['fast_vs_floor']:.2f}× the floor)")
    mem = record.get("memory")
    if mem:
        orig = f", the original {mem['original']['peak_mib']:.0f} MiB" if "original" in mem else ""
        lines.append(f"peak memory, {mem['steps']:,} steps: {mem['fast']['peak_mib']:.0f} MiB (reference loop "
                     f"{mem['reference']['peak_mib']:.0f} MiB{orig}, cvlib imported {mem['baseline']['peak_mib']:.0f} MiB)"
                     f"{'  BUSY' if is_busy(record, mem) else ''}")
    s = record.get("startup")
    if s:
        bare = s["interpreter"]["cpu_median_s"]
        for name, row in s.items():
            if name == "interpreter":
                continue
            lines.append(f"{name:<20} {row['cpu_median_s']:.4f} s CPU ({row['cpu_median_s'] / bare:.2f}× the bare "
                         f"interpreter's {bare:.4f} s){'  BUSY' if is_busy(record, row) else ''}")
        if "original_cold_start" in s:
            ratio = s["cold_start"]["cpu_median_s"] / s["original_cold_start"]["cpu_median_s"]
            lines.append(f"cold start ÷ the original's: {ratio:.2f}")
    w = record.get("sweeps")
    if w:
        t = w["throughput"]
        verdict = "" if parallel_counts(record) else f"  ({NOT_IDLE_TEXT}: others kept {w.get('others_busy_cores')} cores busy)"
        for name, row in t["backends"].items():
            lines.append(f"sweep {t['plans']:,} plans, {name:<9} {row['wall_median_s']:.2f} s wall "
                         f"(×{row['speedup_vs_serial_wall']:.2f} vs serial){verdict if name != 'serial' else ''}")
        st = w["startup"]
        lines.append(f"first processes sweep: fork server {st['forkserver']['wall_median_s']:.2f} s, "
                     f"spawn {st['spawn']['wall_median_s']:.2f} s (wall)")
    part = record.get("models")
    if part and "skipped" in part:
        lines.append(f"model: not measured ({part['skipped']})")
    for row in (part or {}).get("rows", []):
        lines.append(f"model {row['model']}, {row['threads']} thread(s): load {row['load_s']} s, prompt "
                     f"{row['prompt_tokens_per_s']} tok/s, generation {row['generation_tokens_per_s']} tok/s, "
                     f"decision {_per_arm(row['seconds_per_decision'])}, edit trial "
                     f"{_per_arm(row.get('seconds_per_edit_trial', {}))}{'  BUSY' if is_busy(record, row) else ''}")
    layout = (part or {}).get("layout")
    if layout:
        lines.append(f"model layouts ({layout['model']}, {layout['tasks']} tasks): arms together "
                     f"{layout['layout_speedup']:.2f}x faster than one run per arm, {layout['floor_ratio']:.2f}x the floor"
                     f"{'  BUSY' if is_busy(record, layout) else ''}")
    lines.append("targets:")
    for name, v in verdicts(record).items():
        if v["met"] is None:
            lines.append(f"  {name:<28} target {v['target']:g}: not judged ({v['why']})")
        else:
            lines.append(f"  {name:<28} {v['ratio']:.2f} ({v['why']} {v['target']:g}): {'met' if v['met'] else 'MISSED'}")
    return "\n".join(lines)
