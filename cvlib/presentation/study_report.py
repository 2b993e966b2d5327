"""The studies' report card from a folder of recordings, without building the book (``cvlib study report DIR``).

A reader who ran the studies on their own model (through inspect and
``cvlib models import-inspect``, or with the project's own recorder) gets
what the chapters show, from the chapters' own analysis: for the agent study
the levels per arm beside the references (pre-failure work, discrimination,
cost, completion), the pre-registered paired contrasts with their intervals,
the probe and the position bias, and the chapter's forest plot; for the notes
study the share of stale edits per arm and variant and the paired contrasts.
The card is written as Markdown and as one HTML page, with its figures as
PNG files beside them, and is the same bytes for the same recordings.

Each study's edition is told by its recordings' experiment name. The second
editions (``agent_study_2``, ``notes_study_2``: the pre-registered design of
``data/model_trials/preregistration_part3.md`` and ``..._part4.md``) are read
by their own analyses: for the agent study, levels per arm beside the
references, the six primary contrasts (discrimination and cost over the
validity-aware executor; labelled − transcript, told − labelled, enforced −
told) with intervals and, where an interval holds zero, the two one-sided
tests at the pre-registered margins, the probe and the order bias
(:mod:`cvlib.experiments.agent_study.edition2_analysis`); for the notes study,
stale-edit shares per variant and arm, the manipulation check and the variant
contrasts (:mod:`cvlib.experiments.notes_study.second_analysis`). The first
editions' recordings (``agent_study``, ``notes_study``) keep their own
path; there discrimination and cost are computed from the first edition's
columns, with the second edition's rule for an unfinished run (twice its
budget).
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, VALIDITY_AWARE
from cvlib.models.recording import read_recording
from cvlib.presentation._study_models import model_label, model_table
from cvlib.presentation.formatting import interval_text, verdict
from cvlib.presentation.tables import Table

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["ReportCard", "find_recordings", "write_report"]

_AGENT, _NOTES = "agent_study", ("notes_study", "notes_trials")
#: The second editions' experiment names (each its own study in :func:`find_recordings`).
_AGENT_2, _NOTES_2 = "agent_study_2", "notes_study_2"
_STUDIES: dict[str, str] = {_AGENT: _AGENT, **{n: "notes_study" for n in _NOTES}, _AGENT_2: _AGENT_2, _NOTES_2: _NOTES_2}
_METRICS: dict[str, str] = {"pre_failure_work": "Pre-failure work", "discrimination": "Discrimination",
                            "cost": "Cost (steps)", "completed": "Completed"}
_REFERENCES = {BASELINE: "always execute", VALIDITY_AWARE: "validity-aware executor"}


@dataclass(frozen=True)
class ReportCard:
    """What :func:`write_report` wrote: the Markdown and HTML pages and the figures."""

    markdown: Path
    html: Path
    figures: tuple[Path, ...]


def find_recordings(folder: str | os.PathLike[str]) -> dict[str, dict[str, list[Path]]]:
    """The recordings in ``folder`` by study and model (the file's stem: ``<experiment>.<model>.jsonl[.gz]``).

    Parameters
    ----------
    folder : str or os.PathLike
        A folder of recordings.

    Returns
    -------
    dict
        ``{study: {model: [paths]}}`` for ``agent_study``, ``notes_study`` (first editions), ``agent_study_2`` and
        ``notes_study_2`` (second editions); empty studies left out.
    """
    base = Path(folder)
    if not base.is_dir():
        raise ParameterError(f"recordings folder {os.fspath(folder)!r} does not exist")
    out: dict[str, dict[str, list[Path]]] = {}
    for path in sorted(base.glob("*.jsonl*")):
        if not path.name.endswith((".jsonl", ".jsonl.gz")):
            continue
        experiment, _, rest = path.name.partition(".")
        model = rest.removesuffix(".gz").removesuffix(".jsonl")
        study = _STUDIES.get(experiment)
        if study is None or not model:
            continue
        out.setdefault(study, {}).setdefault(model, []).append(path)
    if not out:
        raise ParameterError(f"no study recording in {os.fspath(folder)!r}; expected files named "
                             "agent_study_2.<model>.jsonl.gz or notes_study_2.<model>.jsonl.gz (or a first edition's)")
    return out


# -- the agent study -------------------------------------------------------------------------------------
def _with_new_metrics(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with ``discrimination`` and ``cost`` (an unfinished run at twice its budget), unless present."""
    out = runs.copy()
    budgets = out.dropna(subset=["budget"]).drop_duplicates("task").set_index("task")["budget"] if "budget" in out else {}
    if "discrimination" not in out:
        has = out["decisions"].notna() if "decisions" in out else out["arm"].isna()
        out["discrimination"] = [_first_discrimination(r) if ok else math.nan for r, ok in zip(out.to_dict("records"), has)]
        out["discrimination"] = out["discrimination"].astype(float)
    if "cost" not in out:
        out["cost"] = [float(r["steps_used"] if r["completed"] else 2 * budgets[r["task"]]) for r in out.to_dict("records")]
    return out


def _first_discrimination(row: Mapping[str, Any]) -> float:
    """A first-edition run's EXECUTE share at unblocked steps minus at blocked steps (NaN without both kinds)."""
    unblocked, blocked = row["decisions"] - row["blocked"], row["blocked"]
    if not unblocked or not blocked:
        return math.nan
    return float((row["answered_execute"] - row["execute_blocked"]) / unblocked - row["execute_blocked"] / blocked)


def _levels(study: Any, runs: pd.DataFrame) -> Table:
    import pandas as pd

    from cvlib.experiments.agent_study.analysis import MIN_INTERVAL_TASKS, arm_means
    from cvlib.experiments.agent_study.results import mean_interval
    from cvlib.experiments.agent_study.study_prompts import STUDY_ARMS

    arms = (*STUDY_ARMS, BASELINE, VALIDITY_AWARE, *(f"random_{a}" for a in STUDY_ARMS))
    rows = []
    for model in study.models:
        mine = runs[(runs["model"] == model) & runs["stale_fact"]]
        counts = arm_means(mine, "pre_failure_work").set_index("arm")["tasks"]
        for arm in arms:
            if arm not in counts.index:
                continue
            row: dict[str, Any] = {"model": model, "arm": _REFERENCES.get(arm, arm.replace("random_", "random at rates of ")),
                                   "tasks": int(counts[arm])}
            for metric in _METRICS:
                per_task = mine[mine["arm"] == arm].groupby("task")[metric].mean().dropna()
                mean, low, high = mean_interval(per_task.tolist(), study.confidence)
                if len(per_task) < MIN_INTERVAL_TASKS:
                    low = high = math.nan
                kind = "percent_of" if metric == "completed" else "mean"
                row[metric] = "–" if per_task.empty else interval_text(mean, low, high, kind)
            rows.append(row)
    frame = pd.DataFrame(rows, columns=["model", "arm", "tasks", *_METRICS])
    level = round(100 * study.confidence)
    return model_table(frame, {"model": "Model", "arm": "Arm or reference", "tasks": "Stale-fact tasks",
                               **{m: f"{name}, mean ({level} % interval)" for m, name in _METRICS.items()}},
                       collapse_after=None)


def _contrasts(study: Any, runs: pd.DataFrame, resamples: int) -> Table:
    import pandas as pd

    from cvlib.experiments.agent_study.analysis import CONTRASTS, paired_effects
    from cvlib.experiments.agent_study.study_prompts import STUDY_ARMS

    against = tuple((arm, VALIDITY_AWARE) for arm in STUDY_ARMS)
    parts = [paired_effects(runs, CONTRASTS, m, confidence=study.confidence, resamples=resamples) for m in _METRICS]
    parts += [paired_effects(runs, against, m, confidence=study.confidence, resamples=resamples)
              for m in ("pre_failure_work", "cost")]
    frame = pd.concat([p for p in parts if not p.empty], ignore_index=True) if any(not p.empty for p in parts) else None
    rows = []
    for _, r in (frame.iterrows() if frame is not None else iter(())):
        kind = "percent_of" if r["metric"] == "completed" else "mean"
        rows.append({"model": r["model"], "metric": _METRICS[r["metric"]],
                     "contrast": r["contrast"].replace(VALIDITY_AWARE, _REFERENCES[VALIDITY_AWARE]),
                     "tasks": int(r["tasks"]), "effect": interval_text(r["mean"], r["low"], r["high"], kind),
                     "reading": verdict(r["low"], r["high"], int(r["tasks"]))})
    out = pd.DataFrame(rows, columns=["model", "metric", "contrast", "tasks", "effect", "reading"])
    level = round(100 * study.confidence)
    return model_table(out, {"model": "Model", "metric": "Metric", "contrast": "Contrast (first − second)",
                             "tasks": "Stale-fact tasks", "effect": f"Mean paired difference ({level} % interval)",
                             "reading": "Reading"}, collapse_after=None)


def _levels_figure(runs: pd.DataFrame, models: Sequence[str]) -> Figure:
    """Pre-failure work and discrimination per arm (stale-fact tasks), each model's arms beside its references."""
    from cvlib.experiments.agent_study.analysis import MIN_INTERVAL_TASKS
    from cvlib.experiments.agent_study.results import mean_interval
    from cvlib.experiments.agent_study.study_prompts import STUDY_ARMS
    from cvlib.presentation.style import SERIES, legend_below, new_figure

    rows = [*STUDY_ARMS, BASELINE, VALIDITY_AWARE]
    fig, axes = new_figure(1, 2, height=0.34 * len(rows) * max(1, len(models)) + 1.6, sharey=True)
    from matplotlib.lines import Line2D

    for ax, (metric, title) in zip(axes, (("pre_failure_work", "pre-failure work (steps per task)"),
                                          ("discrimination", "discrimination (EXECUTE share,\nunblocked − blocked)"))):
        for k, model in enumerate(models):
            mine = runs[(runs["model"] == model) & runs["stale_fact"]]
            for i, arm in enumerate(rows):
                per_task = mine[mine["arm"] == arm].groupby("task")[metric].mean().dropna()
                if per_task.empty:
                    continue
                mean, low, high = mean_interval(per_task.tolist())
                if len(per_task) < MIN_INTERVAL_TASKS:
                    low = high = math.nan
                y = (len(rows) - 1 - i) * max(1, len(models)) + (len(models) - 1 - k)
                colour = SERIES[k % len(SERIES)]
                if not math.isnan(low):
                    ax.plot([low, high], [y, y], color=colour, lw=2.2)
                ax.plot(mean, y, marker="o" if arm in STUDY_ARMS else "D", color=colour, ms=5)
        ax.set_xlabel(title)
    n = max(1, len(models))
    axes[0].set_yticks([(len(rows) - 1 - i) * n + (n - 1) / 2 for i in range(len(rows))],
                       [_REFERENCES.get(a, a) for a in rows])
    handles = [Line2D([], [], color=SERIES[k % len(SERIES)], marker="o", lw=2.2, label=model_label(m))
               for k, m in enumerate(models)]
    handles.append(Line2D([], [], color="#555555", marker="D", lw=0, label="reference (no model)"))
    legend_below(fig, handles, ncols=2)
    return fig


def _agent_section(sources: Mapping[str, list[Path]], out: Path, confidence: float,
                   resamples: int) -> tuple[list[Any], list[Path]]:
    from cvlib.experiments.agent_study.report import analyse
    from cvlib.presentation.chapters import model_agent_loop as chapter

    study = analyse({m: [r for p in paths for r in read_recording(p, allow_cut_tail=True)] for m, paths in sources.items()},
                    confidence, resamples)
    if not study.models:
        return [("p", "No whole group of the agent study in these recordings.")], []
    runs = _with_new_metrics(study.runs)
    figures = [_save(_levels_figure(runs, study.models), out / "agent_study_levels.png"),
               _save(chapter.forest_figure(study), out / "agent_study_contrasts.png")]
    tasks = {m: int(runs[(runs["model"] == m) & runs["arm"].eq("transcript")]["task"].nunique()) for m in study.models}
    blocks: list[Any] = [
        ("p", "Tasks with whole groups: " + "; ".join(f"{model_label(m)} {n}" for m, n in tasks.items())
         + ". An unfinished run costs twice its budget."),
        ("h3", "Levels (stale-fact tasks)"), ("figure", figures[0], "Levels per arm beside the references"),
        ("table", _levels(study, runs)),
        ("h3", "Paired contrasts"), ("figure", figures[1], "The pre-registered contrasts"),
        ("table", _contrasts(study, runs, resamples)),
        ("h3", "Competence probe"), ("table", chapter.probe_table(study)),
    ]
    if not study.bias.empty:
        blocks += [("h3", "Option order (sampled repeats)"), ("table", chapter.bias_table(study))]
    return blocks, figures


# -- the agent study, second edition -------------------------------------------------------------------
def _agent2_section(sources: Mapping[str, list[Path]], out: Path, confidence: float,
                    resamples: int) -> tuple[list[Any], list[Path]]:
    """The chapter's own tables (:mod:`cvlib.presentation.agent_study_2_tables`): levels, contrasts per family."""
    from cvlib.presentation import agent_study_2_tables as tables

    study = tables.read_runs(sources)
    if study.runs.empty:
        return [("p", "No whole cell of the agent study's second edition in these recordings.")], []
    figures = [_save(tables.levels_figure(study, "stale", confidence), out / "agent_study_2_levels.png")]
    status = tables.recording_status(study, study.models)
    counts = "; ".join(f"{model_label(r['model'])} {r['cells']} cells, {r['tasks_all_orders']} tasks in all three orders"
                       for r in status.to_dict("records"))
    blocks: list[Any] = [
        ("p", f"Recorded: {counts}. A task's option orders are averaged within the task; an unfinished run costs "
              "twice its budget. References are scripted answers through the same loop, never recorded; the "
              "random one answers at the model's own rates in each arm and order (200 seeded draws per task)."),
        ("h3", "Levels (stale-fact tasks)"), ("figure", figures[0], "Levels per arm beside the references"),
        ("table", tables.levels_table(study, "stale", confidence)),
        ("h3", "Primary contrasts (stale-fact tasks)"), ("table", tables.contrasts_table(study, "stale", confidence, resamples)),
    ]
    for group in ("first", "floorless", "hidden", "false_alarm", "noisy", "control"):
        blocks += [("h3", f"Per family: {tables.GROUPS[group]}"),
                   ("table", tables.levels_table(study, group, confidence, ("discrimination", "cost_over_aware"))),
                   ("table", tables.contrasts_table(study, group, confidence, resamples))]
    blocks += [("h3", "Competence probe (stale-fact tasks)"), ("table", tables.probe_levels_table(study, confidence)),
               ("h3", "Order bias")]
    bias = tables.order_bias_table(study)
    blocks.append(("table", bias) if bias.rows else
                  ("p", "No task recorded in all three option orders, so no order bias (run every order: -T orders=0,1,2)."))
    return blocks, figures


# -- the notes study, second edition -------------------------------------------------------------------
def _notes2_section(sources: Mapping[str, list[Path]], out: Path, confidence: float) -> tuple[list[Any], list[Path]]:
    import pandas as pd

    from cvlib.experiments.notes_study.second_analysis import read_second_outcomes
    from cvlib.experiments.notes_study.second_design import recorded_groups
    from cvlib.experiments.notes_study.second_tasks import load_second_edition
    from cvlib.presentation import notes_study_2_tables as notes2
    from cvlib.presentation.chapters.notes_study_2 import readings_blind
    from cvlib.repository import data_path

    edition = load_second_edition(data_path("model_trials"))
    planned = {model: notes2.planned_groups(edition, model) for model in sources}
    recorded = {model: set().union(*(recorded_groups(p) for p in paths)) for model, paths in sources.items()}
    status: list[Any] = [("h3", "Recorded against the pre-registered plan"),
                         ("table", notes2.status_table(notes2.recording_status(planned, recorded)))]
    if all(readings_blind(p.parent) for paths in sources.values() for p in paths):
        return [*status, ("p", "The study's own recordings stay blind until the blind audit's sample is drawn "
                               "(preregistration_part4.md, section 4.11): groups are counted, no answer is read.")], []
    parts = [read_second_outcomes(paths, edition, name=model) for model, paths in sources.items()]
    outcomes = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if outcomes.empty:
        return [*status, ("p", "No whole group of the notes study's second edition in these recordings.")], []
    levels = notes2.levels(outcomes, confidence)
    figure = _save(notes2.levels_figure(levels, list(sources), confidence), out / "notes_study_2_levels.png")
    blocks: list[Any] = [
        *status,
        ("p", "Every answer read again by the frozen reader (greedy answers; a task's sampled repeats averaged in where "
              "recorded); the strict classifier's reading follows as the sensitivity analysis."),
        ("h3", "Levels: share of stale edits per variant and arm"),
        ("figure", figure, "Share of tasks with a stale edit per arm, one panel per model, a dot per variant"),
        ("table", notes2.levels_table(levels, confidence)),
        ("h3", "The manipulation check"), ("table", notes2.manipulation_table(notes2.manipulation(outcomes, confidence), confidence)),
        ("h3", "Contrasts (N1: refutable − placebo; N2: a label or a rule against the note shown as fresh)"),
        ("table", notes2.contrasts_table(notes2.contrasts(outcomes, confidence), confidence)),
        ("h3", "Sensitivity: the strict reading beside the frozen reader"),
        ("table", notes2.sensitivity_table(notes2.sensitivity(outcomes))),
        ("table", notes2.contrasts_table(notes2.contrasts(outcomes, confidence, reading="strict"), confidence)),
    ]
    return blocks, [figure]


# -- the notes study -------------------------------------------------------------------------------------
def _notes_section(sources: Mapping[str, list[Path]], out: Path, confidence: float) -> tuple[list[Any], list[Path]]:
    from cvlib.experiments.notes_study import load_stale_effects, load_tasks
    from cvlib.presentation.chapters import model_notes_figures as figures_module
    from cvlib.presentation.chapters import model_notes_trials as chapter
    from cvlib.repository import data_path

    tasks = load_tasks(data_path("model_trials/notes_tasks.yaml"))
    effects = load_stale_effects(str(data_path("model_trials/notes_stale_effects.yaml")))
    study = chapter.read_study(sources, tasks, effects, data_path("code_history"), data_path("model_trials/notes_audit.csv"),
                               confidence)
    if not study.models:
        return [("p", "No answer of the notes study in these recordings.")], []
    figures = [_save(figures_module.outcomes_figure(study), out / "notes_study_outcomes.png")]
    blocks: list[Any] = [
        ("h3", "Levels: share of stale edits per arm and variant"), ("figure", figures[0], "What each arm's answers did"),
        ("table", chapter.shares_table(study)),
        ("h3", "Paired contrasts"), ("table", chapter.effects_table(study)), ("table", chapter.contrasts_table(study)),
    ]
    return blocks, figures


# -- writing -----------------------------------------------------------------------------------------------
def _save(fig: Figure, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=150, metadata={"Software": None})
    plt.close(fig)
    return path


def _markdown_table(t: Table) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in t.header) + " |",
             "| " + " | ".join("---:" if n else "---" for n in (t.numeric or (False,) * len(t.header))) + " |"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in t.rows]
    return "\n".join(lines)


