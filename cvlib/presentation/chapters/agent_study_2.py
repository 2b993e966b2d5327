"""The chapter "A model in the loop, second edition": its sentences of levels, its prompts as diffs, its glued values.

The numbers are :mod:`cvlib.presentation.agent_study_2_tables` (the same
tables the report card prints); this module turns them into what the page
says first: a few plain sentences of levels per model, before any contrast,
and the prompts of one cell, each arm as the lines it changes. It reads the
second edition's recordings from any folder (the book's
``data/model_trials``, or a reader's own, imported from inspect logs), and a
planned model without a recording is "not recorded yet".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.experiments.agent_study.edition2 import PLANNED_MODELS
from cvlib.experiments.agent_study.edition2_prompts import EVIDENCE_ARMS
from cvlib.models.recording import CallRecord, read_recording
from cvlib.presentation._study_models import (
    PROMPT_WIDTH,
    answers_summary,
    changed_lines,
    conversation_text,
    first_turn,
    fold_long,
    model_label,
    prompt_block,
)
from cvlib.presentation.agent_study_2_tables import (
    GROUPS,
    StudyRuns,
    contrast_rows,
    first_answer_agreement,
    level_rows,
    probe_rows,
    random_label,
    recording_status,
)
from cvlib.presentation.formatting import fmt, listing, plural

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NOT_RECORDED", "PREREGISTRATION_COMMIT", "chapter_values", "contrasts_markdown", "family_table",
           "front_values", "level_sentences", "levels_markdown", "main_model",
           "predictions_table", "prompts_markdown", "status_table", "determinism_table", "family_levels_table"]

#: The commit that holds pre-registration part 3, made before the second edition's first call.
PREREGISTRATION_COMMIT = "d072cd6"
#: How the page writes a planned model without a recording.
NOT_RECORDED = "not recorded yet"
#: Each primary contrast's question, in the page's words.
_CONTRASTS: dict[str, str] = {"labelled − transcript": "reading the states",
                              "told − labelled": "being told the rule",
                              "enforced − told": "being stopped by the gate"}


def main_model(study: StudyRuns, asked: str, planned: Sequence[str] = PLANNED_MODELS) -> str:
    """The model the page names first: the one asked for, else the last planned model recorded (the largest).

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.
    asked : str
        The page's ``main_model`` parameter (empty: choose).
    planned : sequence of str
        The planned models, smallest first.

    Returns
    -------
    str
    """
    if asked:
        return asked
    recorded = [m for m in planned if m in study.models] or list(study.models)
    return recorded[-1] if recorded else (planned[-1] if planned else "")


def family_table(study: StudyRuns, confidence: float = 0.95) -> Any:
    """The six primary contrasts on each family group (section 7: "every contrast also per family").

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.
    confidence : float
        The intervals' level.

    Returns
    -------
    cvlib.presentation.tables.Table
        One row per model, family, metric and contrast; folded on the page when long.
    """
    import pandas as pd

    from cvlib.presentation._study_models import model_table
    from cvlib.presentation.agent_study_2_tables import METRICS
    from cvlib.presentation.formatting import interval_text

    parts = []
    for group in ("first", "floorless", "hidden", "false_alarm", "noisy", "control"):
        rows = contrast_rows(study, group, confidence)
        parts.append(rows.assign(family=GROUPS[group]))
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    frame = frame.assign(metric=[METRICS[m] for m in frame["metric"]],
                         effect=[interval_text(r["mean"], r["low"], r["high"]) for r in frame.to_dict("records")])
    level = round(100 * confidence)
    return model_table(frame, {"model": "Model", "family": "Tasks", "metric": "Metric", "contrast": "Contrast",
                               "tasks": "n", "effect": f"Mean paired difference ({level} % interval)",
                               "reading": "Reading"})


def status_table(study: StudyRuns, planned: Sequence[str] = PLANNED_MODELS) -> Any:
    """What is recorded of the plan, per model: cells, and tasks in all three orders by kind.

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.
    planned : sequence of str
        The planned models (a model the folder adds is shown after them).

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    from cvlib.presentation._study_models import model_table

    frame = recording_status(study, planned)
    frame = frame.assign(cells=[f"{fmt(c)} of {fmt(p)}" for c, p in zip(frame["cells"], frame["planned_cells"])],
                         state=["complete" if done else ("in progress" if c else NOT_RECORDED)
                                for done, c in zip(frame["complete"], frame["tasks_all_orders"])])
    return model_table(frame, {"model": "Model", "cells": "Cells (task × order) recorded",
                               "tasks_all_orders": "Tasks in all three orders", "stale": "of them stale-fact",
                               "floorless": "of those floorless", "control": "control", "state": "State"},
                       collapse_after=None)


