"""The chapter "A model in the loop": the pre-registered agent study's tables, forest plot, prompts and glued values.

The statistics are :mod:`cvlib.experiments.agent_study.report` (the whole
analysis in one call, and the predictions' verdicts); this module finds the
recordings, writes the results for a reader (intervals as ranges, verdicts in
words, what each result holds by) and draws. It never runs a model: a reader's
new recording is made by :func:`cvlib.experiments.agent_study.design.reader_recording`.
A model named in the plan without a recording is shown as "not recorded yet".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.core.executors import BASELINE, VALIDITY_AWARE
from cvlib.experiments.agent_study.analysis import RANDOM_DRAWS
from cvlib.experiments.agent_study.design import EXPERIMENT, reader_recording
from cvlib.experiments.agent_study.report import NOT_RECORDED, PREDICTIONS, StudyAnalysis, analyse, verdicts
from cvlib.experiments.agent_study.study_prompts import STUDY_ARMS
from cvlib.models.determinism import determinism_sentence, load_determinism
from cvlib.models.naming import recording_stem
from cvlib.models.recording import CallRecord, read_recording
from cvlib.presentation import _study_models
from cvlib.presentation._study_models import (
    PROMPT_WIDTH,
    answers_summary,
    changed_lines,
    conversation_text,
    first_turn,
    glue_key,
    model_label,
    model_table,
    prompt_block,
)
from cvlib.presentation.formatting import (
    MARKDOWN,
    MISSING,
    effect_phrase,
    fmt,
    grouped_effects,
    interval_text,
    listing,
    plural,
    verdict,
)
from cvlib.presentation.style import SERIES, legend_below, new_figure
from cvlib.repository import project_root

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "MODELS",
    "MODEL_LABELS",
    "PREREGISTRATION_COMMIT",
    "bias_table",
    "chapter_values",
    "conversations",
    "bias_sentence",
    "coverage_sentence",
    "coverage_table",
    "determinism_table",
    "recording_state",
    "effects_table",
    "forest_figure",
    "prompts_markdown",
    "levels_table",
    "mcnemar_table",
    "probe_table",
    "read_study",
    "shares_table",
    "study_sources",
    "verdict_table",
]

#: The study's models, smallest first, by recording stem (``agent_study.<stem>.jsonl.gz``); the notes study's too.
MODELS: tuple[str, ...] = _study_models.MODELS
#: How the page names them.
MODEL_LABELS: dict[str, str] = _study_models.MODEL_LABELS
#: The file names of the first edition's recordings (the second edition's have their own page).
FIRST_EDITION_FILES = ("agent_loop.", "agent_study.")
#: The commit that holds the pre-registration (part 1), made before the study's first call.
PREREGISTRATION_COMMIT = "1788723"
#: What each primary contrast isolates, what its result holds by, and its short name in glue keys.
_PRIMARY: dict[str, tuple[str, str, str]] = {
    "labelled − transcript": ("reading the states", "the model's choice", "read"),
    "told − labelled": ("being told the rule", "instruction", "told"),
    "enforced − told": ("being stopped by the gate", "construction", "gate"),
}
_METRIC_NAMES: dict[str, str] = {
    "pre_failure_work": "pre-failure work (steps)", "completed": "completion (share of tasks)",
    "verifications": "verifications", "steps_used": "steps used", "scur": "SCUR",
    "execute_blocked": "EXECUTE answers at blocked steps", "correct": "probe answered right (share)",
}
_REFERENCE_NAMES = {BASELINE: "always execute", VALIDITY_AWARE: "validity-aware executor"}


def study_sources(recordings: Sequence[str] = MODELS, folder: str = "data/model_trials", model: str = "",
                  record_tasks: int = 2) -> dict[str, Path | None]:
    """The recording of each model the page reads (None: not recorded yet), or a reader's new one.

    Parameters
    ----------
    recordings : sequence of str
        Recording stems (``agent_study.<stem>.jsonl.gz`` in ``folder``).
    folder : str
        Where they are (relative paths from the repository root).
    model : str
        Empty to read ``recordings``; else a model to record with (the page then reads only that recording).
    record_tasks : int
        How many tasks a new recording takes.

    Returns
    -------
    dict of str to Path or None
    """
    if model:
        out = reader_recording(model, record_tasks, project_root() / "_runs")
        return {recording_stem(model): out}
    base = Path(folder) if Path(folder).is_absolute() else project_root() / folder
    return {stem: (p if (p := base / f"{EXPERIMENT}.{stem}.jsonl.gz").is_file() else None) for stem in recordings}


def read_study(sources: Mapping[str, Path | None], confidence: float = 0.95) -> StudyAnalysis:
    """The pre-registered analysis of every recording found (:func:`cvlib.experiments.agent_study.report.analyse`).

    Parameters
    ----------
    sources : Mapping
        :func:`study_sources`.
    confidence : float
        Every interval's level.

    Returns
    -------
    StudyAnalysis
    """
    return analyse({m: p for m, p in sources.items() if p is not None}, confidence)


def _interval(mean: float, low: float, high: float, kind: str = "mean") -> str:
    return interval_text(mean, low, high, kind)


def _reading(low: float, high: float, tasks: int) -> str:
    if math.isnan(low) or math.isnan(high):
        return "too few tasks for an interval"
    return verdict(low, high, tasks)


def _effect(r: Any) -> str:
    """One effect row in one phrase: the mean difference, its interval and what they say (n is the paragraph's)."""
    if math.isnan(r["low"]) or math.isnan(r["high"]):
        return f"{_interval(r['mean'], r['low'], r['high'])}, too few tasks for an interval"
    return effect_phrase(r["mean"], r["low"], r["high"], int(r["tasks"]))


def coverage_table(study: StudyAnalysis, sources: Mapping[str, Path | None]) -> Any:
    """Tasks analysed per model and repeat (stale-fact and control), and "not recorded yet" where nothing is.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.
    sources : Mapping
        :func:`study_sources`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for model in sources:
        mine = study.runs[(study.runs["model"] == model) & study.runs["arm"].isin(STUDY_ARMS)] if model in study.models else None
        if mine is None:
            rows.append({"model": model, "repeat": MISSING, "stale": MISSING, "control": MISSING, "status": NOT_RECORDED})
            continue
        for repeat, part in mine.groupby("repeat"):
            kinds = part.drop_duplicates("task")["stale_fact"]
            rows.append({"model": model, "repeat": "0 (greedy)" if repeat == 0 else f"{repeat} (sampled)",
                         "stale": int(kinds.sum()), "control": int((~kinds).sum()), "status": "recorded"})
    frame = pd.DataFrame(rows, columns=["model", "repeat", "stale", "control", "status"])
    return model_table(frame, {"model": "Model", "repeat": "Repeat", "stale": "Stale-fact tasks", "control": "Control tasks",
                               "status": "Status"})


def _coverage(study: StudyAnalysis, sources: Mapping[str, Path | None],
              reader: bool) -> tuple[list[str], list[str], list[str]]:
    """The plan's models whose every planned repeat is whole, the repeats short of the plan, and a reader's own models, in words."""
    from cvlib.experiments.agent_study.design import CONTROL_TASKS, PLANNED_REPEATS, STALE_TASKS

    planned = STALE_TASKS + CONTROL_TASKS
    whole: list[str] = []
    short: list[str] = []
    own: list[str] = []
    for model in sources:
        runs = study.runs[(study.runs["model"] == model) & study.runs["arm"].isin(STUDY_ARMS)] if model in study.models else None
        counts = {r: 0 if runs is None else int(runs.loc[runs["repeat"] == r, "task"].nunique())
                  for r in PLANNED_REPEATS.get(model, (0,))}
        if reader or model not in PLANNED_REPEATS:
            own.append(f"{model_label(model)}: {plural(counts[0], 'task')} in the greedy repeat")
            continue
        short += [f"{model_label(model)} repeat {r} has {fmt(n)} of {fmt(planned)} tasks" for r, n in counts.items() if n < planned]
        if all(n >= planned for n in counts.values()):
            word = "repeat" if len(counts) == 1 else "repeats"
            whole.append(f"{model_label(model)} {word} {', '.join(str(r) for r in counts)}")
    return whole, short, own


def coverage_sentence(study: StudyAnalysis, sources: Mapping[str, Path | None], reader: bool = False) -> str:
    """Whether every recording the plan names is complete, or which model and repeat still lacks tasks, in words.

    The Limits section states it, so the page never calls a recording partial once
    it is whole, nor whole while the background recorder is still at work.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.
    sources : Mapping
        :func:`study_sources`.
    reader : bool
        The sources are a reader's own recording (the page's ``model`` parameter), never the plan's, whatever the model.

    Returns
    -------
    str
    """
    from cvlib.experiments.agent_study.design import CONTROL_TASKS, STALE_TASKS

    whole, short, own = _coverage(study, sources, reader)
    if own:
        return f"this page reads a new recording ({'; '.join(own)}), not the plan's"
    if short:
        return (f"the recordings are not all whole: {'; '.join(short)}; the plan records every model's greedy repeat "
                "before the sampled ones, so those effects rest on fewer tasks than the plan's")
    return f"every recording of the plan is whole, all {fmt(STALE_TASKS + CONTROL_TASKS)} tasks in each: {'; '.join(whole)}"


def recording_state(study: StudyAnalysis, sources: Mapping[str, Path | None], reader: bool = False) -> str:
    """How the page's recordings stand against the pre-registered stopping rule, as the opening of "What was recorded".

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.
    sources : Mapping
        :func:`study_sources`.
    reader : bool
        The sources are a reader's own recording (the page's ``model`` parameter), never the plan's, whatever the model.

    Returns
    -------
    str
    """
    _, short, own = _coverage(study, sources, reader)
    if own:
        return ("This page reads a reader's own recording of the first tasks of the study's seeded order, not the plan's; "
                "the pre-registered stopping rule does not apply to it.")
    if short:
        return ("The recordings were still being made when this page was computed. The pre-registered stopping rule "
                "covers that: every planned group is recorded, nothing is stopped or added on the basis of results, and "
                "because the tasks are recorded in a seeded shuffled order, the groups recorded so far are a random "
                "sample of the study's tasks.")
    return ("Every group the plan names was recorded before this page was computed, as the pre-registered stopping rule "
            "asks; nothing was stopped or added on the basis of results.")


def _effect_rows(study: StudyAnalysis, kind: str, metrics: Sequence[str]) -> pd.DataFrame:
    e = study.effects
    if e.empty:
        return e
    part = e[(e["kind"] == kind) & e["metric"].isin(metrics)].copy()
    order = {m: i for i, m in enumerate(study.models)}
    part["_m"] = part["model"].map(order)
    part["_k"] = part["metric"].map({m: i for i, m in enumerate(metrics)})
    return part.sort_values(["_k", "_m"], kind="stable")


def effects_table(study: StudyAnalysis, kind: str = "primary", metrics: Sequence[str] = ("pre_failure_work",)) -> Any:
    """Paired effects as the page shows them: n, mean (interval), whether the interval excludes zero, what it holds by.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.
    kind : str
        ``primary``, ``reference``, ``control`` or ``probe``.
    metrics : sequence of str
        The metrics to show, in order.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    part = _effect_rows(study, kind, metrics)
    rows = [{"model": r["model"], "metric": _METRIC_NAMES.get(r["metric"], r["metric"]),
             "contrast": _contrast_words(r["contrast"]), "tasks": int(r["tasks"]),
             "effect": _interval(r["mean"], r["low"], r["high"]), "reading": _reading(r["low"], r["high"], int(r["tasks"])),
             "by": "" if kind == "probe" else _PRIMARY.get(r["contrast"], ("", "", ""))[1] or _holds_by(r["contrast"])}
            for _, r in part.iterrows()]
    frame = pd.DataFrame(rows, columns=["model", "metric", "contrast", "tasks", "effect", "reading", "by"])
    return model_table(frame, {"model": "Model", "metric": "Metric", "contrast": "Contrast (first − second)", "tasks": "Tasks",
                               "effect": f"Mean difference ({round(100 * study.confidence)} % interval)",
                               "reading": "Reading", "by": "Holds by"})