def _render(title: str, sections: list[tuple[str, list[Any]]]) -> tuple[str, str]:
    md = [f"# {title}", ""]
    body = [f"<h1>{html.escape(title)}</h1>"]
    for heading, blocks in sections:
        md += [f"## {heading}", ""]
        body.append(f"<h2>{html.escape(heading)}</h2>")
        for block in blocks:
            kind = block[0]
            if kind == "h3":
                md += [f"### {block[1]}", ""]
                body.append(f"<h3>{html.escape(block[1])}</h3>")
            elif kind == "p":
                md += [block[1], ""]
                body.append(f"<p>{html.escape(block[1])}</p>")
            elif kind == "figure":
                md += [f"![{block[2]}]({block[1].name})", ""]
                body.append(f'<figure><img src="{html.escape(block[1].name)}" alt="{html.escape(block[2])}">'
                            f"<figcaption>{html.escape(block[2])}</figcaption></figure>")
            else:
                md += [_markdown_table(block[1]), ""]
                body.append(block[1]._repr_html_())
    style = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45}"
             "table{border-collapse:collapse;font-size:.85rem;margin:1rem 0}th,td{border-bottom:1px solid #ddd;"
             "padding:.25rem .5rem;vertical-align:top}img{max-width:100%}.cvtable-wrap{overflow-x:auto}")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    return "\n".join(md).rstrip() + "\n", page