def _level(levels: pd.DataFrame, model: str, arm: str, metric: str) -> float:
    hit = levels[(levels["model"] == model) & (levels["arm"] == arm) & (levels["metric"] == metric)]
    return float(hit["mean"].iloc[0]) if len(hit) else math.nan


def _execute_shares(study: StudyRuns, model: str, arm: str) -> tuple[float, float]:
    """The EXECUTE share at unblocked and at blocked steps over the runs that met both (stale-fact tasks).

    Per run, then averaged over a task's orders, then over tasks: the same
    runs and weights as discrimination, so the two shares differ by exactly
    the arm's mean discrimination.
    """
    runs = study.runs[(study.runs["model"] == model) & (study.runs["arm"] == arm) & study.runs["stale_fact"]]
    runs = runs[(runs["blocked"] > 0) & (runs["unblocked"] > 0)]
    unblocked = (runs["execute_unblocked"] / runs["unblocked"]).groupby(runs["task"]).mean()
    blocked = (runs["execute_blocked"] / runs["blocked"]).groupby(runs["task"]).mean()
    return float(unblocked.mean()), float(blocked.mean())


def _signed(value: float) -> str:
    return "–" if math.isnan(value) else (f"+{fmt(value, 'mean')}" if value > 0 else fmt(value, "mean"))


def level_sentences(study: StudyRuns, model: str, confidence: float = 0.95) -> str:
    """Four plain sentences of one model's levels on the stale-fact tasks, before any contrast.

    Its EXECUTE shares at the two kinds of step in the transcript arm, its
    discrimination and cost per arm beside the references, and the probe with
    the pre-registration's competence gate. Pre-failure work, secondary in the
    second edition, is left to the table.

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.
    model : str
        The model.
    confidence : float
        The level of the intervals the probe's reading rests on.

    Returns
    -------
    str
        Markdown; "not recorded yet" for a model without a recording.
    """
    label = model_label(model)
    if model not in study.models:
        return f"**{label}**: {NOT_RECORDED}."
    levels = level_rows(study, "stale", confidence)
    tasks = int(study.runs[(study.runs["model"] == model) & study.runs["stale_fact"]]["task"].nunique())
    unblocked, blocked = _execute_shares(study, model, "transcript")
    complete = bool(recording_status(study, [model]).set_index("model").loc[model, "complete"])
    discrimination = ", ".join(f"{arm} {fmt(_level(levels, model, arm, 'discrimination'), 'mean')}" for arm in EVIDENCE_ARMS)
    cost = ", ".join(f"{arm} {_signed(_level(levels, model, arm, 'cost_over_aware'))}" for arm in EVIDENCE_ARMS)
    always = _signed(_level(levels, model, "always execute", "cost_over_aware"))
    chance = _signed(_level(levels, model, random_label("transcript"), "cost_over_aware"))
    probes = probe_rows(study, confidence)
    exact = probes[(probes["model"] == model) & (probes["score"] == "exact")]
    named = ", ".join(f"{r['arm']} {fmt(r['mean'], 'percent_of')}" for r in exact.to_dict("records"))
    reads = bool(len(exact)) and bool((exact["mean"] >= 0.5).any())
    gate = ("half or more in some arm, so its arm differences may be read as reading the states" if reads else
            "under half in every arm, so its arm differences show what the words do, not that it read the states")
    sentences = [
        f"**{label}**, {plural(tasks, 'stale-fact task')}{'' if complete else ' so far'}: in the transcript arm, on "
        f"the average task, it answered `EXECUTE` at {fmt(unblocked, 'percent_of')} of unblocked steps and "
        f"{fmt(blocked, 'percent_of')} of blocked ones.",
        f"Discrimination by arm: {discrimination}.",
        f"Cost over the validity-aware executor, in steps per task: {cost}; always executing {always}, random "
        f"answers at the transcript arm's rates {chance}.",
        f"It named exactly the facts not to rely on in {named} of tasks: {gate}." if named else
        "It has no probe answers.",
    ]
    return " ".join(sentences)