def _contrast_words(contrast: str) -> str:
    first, second = contrast.split(" − ")
    second = _REFERENCE_NAMES.get(second, second.replace("random_", "random at own rates, "))
    return f"{first} − {second}"


def _holds_by(contrast: str) -> str:
    first = contrast.split(" − ")[0]
    return {"transcript": "the model's choice", "labelled": "the model's choice", "told": "instruction",
            "enforced": "construction"}.get(first, "")


def levels_table(study: StudyAnalysis, stale_fact: bool = True) -> Any:
    """Each arm's and reference's mean per task (repeats averaged within a task): the levels the effects are differences of.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.
    stale_fact : bool
        Stale-fact tasks (True) or control tasks (False).

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    from cvlib.experiments.agent_study.analysis import arm_means

    metrics = ("pre_failure_work", "completed", "verifications", "steps_used")
    arms = (*STUDY_ARMS, BASELINE, VALIDITY_AWARE, *(f"random_{a}" for a in STUDY_ARMS))
    rows = []
    for model in study.models:
        means = {m: arm_means(study.runs[study.runs["model"] == model], m, stale_fact=stale_fact).set_index("arm")
                 for m in metrics}
        for arm in arms:
            if arm not in means[metrics[0]].index:
                continue
            row: dict[str, Any] = {"model": model, "arm": _REFERENCE_NAMES.get(arm, arm.replace("random_", "random at rates of "))}
            row["tasks"] = int(means[metrics[0]].loc[arm, "tasks"])
            row.update({m: float(means[m].loc[arm, "mean"]) for m in metrics})
            rows.append(row)
    frame = pd.DataFrame(rows, columns=["model", "arm", "tasks", *metrics])
    return model_table(frame, {"model": "Model", "arm": "Arm or reference", "tasks": "Tasks", "pre_failure_work": "Pre-failure work",
                               "completed": "Completed", "verifications": "Verifications", "steps_used": "Steps used"},
                       {"pre_failure_work": "mean", "completed": "percent_of", "verifications": "mean", "steps_used": "mean"})


def mcnemar_table(study: StudyAnalysis) -> Any:
    """McNemar's exact test of completion on the greedy repeat, per model and primary contrast.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    frame = study.mcnemar if not study.mcnemar.empty else study.mcnemar.reindex(
        columns=["model", "contrast", "tasks", "only_first", "only_second", "p_value"])
    return model_table(frame, {"model": "Model", "contrast": "Contrast", "tasks": "Tasks (greedy)",
                               "only_first": "Completed only in the first", "only_second": "Completed only in the second",
                               "p_value": "p (exact)"}, {"p_value": "rate"})


