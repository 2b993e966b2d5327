"""The agent-loop chapter's results: the model's three arms beside the two deterministic executors.

Everything here reads a recording (:mod:`cvlib.experiments.agent_study.results`)
and re-runs the deterministic references on the same tasks; it never runs a
model (a new recording is made by
:func:`cvlib.experiments.agent_study.recording.chapter_recording`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, VALIDITY_AWARE
from cvlib.core.intervals import proportion_interval
from cvlib.experiments.agent_study.prompts import ARMS
from cvlib.experiments.agent_study.results import agent_runs, balanced, mean_interval, task_of
from cvlib.experiments.agent_study.tasks import AgentTask, agent_tasks, reference_results
from cvlib.models.recording import CallRecord, read_recording
from cvlib.presentation.style import LABELS, PALETTE, SERIES, legend_below, new_figure
from cvlib.repository import project_root

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "EXECUTORS",
    "EXECUTOR_LABELS",
    "agent_loop_figure",
    "agent_loop_runs",
    "agent_loop_summary",
    "budget_completion",
    "GLUE_NAMES",
    "budget_table",
    "chapter_values",
    "conversation_text",
    "recording_facts",
    "shown_conversations",
    "summary_table",
]

#: The executors of the comparison, references first.
EXECUTORS = (BASELINE, VALIDITY_AWARE, *(f"model_{arm}" for arm in ARMS))
#: How a reader sees each executor's name.
EXECUTOR_LABELS: dict[str, str] = {
    BASELINE: LABELS.get(BASELINE, "Baseline"),
    VALIDITY_AWARE: LABELS.get(VALIDITY_AWARE, "Validity-aware"),
    "model_transcript": "Model, transcript",
    "model_labelled": "Model, labelled",
    "model_gated": "Model, gated",
}
_COLOURS = {
    BASELINE: PALETTE.get(BASELINE, "#D55E00"),
    VALIDITY_AWARE: PALETTE.get(VALIDITY_AWARE, "#0072B2"),
    "model_transcript": SERIES[2],
    "model_labelled": SERIES[1],
    "model_gated": SERIES[0],
}


def _path(recording: str | os.PathLike[str]) -> Path:
    path = Path(recording)
    return path if path.is_absolute() else project_root() / path


def agent_loop_runs(recording: str | os.PathLike[str], max_tasks: int = 0) -> pd.DataFrame:
    """Every run of the tasks recorded under all three arms, and the two references on the same tasks.

    Parameters
    ----------
    recording : str or os.PathLike
        An agent-loop recording (relative paths are from the repository root).
    max_tasks : int
        Read only the first this many complete tasks, in recording order (0: all); a page built
        while its recording grows stays the same.

    Returns
    -------
    pandas.DataFrame
        One row per executor and task (the columns of :func:`cvlib.experiments.agent_study.results.agent_runs`;
        the references' model-only columns are 0).
    """
    import pandas as pd

    runs = balanced(agent_runs(_path(recording)), ARMS)
    if runs.empty:
        raise ParameterError(f"recording {os.fspath(recording)!r} holds no task recorded under all three arms")
    tasks = list(dict.fromkeys(runs["task"]))
    if max_tasks:
        tasks = tasks[:max_tasks]
        runs = runs[runs["task"].isin(set(tasks))]
    rows = []
    for task, result in reference_results([AgentTask.from_dict(task_of(t)) for t in tasks]):
        data = task.to_dict()
        rows.append({
            "executor": result.executor, "arm": None, "family": data["family"], "scenario": data["scenario"],
            "task": _canonical(data), "completed": result.completed, "steps_used": result.steps_used,
            "budget": result.budget, "replans": result.replans, "verifications": result.verifications,
            "pre_failure_work": result.pre_failure_work, "scur": result.scur, "decisions": 0, "unparsed": 0,
            "answered_execute": 0, "answered_verify": 0, "answered_replan": 0, "overruled": 0,
        })
    frame = pd.concat([pd.DataFrame(rows, columns=runs.columns), runs], ignore_index=True)
    frame["executor"] = pd.Categorical(frame["executor"], categories=list(EXECUTORS), ordered=True)
    return frame.sort_values(["executor"], kind="stable").reset_index(drop=True)


def _canonical(data: Mapping[str, Any]) -> str:
    from cvlib.models.recording import canonical

    return canonical(dict(data))


def agent_loop_summary(runs: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per executor, over tasks: means with bootstrap intervals, completion with its Wilson interval.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`agent_loop_runs`.
    confidence : float
        The intervals' level.

    Returns
    -------
    pandas.DataFrame
        One row per executor: ``tasks``, ``pfw``/``pfw_low``/``pfw_high``, the same for ``scur``,
        ``verifications``, ``steps``, then ``completion``/``completion_low``/``completion_high``,
        ``decisions`` and ``unparsed_share`` (model arms only).
    """
    import pandas as pd

    rows = []
    for executor in EXECUTORS:
        part = runs[runs["executor"] == executor]
        if part.empty:
            continue
        row: dict[str, Any] = {"executor": executor, "label": EXECUTOR_LABELS[executor], "tasks": len(part)}
        for name, column in (("pfw", "pre_failure_work"), ("scur", "scur"), ("verifications", "verifications"),
                             ("steps", "steps_used")):
            row[name], row[f"{name}_low"], row[f"{name}_high"] = mean_interval(list(part[column]), confidence)
        completed = int(part["completed"].sum())
        row["completion"] = completed / len(part)
        row["completion_low"], row["completion_high"] = proportion_interval(completed, len(part), confidence)
        decisions = int(part["decisions"].sum())
        row["decisions"] = decisions
        row["unparsed"] = int(part["unparsed"].sum())
        row["unparsed_share"] = row["unparsed"] / decisions if decisions else float("nan")
        row["overruled"] = int(part["overruled"].sum())
        rows.append(row)
    return pd.DataFrame(rows)


def budget_completion(runs: pd.DataFrame) -> pd.DataFrame:
    """Completion under the value-change budget sweep: scenario A at each recorded budget, per executor.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`agent_loop_runs`.

    Returns
    -------
    pandas.DataFrame
        One row per budget (largest first), one column per executor (True when it completed).
    """
    part = runs[(runs["scenario"] == "A") & runs["family"].isin(["named", "budget"])]
    if part.empty:
        raise ParameterError("the recording holds no run of scenario A under the budget sweep")
    table = part.pivot_table(index="budget", columns="executor", values="completed", aggfunc="first", observed=True)
    table = table.sort_index(ascending=False).reset_index()
    table.columns = [str(c) for c in table.columns]
    return table


def agent_loop_figure(summary: pd.DataFrame, confidence: float = 0.95) -> Figure:
    """Three panels, one row per executor: doomed steps, verifications and completion, each with its interval.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`agent_loop_summary`.
    confidence : float
        The intervals' level (for the axis labels).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.lines import Line2D

    if summary.empty:
        raise ParameterError("agent_loop_figure needs at least one executor")
    count = len(summary)
    fig, axes = new_figure(1, 3, height=0.42 * count + 1.9, sharey=True)
    panels = (("pfw", "pre-failure work\n(steps per task)", 1.0),
              ("verifications", "verifications\n(per task)", 1.0),
              ("completion", "tasks completed (%)", 100.0))
    level = round(100 * confidence)
    for ax, (name, title, scale) in zip(axes, panels):
        for position, (_, row) in enumerate(summary.iterrows()):
            y = count - 1 - position
            colour = _COLOURS[row["executor"]]
            ax.plot([scale * row[f"{name}_low"], scale * row[f"{name}_high"]], [y, y], color=colour, lw=2.5)
            ax.plot(scale * row[name], y, marker="o", color=colour, ms=6)
        ax.set_xlabel(title)
        ax.set_ylim(-0.6, count - 0.4)
        low = min(0.0, float(scale * summary[f"{name}_low"].min()))
        high = float(scale * summary[f"{name}_high"].max())
        ax.set_xlim(low - 0.05 * (high - low or 1), high + 0.08 * (high - low or 1))
    axes[0].set_yticks(list(range(count - 1, -1, -1)), list(summary["label"]))
    handles = [Line2D([], [], color="#555555", marker="o", lw=2.5, label=f"mean over tasks, {level}% interval")]
    legend_below(fig, handles, ncols=1)
    return fig


def conversation_text(record: CallRecord) -> str:
    """One recorded call's whole prompt and its answer, as the model saw it (turn by turn).

    Parameters
    ----------
    record : CallRecord
        A recorded call.

    Returns
    -------
    str
    """
    parts = [f"[{role}]\n{content}" for role, content in record.prompt]
    parts.append(f"[model's answer]\n{record.response}")
    return "\n\n".join(parts)


def shown_conversations(recording: str | os.PathLike[str], scenario: str = "A") -> dict[str, str]:
    """Each arm's last call on a named scenario at the article's parameters: every prompt of the run, in full.

    Parameters
    ----------
    recording : str or os.PathLike
        An agent-loop recording.
    scenario : str
        The named scenario whose run is shown.

    Returns
    -------
    dict of str to str
        Arm -> :func:`conversation_text` of the run's last call (it holds the run's every earlier turn).
    """
    last: dict[str, CallRecord] = {}
    for r in read_recording(_path(recording)):
        if r.experiment == "agent_loop" and r.task.get("family") == "named" and r.task.get("scenario") == scenario:
            last[str(r.arm)] = r
    missing = [arm for arm in ARMS if arm not in last]
    if missing:
        raise ParameterError(f"the recording holds no run of scenario {scenario!r} under {', '.join(missing)}")
    return {arm: conversation_text(last[arm]) for arm in ARMS}


def recording_facts(recording: str | os.PathLike[str], runs: pd.DataFrame) -> dict[str, Any]:
    """What a recording covers, for the chapter's prose: model, runtime, tasks by family, calls.

    Parameters
    ----------
    recording : str or os.PathLike
        The recording.
    runs : pandas.DataFrame
        :func:`agent_loop_runs` of it.

    Returns
    -------
    dict
    """
    records = read_recording(_path(recording))
    first = records[0]
    model_runs = runs[runs["arm"].notna()]
    tasks = model_runs.drop_duplicates("task")
    by_family = tasks["family"].value_counts()
    return {
        "model": first.model,
        "model_sha256": first.model_sha256,
        "runtime": f"{first.runtime['name']} {first.runtime['version']}",
        "calls": int(model_runs["decisions"].sum()),  # the calls of the runs read, not of the whole file
        "tasks": len(tasks),
        "named": int(by_family.get("named", 0)),
        "variants": int(by_family.get("variant", 0)),
        "budgets": int(by_family.get("budget", 0)),
        "random": int(by_family.get("random", 0)),
        "planned_tasks": len(agent_tasks()),
        "max_tokens": first.settings.max_tokens,
        "threads": first.settings.threads,
    }


def summary_table(summary: pd.DataFrame) -> Any:
    """The summary as the book shows it: each mean or share with its interval in brackets.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`agent_loop_summary`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    from cvlib.presentation.formatting import fmt
    from cvlib.presentation.tables import table

    def with_interval(row: Any, name: str, kind: str) -> str:
        return f"{fmt(row[name], kind)} ({fmt(row[name + '_low'], kind)}–{fmt(row[name + '_high'], kind)})"

    shown = pd.DataFrame({
        "label": summary["label"],
        "tasks": summary["tasks"],
        "pfw": [with_interval(r, "pfw", "mean") for _, r in summary.iterrows()],
        "scur": [with_interval(r, "scur", "share") for _, r in summary.iterrows()],
        "verifications": [with_interval(r, "verifications", "mean") for _, r in summary.iterrows()],
        "steps": [with_interval(r, "steps", "mean") for _, r in summary.iterrows()],
        "completion": [with_interval(r, "completion", "percent_of") for _, r in summary.iterrows()],
        "decisions": summary["decisions"],
        "unparsed": summary["unparsed"],
    })
    return table(
        shown,
        {"label": "Executor", "tasks": "Tasks", "pfw": "Pre-failure work", "scur": "SCUR",
         "verifications": "Verifications", "steps": "Steps", "completion": "Completed",
         "decisions": "Model decisions", "unparsed": "Unparsed answers"},
        {"tasks": "count", "decisions": "count", "unparsed": "count"},
    )