def levels_markdown(study: StudyRuns, main: str, planned: Sequence[str] = PLANNED_MODELS, confidence: float = 0.95) -> str:
    """:func:`level_sentences` for each model, one bullet each, the page's main model first (a Markdown output).

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.
    main : str
        The model named first.
    planned : sequence of str
        The planned models (each gets a bullet, "not recorded yet" if need be), then any other recorded.
    confidence : float
        The intervals' level.

    Returns
    -------
    str
    """
    models = dict.fromkeys([main, *planned, *study.models])
    return "\n".join(f"- {level_sentences(study, m, confidence)}" for m in models)


def contrasts_markdown(study: StudyRuns, confidence: float = 0.95) -> str:
    """Each primary contrast in one bullet, said as what it did to each model; the table after it holds the intervals.

    The prose names a direction and a size only where the interval excludes zero, and a bound only where the
    pre-registration's equivalence test gives one, so the words never claim more than the table's interval; the
    numbers in brackets are left to the table, so each finding is said once.

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.
    confidence : float
        The intervals' level.

    Returns
    -------
    str
        Markdown; a sentence when nothing is recorded.
    """
    rows = contrast_rows(study, "stale", confidence)
    if rows.empty:
        return f"Every model is {NOT_RECORDED}."
    bullets = []
    for contrast, words in _CONTRASTS.items():
        said = []
        for model in study.models:
            parts = []
            for metric, noun, unit in (("discrimination", "discrimination", ""), ("cost_over_aware", "cost", "step")):
                hit = rows[(rows["model"] == model) & (rows["contrast"] == contrast) & (rows["metric"] == metric)]
                if not hit.empty:
                    r = hit.iloc[0]
                    parts.append(_reading_phrase(noun, r["mean"], r["reading"], int(r["tasks"]), unit))
            if parts:
                said.append(f"{model_label(model)}: {listing(parts, last=' and ')}")
        first, second = contrast.split(" − ")
        bullets.append(f"- **{words.capitalize()}** (`{first}` − `{second}`). {'. '.join(said)}.")
    return "\n".join(bullets)


def _reading_phrase(noun: str, mean: float, reading: str, tasks: int, unit: str) -> str:
    """One metric's change in words: its direction and size where the interval excludes zero, else what bounds it."""
    size = plural(abs(mean), unit, kind="mean") if unit else fmt(abs(mean), "mean")
    if reading in ("higher", "lower"):
        return f"{noun} {'rose' if reading == 'higher' else 'fell'} by {size}"
    if reading.startswith("identical"):
        return f"{noun} {reading}"
    if reading.startswith("no change larger than"):
        return f"{noun} changed by no more than {reading.rsplit(' ', 1)[1]}{' ' + unit + 's' if unit else ''}"
    if reading.startswith("too few tasks ("):
        amount = plural(mean, unit, kind="mean") if unit else fmt(mean, "mean")
        return f"{noun} {amount} (only {plural(tasks, 'task')}, too few to read)"
    return f"{noun} no clear change ({reading})"


def front_values(study: StudyRuns, main: str, confidence: float = 0.95) -> dict[str, tuple[Any, str]]:
    """What the front page quotes from this study: the main model's discrimination in the first three arms.

    Levels, not contrasts: the front page says what the model did, and the
    chapter what each difference between arms is worth.

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.
    main : str
        The model the front page names.
    confidence : float
        The intervals' level (the levels do not depend on it).

    Returns
    -------
    dict of str to tuple
        ``A2_front_transcript``, ``A2_front_labelled``, ``A2_front_told``: "not recorded yet" for a model without
        a recording.
    """
    levels = level_rows(study, "stale", confidence) if main in study.models else None
    return {f"A2_front_{arm}": (fmt(_level(levels, main, arm, "discrimination"), "mean") if levels is not None
                                else NOT_RECORDED, "count") for arm in ("transcript", "labelled", "told")}