def shares_table(study: StudyAnalysis) -> Any:
    """Shares of tasks (greedy repeat, stale-fact tasks) with Wilson intervals: EXECUTE at a blocked step, and runs that always executed.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    names = {"execute_blocked": "answered EXECUTE at a blocked step", "always_execute": "answered EXECUTE at every step"}
    rows = [{"model": r["model"], "share": names[r["share"]], "arm": r["arm"], "tasks": int(r["tasks"]),
             "value": f"{int(r['count'])} ({_interval(r['value'], r['low'], r['high'], 'percent_of')})",
             "decisions": r["decisions_share"]} for _, r in study.shares.iterrows()] if not study.shares.empty else []
    frame = pd.DataFrame(rows, columns=["model", "share", "arm", "tasks", "value", "decisions"])
    return model_table(frame, {"model": "Model", "share": "Tasks where the model", "arm": "Arm", "tasks": "Tasks",
                               "value": "Tasks (share, Wilson interval)", "decisions": "Share of decisions (pooled)"},
                       {"decisions": "percent_of"})


def probe_table(study: StudyAnalysis) -> Any:
    """The competence probe per model and arm: tasks probed, answered exactly right, Wilson interval.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    rows = [{"model": r["model"], "arm": r["arm"], "tasks": int(r["tasks"]), "correct": int(r["correct"]),
             "share": _interval(r["share"], r["low"], r["high"], "percent_of")} for _, r in study.probes.iterrows()]
    frame = pd.DataFrame(rows, columns=["model", "arm", "tasks", "correct", "share"])
    return model_table(frame, {"model": "Model", "arm": "Arm", "tasks": "Tasks probed", "correct": "Answered right",
                               "share": "Share (Wilson interval)"})