def budget_table(budgets: pd.DataFrame) -> Any:
    """:func:`budget_completion` as the book shows it: completed or not, per budget and executor.

    Parameters
    ----------
    budgets : pandas.DataFrame
        :func:`budget_completion`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    from cvlib.presentation.tables import table

    columns = {"budget": "Budget"} | {e: EXECUTOR_LABELS[e] for e in EXECUTORS if e in budgets.columns}
    frame = budgets.copy()
    for executor in columns:
        if executor != "budget":
            frame[executor] = frame[executor].astype(bool)
    return table(frame, columns, {"budget": "count"})


#: Short names of the executors in the chapter's glue keys.
GLUE_NAMES = {BASELINE: "base", VALIDITY_AWARE: "va", "model_transcript": "transcript",
              "model_labelled": "labelled", "model_gated": "gated"}


def chapter_values(summary: pd.DataFrame, facts: Mapping[str, Any], budgets: pd.DataFrame) -> dict[str, tuple[Any, str]]:
    """Every number the chapter's prose quotes, by glue key, with its kind of quantity.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`agent_loop_summary`.
    facts : Mapping
        :func:`recording_facts`.
    budgets : pandas.DataFrame
        :func:`budget_completion`.

    Returns
    -------
    dict of str to tuple
        For :func:`cvlib.presentation.formatting.glue_all`.
    """
    out: dict[str, tuple[Any, str]] = {
        f"AL_{k}": (facts[k], "count")
        for k in ("tasks", "named", "variants", "budgets", "random", "calls", "planned_tasks", "max_tokens", "threads")
    }
    for _, row in summary.iterrows():
        name = GLUE_NAMES[row["executor"]]
        for metric, kind in (("pfw", "mean"), ("scur", "share"), ("verifications", "mean"), ("steps", "mean"),
                             ("completion", "percent_of")):
            for suffix in ("", "_low", "_high"):
                out[f"AL_{name}_{metric}{suffix}"] = (row[metric + suffix], kind)
        if name not in ("base", "va"):
            out[f"AL_{name}_decisions"] = (row["decisions"], "count")
            out[f"AL_{name}_unparsed"] = (row["unparsed"], "count")
            out[f"AL_{name}_overruled"] = (row["overruled"], "count")
    for executor in EXECUTORS:
        if executor in budgets.columns:
            done = budgets.loc[budgets[executor].astype(bool), "budget"]
            out[f"AL_{GLUE_NAMES[executor]}_lowest_budget"] = (int(done.min()) if len(done) else 0, "count")
    out["AL_unparsed"] = (int(summary["unparsed"].sum()), "count")
    out["AL_decisions"] = (int(summary["decisions"].sum()), "count")
    return out