def chapter_values(study: StudyRuns, main: str, planned: Sequence[str] = PLANNED_MODELS,
                   confidence: float = 0.95) -> dict[str, tuple[Any, str]]:
    """Every value the page's prose quotes, by glue key (``A2_…``).

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.
    main : str
        The model the page names first.
    planned : sequence of str
        The planned models.
    confidence : float
        The intervals' level.

    Returns
    -------
    dict of str to tuple
        For :func:`cvlib.presentation.formatting.glue_all`.
    """
    from cvlib.experiments.agent_study.edition2_analysis import MARGINS

    status = recording_status(study, planned)
    out: dict[str, tuple[Any, str]] = {
        "A2_preregistration": (PREREGISTRATION_COMMIT, "count"),
        "A2_models_read": (len(study.models), "count"),
        "A2_models_planned": (len(planned), "count"),
        "A2_main_label": (model_label(main), "count"),
        "A2_margin_discrimination": (MARGINS["discrimination"], "tenths"),
        "A2_margin_cost": (MARGINS["cost_over_aware"], "tenths"),
    }
    recorded = [f"{model_label(r['model'])} {fmt(r['cells'])} of {fmt(r['planned_cells'])} cells"
                for r in status.to_dict("records") if r["cells"]]
    missing = [model_label(r["model"]) for r in status.to_dict("records") if not r["cells"]]
    whole = bool(status["complete"].all()) and not missing
    state = f"Recorded {'whole' if whole else 'so far'}: {listing(recorded, last=' and ', empty='nothing')}."
    if missing:
        state += f" {listing(missing, last=' and ')} {'is' if len(missing) == 1 else 'are'} {NOT_RECORDED}."
    out["A2_recording_state"] = (state, "count")
    levels = level_rows(study, "stale", confidence)
    out["A2_replan_cost"] = (_signed(_level(levels, main, "always replan", "cost_over_aware")), "count")
    out["A2_replan_model"] = (model_label(main), "count")
    out.update(front_values(study, main, confidence))
    agreement = first_answer_agreement(study)
    out["A2_first_answers"] = ("; ".join(f"{model_label(r['model'])} {fmt(r['identical'])} of {fmt(r['cells'])} cells"
                                         for r in agreement.to_dict("records")) or NOT_RECORDED, "count")
    return out


def _example_cell(sources: Mapping[str, Sequence[Path]], model: str) -> dict[str, CallRecord]:
    """Each arm's last decision in the first stale-fact cell of order 0 that the recording holds whole."""
    cells: dict[str, dict[str, CallRecord]] = {}
    for path in sources.get(model, ()):
        for r in read_recording(path, allow_cut_tail=True):
            if r.decision.get("probe") or not r.task.get("stale_fact") or int(r.task.get("order", -1)) != 0:
                continue
            cells.setdefault(str(r.run), {})[str(r.arm)] = r
    for arms in cells.values():
        if all(arm in arms for arm in EVIDENCE_ARMS):
            return arms
    return {}


def prompts_markdown(sources: Mapping[str, Sequence[Path]], model: str, width: int = PROMPT_WIDTH) -> str:
    """One cell's prompts as the page shows them: the system turn once, each arm's change as a diff, all folded.

    Parameters
    ----------
    sources : mapping of str to sequence of Path
        :func:`cvlib.presentation.agent_study_2_tables.sources_in`.
    model : str
        The model whose recording is shown.
    width : int
        The longest displayed line.

    Returns
    -------
    str
        CommonMark; a sentence when no stale-fact cell of order 0 is whole yet.
    """
    records = _example_cell(sources, model)
    if not records:
        return f"No stale-fact cell of {model_label(model)} in order 0 is recorded whole yet."
    first = {arm: first_turn(records[arm]) for arm in EVIDENCE_ARMS}
    system = dict(records[EVIDENCE_ARMS[0]].prompt).get("system", "")
    parts = [f"The system turn, the same in every arm:\n\n{prompt_block(system, width)}"]
    for before, arm in zip((None, *EVIDENCE_ARMS), EVIDENCE_ARMS):
        answers = answers_summary(records[arm])
        if before is None:
            parts.append(f"**`{arm}`**: the first turn (the plan, the evidence, the first question); answers {answers}."
                         f"\n\n{prompt_block(chr(10).join(first[arm]), width)}")
        elif first[arm] == first[before]:
            parts.append(f"**`{arm}`**: the same first turn as `{before}`, byte for byte; answers {answers}.")
        else:
            parts.append(f"**`{arm}`**: its first turn against `{before}`'s (`-` removed, `+` added); answers "
                         f"{answers}.\n\n{prompt_block(chr(10).join(changed_lines(first[before], first[arm])), width)}")
    for arm in EVIDENCE_ARMS:
        turns = len(records[arm].prompt) + 1
        parts.append(f'<details class="cvtable-fold"><summary><span class="cvtable-summary">The whole <code>{arm}</code> '
                     f'conversation ({plural(turns, "turn")})</span><span class="cvtable-show">show it</span></summary>\n\n'
                     f"{prompt_block(conversation_text(records[arm]), width)}\n\n</details>")
    return "\n\n".join(parts)