def bias_table(study: StudyAnalysis) -> Any:
    """Option order (sampled repeats): how often each answer was chosen listed first, and listed second or third.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    columns = ["model", "answer", "first_shown", "first_share", "later_shown", "later_share"]
    frame = study.bias.reindex(columns=columns) if not study.bias.empty else pd.DataFrame(columns=columns)
    return model_table(frame, {"model": "Model", "answer": "Answer", "first_shown": "Decisions, listed first",
                               "first_share": "Chosen, listed first", "later_shown": "Decisions, listed later",
                               "later_share": "Chosen, listed later"}, {"first_share": "percent_of", "later_share": "percent_of"})


def bias_sentence(study: StudyAnalysis) -> str:
    """Per model with sampled repeats, how many of the three answers were chosen more often when listed first, in words.

    A description of the pooled counts of :func:`bias_table`, not a test.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.

    Returns
    -------
    str
    """
    if study.bias.empty:
        return "no sampled repeat is recorded yet, so nothing is measured"
    parts = []
    for model, rows in study.bias.groupby("model", sort=False):
        higher = rows[rows["first_share"] > rows["later_share"]]["answer"].tolist()
        parts.append(f"{model_label(model)}: {fmt(len(higher))} of {fmt(len(rows))} answers chosen more often when listed "
                     f"first than later ({', '.join(higher) if higher else 'none'})")
    return "; ".join(parts)


def verdict_table(study: StudyAnalysis, planned: Sequence[str]) -> Any:
    """Every pre-registered prediction per model: what was predicted, the effect that decides it, the verdict.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.
    planned : sequence of str
        The models of the plan.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    frame = verdicts(study, planned)
    frame["predicted"] = frame["prediction"].map(lambda p: PREDICTIONS.get(p, "every prediction"))
    frame["effect"] = [MISSING if math.isnan(r["mean"]) else _interval(r["mean"], r["low"], r["high"])
                       for _, r in frame.iterrows()]
    frame["tasks"] = frame["tasks"].map(lambda n: MISSING if isinstance(n, float) and math.isnan(n) else int(n))
    return model_table(frame, {"prediction": "Prediction", "predicted": "Predicted", "model": "Model", "measured": "Measured",
                               "tasks": "Tasks", "effect": "Mean (interval)", "note": "Note", "verdict": "Verdict"},
                       summary=_verdict_summary(frame["verdict"]))


