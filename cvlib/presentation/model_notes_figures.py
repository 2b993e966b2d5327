"""The figure and tables of the chapter on the notes trials with a local model.

:mod:`cvlib.experiments.notes_study` reads the recording and counts; this module
only shows what it returns, in the book's one style: a stale edit keeps the
baseline's colour and a true note's edit the validity-aware one's, as in the
chapter on the published trials (:mod:`cvlib.presentation.notes_figures`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study import ARM_LABELS, ARMS, OUTCOMES, RIGHT_OUTCOME, STALE_ARMS
from cvlib.presentation import tables
from cvlib.presentation.formatting import fmt
from cvlib.presentation.notes_figures import OUTCOME_COLOURS
from cvlib.presentation.style import legend_below, new_figure

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

#: How each outcome is written.
OUTCOME_NAMES: dict[str, str] = {
    "stale_edit": "stale edit applied",
    "true_edit": "true note's edit made",
    "unchanged": "function unchanged",
    "other": "other answer",
}
#: Each outcome's colour (stale in the baseline's, true in the validity-aware executor's).
OUTCOME_FILL: dict[str, str] = {
    "stale_edit": OUTCOME_COLOURS["stale"],
    "true_edit": OUTCOME_COLOURS["true"],
    "unchanged": "#BBBBBB",
    "other": "#555555",
}


def _check(summary: pd.DataFrame) -> None:
    if summary.empty or "arm" not in summary.columns or int(summary["tasks"].min()) == 0:
        raise ParameterError("the notes-trial figures need every arm with at least one recorded task")


def arms_figure(summary: pd.DataFrame, confidence: float) -> Figure:
    """Each arm as one bar split by outcome (shares of tasks), with the stale-edit share's Wilson interval.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`cvlib.experiments.notes_study.arm_summary`.
    confidence : float
        The intervals' confidence level.

    Returns
    -------
    matplotlib.figure.Figure
        One horizontal bar per arm, top to bottom in :data:`~cvlib.experiments.notes_study.ARMS` order.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    _check(summary)
    rows = summary.set_index("arm").loc[list(ARMS)]
    fig, ax = new_figure(height=0.42 * len(rows) + 1.9)
    for position, (arm, row) in enumerate(rows.iterrows()):
        y = len(rows) - 1 - position
        left = 0.0
        for outcome in OUTCOMES:
            width = 100 * float(row[f"{outcome}_share"])
            ax.barh(y, width, left=left, color=OUTCOME_FILL[outcome], height=0.62, edgecolor="white", linewidth=0.6)
            left += width
        if arm in STALE_ARMS or row["stale_edit"] > 0:
            ax.plot([100 * row["stale_low"], 100 * row["stale_high"]], [y, y], color="black", lw=1.6)
    ax.set_yticks(list(range(len(rows) - 1, -1, -1)), [ARM_LABELS[a] for a in rows.index])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of tasks (%)")
    ax.set_axisbelow(True)
    ax.grid(axis="y", visible=False)
    handles: list[Any] = [Patch(color=OUTCOME_FILL[o], label=OUTCOME_NAMES[o]) for o in OUTCOMES]
    handles.append(Line2D([], [], color="black", lw=1.6, label=f"stale-edit share, {round(100 * confidence)}% Wilson interval"))
    legend_below(fig, handles, ncols=2)
    return fig


def arms_table(summary: pd.DataFrame, confidence: float) -> Any:
    """The arms side by side: tasks, each outcome's count, and the share with the arm's right outcome (with its interval).

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`cvlib.experiments.notes_study.arm_summary`.
    confidence : float
        The intervals' confidence level.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    _check(summary)
    frame = pd.DataFrame({
        "arm": [ARM_LABELS[a] for a in summary["arm"]],
        "tasks": summary["tasks"],
        **{o: summary[o] for o in OUTCOMES},
        "right": [OUTCOME_NAMES[RIGHT_OUTCOME[a]] for a in summary["arm"]],
        "right_share": [f"{fmt(s, 'percent_whole')} ({fmt(lo, 'percent_whole')}–{fmt(hi, 'percent_whole')})"
                        for s, lo, hi in zip(summary["right"], summary["right_low"], summary["right_high"])],
    })
    names = {"arm": "Arm", "tasks": "Tasks", **{o: OUTCOME_NAMES[o].capitalize() for o in OUTCOMES},
             "right": "Right outcome", "right_share": f"Right, % of tasks ({round(100 * confidence)}% interval)"}
    return tables.table(frame, names, {"tasks": "count", **{o: "count" for o in OUTCOMES}},
                        caption="One greedy trial per task and arm; a task is counted once per arm")


def kinds_table(kinds: pd.DataFrame) -> Any:
    """Tasks with a stale edit per kind of rule and stale arm, beside the number of tasks of that kind.

    Parameters
    ----------
    kinds : pandas.DataFrame
        :func:`cvlib.experiments.notes_study.kind_summary`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    if kinds.empty:
        raise ParameterError("kinds_table needs at least one kind of rule with recorded tasks")
    arms = [a for a in STALE_ARMS if a in kinds.columns]
    names = {"rule_kind": "Kind of rule", "tasks": "Tasks", **{a: f"Stale edits: {ARM_LABELS[a]}" for a in arms}}
    return tables.table(kinds, names, {c: "count" for c in ["tasks", *arms]})