def write_report(folder: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
                 confidence: float = 0.95, resamples: int = 2000) -> ReportCard:
    """Write the report card of the recordings in ``folder`` (see the module docstring).

    Parameters
    ----------
    folder : str or os.PathLike
        A folder of recordings (``agent_study_2.<model>.jsonl.gz``, ``notes_study_2.<model>.jsonl.gz``, or the
        first editions' ``agent_study.<model>...``, ``notes_study.<model>...``).
    out : str or os.PathLike, optional
        Where the card goes (default: ``<folder>/report``; created).
    confidence : float
        Every interval's level.
    resamples : int
        Bootstrap resamples of the paired contrasts (seed 0).

    Returns
    -------
    ReportCard
    """
    from cvlib.presentation.style import set_style

    found = find_recordings(folder)
    target = Path(out) if out is not None else Path(folder) / "report"
    target.mkdir(parents=True, exist_ok=True)
    set_style()
    sections: list[tuple[str, list[Any]]] = []
    figures: list[Path] = []
    if _AGENT_2 in found:
        blocks, made = _agent2_section(found[_AGENT_2], target, confidence, resamples)
        sections.append(("The agent study (second edition)", blocks))
        figures += made
    if _NOTES_2 in found:
        blocks, made = _notes2_section(found[_NOTES_2], target, confidence)
        sections.append(("The notes study (second edition)", blocks))
        figures += made
    if _AGENT in found:
        blocks, made = _agent_section(found[_AGENT], target, confidence, resamples)
        sections.append(("The agent study" + (" (first edition)" if _AGENT_2 in found else ""), blocks))
        figures += made
    if "notes_study" in found:
        blocks, made = _notes_section(found["notes_study"], target, confidence)
        sections.append(("The notes study" + (" (first edition)" if _NOTES_2 in found else ""), blocks))
        figures += made
    models = sorted({model_label(m) for study in found.values() for m in study})
    markdown, page = _render(f"Report card: {', '.join(models)}", sections)
    md_path, html_path = target / "report.md", target / "report.html"
    md_path.write_text(markdown, encoding="utf-8")
    html_path.write_text(page, encoding="utf-8")
    return ReportCard(md_path, html_path, tuple(figures))