def _verdict_summary(verdict_column: Any) -> str:
    """The folded predictions table's line: how many rows, and how many of them came to each verdict."""
    counts = verdict_column.value_counts(sort=False)
    return f"Every prediction per model ({plural(len(verdict_column), 'row')}: " + "; ".join(
        f"{text}: {fmt(int(n))}" for text, n in counts.items()) + ")"


def forest_figure(study: StudyAnalysis) -> Figure:
    """The forest plot: the three primary contrasts per model, pre-failure work and completion, with intervals.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.lines import Line2D

    rows = [(model, contrast) for contrast in _PRIMARY for model in study.models]
    fig, axes = new_figure(1, 2, height=0.32 * max(1, len(rows)) + 1.9, sharey=True)
    colours = {m: SERIES[i % len(SERIES)] for i, m in enumerate(study.models)}
    panels = (("pre_failure_work", "pre-failure work\n(steps per task)", 1.0),
              ("completed", "completion\n(percentage points)", 100.0))
    for ax, (metric, title, scale) in zip(axes, panels):
        part = _effect_rows(study, "primary", (metric,))
        for y, (model, contrast) in enumerate(reversed(rows)):
            hit = part[(part["model"] == model) & (part["contrast"] == contrast)] if not part.empty else part
            if hit.empty:
                continue
            r = hit.iloc[0]
            if not math.isnan(r["low"]):
                ax.plot([scale * r["low"], scale * r["high"]], [y, y], color=colours[model], lw=2.5)
            ax.plot(scale * r["mean"], y, marker="o", color=colours[model], ms=6)
        ax.axvline(0, color="#555555", lw=0.8, ls="--")
        ax.set_xlabel(title)
        ax.set_ylim(-0.6, len(rows) - 0.4)
    n = max(1, len(study.models))
    centres = [len(rows) - 1 - (i * n + (n - 1) / 2) for i in range(len(_PRIMARY))]
    axes[0].set_yticks(centres, [f"{words}\n({c})" for c, (words, _, _) in _PRIMARY.items()])
    for ax in axes:
        for i in range(1, len(_PRIMARY)):
            ax.axhline(len(rows) - 0.5 - i * n, color="#cccccc", lw=0.6)
    level = round(100 * study.confidence)
    handles = [Line2D([], [], color=colours[m], marker="o", lw=2.5, label=f"{model_label(m)}") for m in study.models]
    handles.append(Line2D([], [], color="#555555", lw=0, label=f"mean paired difference over tasks, {level} % interval"))
    legend_below(fig, handles, ncols=2)
    return fig


def conversations(sources: Mapping[str, Path | None], model: str) -> dict[str, str]:
    """Each arm's whole conversation on one stale-fact task (greedy repeat), as the model read it at its last decision.

    The task is the first named scenario the recording holds whole, else its first stale-fact task.

    Parameters
    ----------
    sources : Mapping
        :func:`study_sources`.
    model : str
        The model whose recording is shown.

    Returns
    -------
    dict of str to str
        Arm -> the system turn, every question and answer, and the last answer (empty if nothing is recorded).
    """
    records = _example_records(sources, model)
    return {arm: conversation_text(record) for arm, record in records.items()}


def prompts_markdown(sources: Mapping[str, Path | None], model: str, width: int = PROMPT_WIDTH) -> str:
    """The prompts of one stale-fact task, as the page shows them: what the arms share once, what each adds, all folded.

    Printed whole, the four conversations are hundreds of lines of which all
    but a few are the same in every arm, and their longest lines run far past
    the column. So the page states the system turn once, then per arm only the
    lines of its first turn that differ from the arm before it (each contrast
    adds one thing) and its answers counted, and folds each whole conversation
    behind a summary. The prompt text is wrapped at ``width`` characters for
    display, each continuation marked: it is read, never pasted.

    Parameters
    ----------
    sources : Mapping
        :func:`study_sources`.
    model : str
        The model whose recording is shown (:func:`conversations` picks the task).
    width : int
        The longest displayed line.

    Returns
    -------
    str
        CommonMark (a notebook's Markdown output); a sentence when no stale-fact task is whole yet.
    """
    records = _example_records(sources, model)
    if not records:
        return "No stale-fact task of this recording is whole yet."
    first = {arm: first_turn(records[arm]) for arm in STUDY_ARMS}
    system = dict(records[STUDY_ARMS[0]].prompt).get("system", "")
    parts = [f"The system turn, the same in every arm:\n\n{prompt_block(system, width)}"]
    for before, arm in zip((None, *STUDY_ARMS), STUDY_ARMS):
        answers = answers_summary(records[arm])
        if before is None:
            shown = prompt_block("\n".join(first[arm]), width)
            parts.append(f"**`{arm}`**: the first turn (the plan, then the first question), and answers {answers}.\n\n{shown}")
        elif first[arm] == first[before]:
            parts.append(f"**`{arm}`**: the same prompt as `{before}`, byte for byte; answers {answers}.")
        else:
            changed = changed_lines(first[before], first[arm])
            parts.append(f"**`{arm}`**: its first turn against `{before}`'s (`-` removed, `+` added), and answers "
                         f"{answers}.\n\n{prompt_block(chr(10).join(changed), width)}")
    for arm in STUDY_ARMS:
        turns = len(records[arm].prompt) + 1
        parts.append(f'<details class="cvtable-fold"><summary><span class="cvtable-summary">The whole <code>{arm}</code> conversation '
                     f'({plural(turns, "turn")})</span><span class="cvtable-show">show it</span></summary>\n\n'
                     f"{prompt_block(conversation_text(records[arm]), width)}\n\n</details>")
    return "\n\n".join(parts)


def _example_records(sources: Mapping[str, Path | None], model: str) -> dict[str, CallRecord]:
    """Each arm's last greedy call on the task :func:`conversations` shows (empty if none is whole)."""
    path = sources.get(model)
    if path is None:
        return {}
    runs: dict[str, dict[str, CallRecord]] = {}
    for r in read_recording(path, allow_cut_tail=True):
        if r.experiment == EXPERIMENT and not r.decision.get("probe") and r.task.get("stale_fact") and r.task["repeat"] == 0:
            runs.setdefault(r.run or "", {})[str(r.arm)] = r
    whole = [name for name, arms in runs.items() if len(arms) == len(STUDY_ARMS)]
    if not whole:
        return {}
    named = [name for name in whole if runs[name]["transcript"].task.get("family") == "named"]
    return runs[(named or whole)[0]]


def chapter_values(study: StudyAnalysis, sources: Mapping[str, Path | None], main: str,
                   reader: bool = False) -> dict[str, tuple[Any, str]]:
    """Every value the prose quotes, by glue key: counts per model, each primary effect as words, the main model's keys.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`read_study`.
    sources : Mapping
        :func:`study_sources`.
    main : str
        The model the front page quotes (``AL_tasks`` is its number of stale-fact tasks).
    reader : bool
        The sources are a reader's own recording (:func:`coverage_sentence`).

    Returns
    -------
    dict of str to tuple
        Each key's value and kind of quantity, for :func:`cvlib.presentation.formatting.glue_all` (texts have the kind ``"count"`` and pass through).
    """
    from cvlib.experiments.agent_study.design import CONTROL_TASKS, SAMPLED_TEMPERATURE, STALE_TASKS, STUDY_SEED

    out: dict[str, tuple[Any, str]] = {"AL_preregistration": (PREREGISTRATION_COMMIT, "count"),
                                       "AL_plan_stale": (STALE_TASKS, "count"), "AL_plan_control": (CONTROL_TASKS, "count"),
                                       "AL_seed": (str(STUDY_SEED), "count"), "AL_temperature": (SAMPLED_TEMPERATURE, "tenths"),
                                       "AL_confidence_pct": (f"{round(100 * study.confidence)} %", "count"),
                                       "AL_models_read": (len(study.models), "count"),
                                       "AL_random_draws": (RANDOM_DRAWS, "count")}
    for model in MODELS + tuple(m for m in sources if m not in MODELS):
        out.update(_model_values(study, model, glue_key(model)))
    out.update({k.replace(f"AL_{glue_key(main)}_", "AL_main_"): v for k, v in _model_values(study, main, glue_key(main)).items()})
    named = [main, *(m for m in (*MODELS, *sources) if m != main)]
    out.update(_group_values(study, list(dict.fromkeys(named))))
    out["AL_main_model"] = (model_label(main), "count")
    out["AL_tasks"] = out["AL_main_stale"]
    out["AL_coverage"] = (coverage_sentence(study, sources, reader), "count")
    out["AL_recording_state"] = (recording_state(study, sources, reader), "count")
    out["AL_bias"] = (bias_sentence(study), "count")
    out["AL_determinism"] = (determinism_sentence(load_determinism(project_root() / "data" / "model_trials" / "determinism.csv"),
                                                  FIRST_EDITION_FILES), "count")
    return out


def _model_values(study: StudyAnalysis, model: str, key: str) -> dict[str, tuple[Any, str]]:
    """One model's glued values: tasks, the three primary effects in words, the told arm's EXECUTE share, the probe."""
    p = f"AL_{key}_"
    if model not in study.models:
        names = ("stale", "control", "repeats", "read", "told", "gate", "told_execute", "probe_best", "read_pfw",
                 "told_pfw", "gate_pfw", "competence", "told_random", "transcript_base", "control_told", "control_read",
                 "gate_same")
        missing = {f"{p}{n}": (NOT_RECORDED, "count") for n in names}
        return missing | {f"{p}label": (model_label(model), "count"),
                          f"{p}finding": (f"**{model_label(model)}**: {NOT_RECORDED}", MARKDOWN)}
    runs = study.runs[(study.runs["model"] == model) & study.runs["arm"].isin(STUDY_ARMS)]
    kinds = runs.drop_duplicates("task")["stale_fact"]
    out: dict[str, tuple[Any, str]] = {f"{p}label": (model_label(model), "count"), f"{p}stale": (int(kinds.sum()), "count"),
                                       f"{p}control": (int((~kinds).sum()), "count"),
                                       f"{p}repeats": (", ".join(str(r) for r in sorted(runs["repeat"].unique())), "count")}
    effects = study.effects[(study.effects["model"] == model) & (study.effects["kind"] == "primary")]
    for contrast, (_, by, short) in _PRIMARY.items():
        hit = effects[(effects["contrast"] == contrast) & (effects["metric"] == "pre_failure_work")]
        if hit.empty:
            out[f"{p}{short}"] = out[f"{p}{short}_pfw"] = (MISSING, "count")
            continue
        r = hit.iloc[0]
        same = r["low"] == r["high"]  # every task's difference is the same: say so, not "0.00 (0.00 to 0.00)"
        out[f"{p}{short}_pfw"] = (_effect(r) if same else _interval(r["mean"], r["low"], r["high"]), "count")
        out[f"{p}{short}"] = (f"{_effect(r)}, by {by}", "count")
    told = runs[runs["arm"] == "told"]
    out[f"{p}told_execute"] = (float(told["answered_execute"].sum() / max(1, told["decisions"].sum())), "percent_of")
    probes = study.probes[study.probes["model"] == model]
    out[f"{p}probe_best"] = (float(probes["share"].max()) if len(probes) else math.nan, "percent_of")
    out[f"{p}competence"] = (_competence(probes), "count")
    for name, kind, contrast, metric in (("told_random", "reference", "told − random_told", "pre_failure_work"),
                                         ("transcript_base", "reference", f"transcript − {BASELINE}", "pre_failure_work"),
                                         ("control_told", "control", f"told − {BASELINE}", "steps_used"),
                                         ("control_read", "control", "labelled − transcript", "verifications")):
        out[f"{p}{name}"] = (_effect_words(study, model, kind, contrast, metric), "count")
    pfw = study.runs[(study.runs["model"] == model) & study.runs["stale_fact"]].groupby(["task", "arm"])["pre_failure_work"].mean()
    wide = pfw.unstack("arm")
    same = int((wide["enforced"] == wide[VALIDITY_AWARE]).sum()) if len(wide) else 0
    out[f"{p}gate_same"] = (f"{fmt(same)} of {fmt(len(wide))}", "count")
    stale = out[f"{p}stale"][0]
    parts = "; ".join(f"{words} {out[f'{p}{short}'][0]}" for words, _, short in _PRIMARY.values())
    out[f"{p}finding"] = (f"**{model_label(model)}**, {fmt(stale)} stale-fact tasks: {parts}", MARKDOWN)
    return out


def _competence(probes: pd.DataFrame) -> str:
    """Whether the probe says the model can read the states (pre-registration, Q4), in words (for one model or several)."""
    if probes.empty:
        return "had no probe answers"
    if (probes["high"] < 0.5).all():
        return "could not name them (right in under half of the probed tasks in every arm, by the whole interval)"
    if (probes["low"] >= 0.5).any():
        return "named them in half of the probed tasks or more in at least one arm (by the whole interval)"
    return "could not be shown right in under half of the probed tasks in every arm, nor in half or more in any"


#: The effects the prose states for every model at once, each verdict once — glue key, lead, kind, contrast, metric.
_GROUPED: tuple[tuple[str, str, str, str, str], ...] = (
    ("told_random", "against random answers at each model's own rates, the told arm's difference in pre-failure work",
     "reference", "told − random_told", "pre_failure_work"),
    ("transcript_base", "against always executing, the transcript arm's difference in pre-failure work",
     "reference", f"transcript − {BASELINE}", "pre_failure_work"),
    ("control_read", "the change in needless verifications from reading the states", "control", "labelled − transcript",
     "verifications"),
    ("control_told", "the told arm's difference from always executing in steps used", "control", f"told − {BASELINE}",
     "steps_used"),
    ("gate_pfw", "the change in pre-failure work from enforcing", "primary", "enforced − told", "pre_failure_work"),
)


def _group_values(study: StudyAnalysis, models: Sequence[str]) -> dict[str, tuple[Any, str]]:
    """The sentences that state one result for every model, each verdict and each probe reading said once.

    ``AL_group_competence`` names the models that share a probe reading
    together; ``AL_group_<effect>`` is :func:`~cvlib.presentation.formatting.grouped_effects`
    over the models' rows of one effect (a model without a recording is "not recorded yet").
    """
    out: dict[str, tuple[Any, str]] = {}
    e = study.effects
    for key, lead, kind, contrast, metric in _GROUPED:
        rows = []
        for model in models:
            hit = e[(e["model"] == model) & (e["kind"] == kind) & (e["contrast"] == contrast) & (e["metric"] == metric)] \
                if not e.empty else e
            r = hit.iloc[0] if len(hit) else None
            rows.append((model_label(model), math.nan, math.nan, math.nan, 0) if r is None else
                        (model_label(model), r["mean"], r["low"], r["high"], int(r["tasks"])))
        out[f"AL_group_{key}"] = (grouped_effects(lead, rows, missing=NOT_RECORDED), MARKDOWN)
    readings: dict[str, list[str]] = {}
    for model in models:
        said = _competence(study.probes[study.probes["model"] == model]) if model in study.models else "had no recording yet"
        readings.setdefault(said, []).append(model_label(model))
    sentences = [f"{listing(names, last=' and ')} {said}." for said, names in readings.items()]
    out["AL_group_competence"] = (" ".join(sentences), MARKDOWN)
    return out


def _effect_words(study: StudyAnalysis, model: str, kind: str, contrast: str, metric: str) -> str:
    e = study.effects
    hit = e[(e["model"] == model) & (e["kind"] == kind) & (e["contrast"] == contrast) & (e["metric"] == metric)] if not e.empty else e
    if hit.empty:
        return MISSING
    return _effect(hit.iloc[0])

def determinism_table() -> Any:
    """Per recording of the agent-loop study, its sampled calls that came back byte-identical at one and two threads.

    Returns
    -------
    cvlib.presentation.tables.Table
        Read from ``data/model_trials/determinism.csv`` (:func:`cvlib.models.determinism.load_determinism`).
    """
    return _study_models.determinism_table(load_determinism(project_root() / "data" / "model_trials" / "determinism.csv"),
                                           FIRST_EDITION_FILES)