def predictions_table(study: StudyRuns) -> Any:
    """Every prediction of section 9 graded by its rule (:mod:`cvlib.experiments.agent_study.edition2_predictions`).

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.

    Returns
    -------
    cvlib.presentation.tables.Table
        One row per prediction and model it names; a model without a recording is left out.
    """
    import pandas as pd

    from cvlib.experiments.agent_study.edition2_predictions import grade_predictions
    from cvlib.presentation.tables import table

    if study.runs.empty:
        return table(pd.DataFrame(columns=["prediction", "model", "verdict", "reason"]),
                     {"prediction": "Prediction", "model": "Model", "verdict": "Verdict", "reason": "What it rests on"})

    def as_recorded(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.assign(model=frame["recorded"])

    names = dict(zip(study.runs["recorded"], study.runs["model"]))
    graded = grade_predictions(as_recorded(study.runs), as_recorded(study.probes), as_recorded(study.firsts))

    def labelled(text: str) -> str:
        for recorded, stem in names.items():
            text = text.replace(recorded, model_label(stem))
        return re.sub(r"(?<!\w)-(?=\d)", "−", text)  # the page's minus sign, as in every other table

    frame = pd.DataFrame([{"prediction": v.prediction, "model": model_label(names.get(v.model, v.model)) if v.model else "all",
                           "verdict": v.verdict, "reason": labelled(v.reason)} for v in graded])
    return table(frame, {"prediction": "Prediction", "model": "Model", "verdict": "Verdict", "reason": "What it rests on"},
                 **fold_long("Every prediction with its grade", len(frame)))


def family_levels_table(study: StudyRuns, confidence: float = 0.95) -> Any:
    """Discrimination and cost per arm and reference on each family group, one table.

    Parameters
    ----------
    study : StudyRuns
        :func:`cvlib.presentation.agent_study_2_tables.read_runs`.
    confidence : float
        The intervals' level.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    from cvlib.presentation._study_models import model_table
    from cvlib.presentation.formatting import interval_text

    parts = []
    for group in ("first", "floorless", "hidden", "false_alarm", "noisy", "control"):
        rows = level_rows(study, group, confidence)
        parts.append(rows[rows["metric"].isin(["discrimination", "cost_over_aware"])].assign(family=GROUPS[group]))
    long = pd.concat(parts, ignore_index=True)
    long = long.assign(text=[interval_text(r["mean"], r["low"], r["high"]) for r in long.to_dict("records")])
    wide = long.pivot_table(index=["model", "family", "arm"], columns="metric", values="text", aggfunc="first",
                            sort=False).reset_index()
    tasks = long.groupby(["model", "family", "arm"], sort=False)["tasks"].max().reset_index()
    wide = wide.merge(tasks, on=["model", "family", "arm"]).fillna("–")
    level = round(100 * confidence)
    return model_table(wide, {"model": "Model", "family": "Tasks", "arm": "Arm or reference", "tasks": "n",
                              "discrimination": f"Discrimination ({level} % interval)",
                              "cost_over_aware": f"Cost over the validity-aware executor ({level} % interval)"})


def determinism_table() -> Any:
    """Per second-edition recording, its sampled calls re-generated alone in a fresh process and found identical.

    Returns
    -------
    cvlib.presentation.tables.Table or str
        Read from ``data/model_trials/determinism.csv``; a sentence while no second-edition file has been sampled.
    """
    from cvlib.models.determinism import load_determinism
    from cvlib.presentation import _study_models
    from cvlib.repository import project_root

    rows = load_determinism(project_root() / "data" / "model_trials" / "determinism.csv")
    if not any(r.recording.startswith("agent_study_2.") for r in rows):
        return "No recording of the second edition has been sampled yet (`data/model_trials/measure_determinism.py`)."
    return _study_models.determinism_table(rows, "agent_study_2.")