def tasks_table(grid: pd.DataFrame) -> Any:
    """Every trial: one row per task, the outcome of each arm in words (folded when long).

    Parameters
    ----------
    grid : pandas.DataFrame
        :func:`cvlib.experiments.notes_study.task_grid`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    if grid.empty:
        raise ParameterError("tasks_table needs at least one recorded task")
    short = {"stale_edit": "stale edit", "true_edit": "true edit", "unchanged": "unchanged", "other": "other"}
    arms = [a for a in ARMS if a in grid.columns]
    frame = grid.assign(**{a: grid[a].map(lambda o: short.get(o, "–") if isinstance(o, str) else "–") for a in arms})
    names = {"task": "Task", "rule_kind": "Kind of rule", **{a: ARM_LABELS[a] for a in arms}}
    return tables.table(frame, names, summary=f"Every trial, task by task ({len(frame)} tasks)")


def chapter_values(summary: pd.DataFrame, outcomes: pd.DataFrame, confidence: float) -> dict[str, tuple[Any, str]]:
    """Every number the chapter's prose quotes, keyed by glue key, with its kind (for :func:`cvlib.presentation.formatting.glue_all`).

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`cvlib.experiments.notes_study.arm_summary`.
    outcomes : pandas.DataFrame
        :func:`cvlib.experiments.notes_study.task_outcomes`.
    confidence : float
        The intervals' confidence level.

    Returns
    -------
    dict
        ``MN_tasks`` (tasks with every arm), per arm ``MN_<arm>_count``,
        ``_pct``, ``_low``, ``_high`` (stale edits), ``_other`` and
        ``_unchanged``; the true note's ``MN_true_count``/``_pct``; the pooled
        stale-note trials ``MN_stale_trials``, ``MN_stale_edits``,
        ``MN_stale_edit_share`` (and ``_pct``, ``_low``, ``_high``); the rates
        of :func:`cvlib.experiments.notes_study.measured_rates`.
    """
    from cvlib.experiments.notes_study import complete_tasks, measured_rates, stale_edit_share

    _check(summary)
    rows = summary.set_index("arm")
    rates = measured_rates(summary)
    pooled = stale_edit_share(complete_tasks(outcomes), confidence=confidence)
    tasks = int(rows["tasks"].min())
    out: dict[str, tuple[Any, str]] = {"MN_tasks": (tasks, "count"), "MN_confidence": (confidence, "percent_whole")}
    for arm in ARMS:
        out[f"MN_{arm}_count"] = (int(rows.loc[arm, "stale_edit"]), "count")
        for key, column in (("pct", "stale_edit_share"), ("low", "stale_low"), ("high", "stale_high")):
            out[f"MN_{arm}_{key}"] = (float(rows.loc[arm, column]), "percent_whole")
        out[f"MN_{arm}_other"] = (int(rows.loc[arm, "other"]), "count")
        out[f"MN_{arm}_unchanged"] = (int(rows.loc[arm, "unchanged"]), "count")
    out["MN_true_count"] = (int(rows.loc["true_note", "true_edit"]), "count")
    out["MN_true_pct"] = (rates["true_note"], "percent_whole")
    out["MN_control_edits"] = (tasks - int(rows.loc["control", "unchanged"]), "count")
    out["MN_stale_trials"] = (int(pooled["trials"]), "count")
    out["MN_stale_edits"] = (int(pooled["stale_edits"]), "count")
    out["MN_stale_edit_share"] = (pooled["share"], "share")
    for key in ("share", "low", "high"):
        out[f"MN_stale_edit_{'pct' if key == 'share' else key}"] = (pooled[key], "percent_whole")
    out["MN_shown_as_fresh_rate"] = (rates["shown_as_fresh"], "share")
    out["MN_label_rate"] = (rates["label"], "share")
    out["MN_verify_rate"] = (rates["verify"], "share")
    return out


def models_table(comparison: pd.DataFrame, confidence: float) -> Any:
    """Two (or more) models' stale edits and right outcomes per arm, on the same tasks.

    Parameters
    ----------
    comparison : pandas.DataFrame
        :func:`cvlib.experiments.notes_study.compare_models`.
    confidence : float
        The intervals' confidence level.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    if comparison.empty or int(comparison["tasks"].min()) == 0:
        raise ParameterError("models_table needs every model with at least one task recorded in every arm")
    models = list(dict.fromkeys(comparison["model"]))
    frame = pd.DataFrame({"arm": [ARM_LABELS[a] for a in ARMS]})
    names = {"arm": "Arm"}
    for k, model in enumerate(models):
        rows = comparison[comparison["model"] == model].set_index("arm").loc[list(ARMS)]
        frame[f"stale{k}"] = [f"{fmt(int(c))} ({fmt(lo, 'percent_whole')}–{fmt(hi, 'percent_whole')})"
                              for c, lo, hi in zip(rows["stale_edit"], rows["stale_low"], rows["stale_high"])]
        frame[f"right{k}"] = rows["right"].to_numpy()
        names[f"stale{k}"] = f"{model}: stale edits ({round(100 * confidence)}% interval)"
        names[f"right{k}"] = f"{model}: right outcome"
    tasks = int(comparison["tasks"].min())
    return tables.table(frame, names, {f"right{k}": "percent_whole" for k in range(len(models))},
                        caption=f"The same {fmt(tasks)} tasks for every model, one greedy trial per task and arm")


def comparison_values(comparison: pd.DataFrame | None, names: Any = ()) -> dict[str, Any]:
    """The numbers the chapter's comparison of models quotes, for :func:`cvlib.presentation.formatting.glue_all`.

    Parameters
    ----------
    comparison : pandas.DataFrame or None
        :func:`cvlib.experiments.notes_study.compare_models` of two models, or
        None when there is no second recording (every value is then a dash).
    names : sequence of str
        The two models' names, as the keys ``MN_cmp_model_0`` and ``_1`` give them.

    Returns
    -------
    dict
        ``MN_cmp_tasks``, ``MN_cmp_model_<k>`` and, per model k and arm,
        ``MN_cmp_<k>_<arm>`` (stale edits), ``MN_cmp_<k>_true`` (true notes'
        edits made) and ``MN_cmp_<k>_gap`` (the gap a label leaves: stale
        edits with the labelled note minus those with the note withheld), and
        ``MN_cmp_gap_verdict``, what the second model did to that gap
        (*narrowed*, *widened* or *left unchanged*; *closed* when it is zero).
    """
    keys = ["MN_cmp_tasks", "MN_cmp_model_0", "MN_cmp_model_1", "MN_cmp_gap_verdict"]
    keys += [f"MN_cmp_{k}_{arm}" for k in (0, 1) for arm in ARMS]
    keys += [f"MN_cmp_{k}_{what}" for what in ("true", "gap") for k in (0, 1)]
    if comparison is None:
        return {key: ("–", "text") for key in keys}
    models = list(dict.fromkeys(comparison["model"]))
    if len(models) != 2:
        raise ParameterError(f"comparison_values needs exactly two models, got {len(models)}")
    out: dict[str, Any] = {"MN_cmp_tasks": (int(comparison["tasks"].min()), "count")}
    for k, model in enumerate(models):
        out[f"MN_cmp_model_{k}"] = (list(names)[k] if names else model, "text")
        rows = comparison[comparison["model"] == model].set_index("arm")
        for arm in ARMS:
            out[f"MN_cmp_{k}_{arm}"] = (int(rows.loc[arm, "stale_edit"]), "count")
        out[f"MN_cmp_{k}_true"] = (float(rows.loc["true_note", "right"]), "percent_whole")
        gap = int(rows.loc["stale_labelled", "stale_edit"]) - int(rows.loc["withheld", "stale_edit"])
        out[f"MN_cmp_{k}_gap"] = (gap, "count")
    first, second = out["MN_cmp_0_gap"][0], out["MN_cmp_1_gap"][0]
    verdict = ("closed" if second == 0 else "narrowed" if second < first else "widened" if second > first
               else "left unchanged")
    out["MN_cmp_gap_verdict"] = (verdict, "text")
    return out


def gate_values(tasks: Any, folder: Any) -> dict[str, Any]:
    """What the notes gate says today of the release steps the trials were chosen on, for the chapter to glue.

    The tasks were chosen where the symbol-only gate shows a note and the
    dependency-aware gate withheld it; that gate's rules have since become
    more precise, so the chapter says on how many tasks the current gate
    still withholds the note (the ``withheld`` arm is what it does there).

    Parameters
    ----------
    tasks : sequence of NotesTask
        The trials' tasks (:func:`cvlib.experiments.notes_study.load_tasks`).
    folder : str or os.PathLike
        The folder of the release-history tables (``data/code_history``).

    Returns
    -------
    dict
        ``MN_gate_withheld`` and ``MN_gate_shown`` (tasks the current precise
        gate withholds and shows), ``MN_gate_wide`` (tasks the wide rule
        withholds) and ``MN_gate_shown_ids`` (the shown tasks' ids, or a dash).
    """
    from cvlib.notes.history import load_history, step_statuses

    statuses = []
    for project in sorted({t.project for t in tasks}):
        mine = [t for t in tasks if t.project == project]
        found = step_statuses(load_history(project, folder), [(t.from_version, t.to_version, t.path, t.qualname) for t in mine])
        statuses += [(t.id, p, w) for t, p, w in zip(mine, found["precise"], found["wide"])]
    order = {t.id: k for k, t in enumerate(tasks)}
    shown = sorted((i for i, p, _ in statuses if p != "DEPENDENCY_CHANGED"), key=order.__getitem__)
    return {
        "MN_gate_withheld": (len(statuses) - len(shown), "count"),
        "MN_gate_shown": (len(shown), "count"),
        "MN_gate_wide": (sum(w == "DEPENDENCY_CHANGED" for _, _, w in statuses), "count"),
        "MN_gate_shown_ids": (", ".join(shown) or "–", "text"),
    }
