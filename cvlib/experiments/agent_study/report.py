"""The whole pre-registered analysis of the agent-loop study in one call, and each prediction's verdict.

:func:`analyse` reads one recording per model and computes every metric that
``data/model_trials/preregistration.md`` (part 1, sections 6 and 7) names,
with :mod:`cvlib.experiments.agent_study.analysis`: the paired effects of the three primary contrasts on
every metric, each arm against the three references, the control tasks, the
completion tests, the shares of tasks, the probe and the option-order bias.
:func:`verdicts` then grades each prediction of section 9 against those
effects by rules fixed here, before anyone reads a table: an interval that
straddles the bound a prediction names leaves it *not decided at this n*,
never held; a model without a recording is *not recorded yet*.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cvlib.core.executors import BASELINE, VALIDITY_AWARE
from cvlib.experiments.agent_study import analysis
from cvlib.experiments.agent_study.study_prompts import STUDY_ARMS
from cvlib.models.recording import CallRecord, read_recording

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BAND",
    "CONTROL_METRICS",
    "HELD",
    "NOT_APPLICABLE",
    "NOT_DECIDED",
    "NOT_HELD",
    "NOT_RECORDED",
    "PREDICTIONS",
    "StudyAnalysis",
    "analyse",
    "verdicts",
]

#: The band of "no change" that P1 and P6 name (steps of pre-failure work, or steps used, per task).
BAND = 0.15
#: The metrics compared on the control tasks (needless verification and overhead).
CONTROL_METRICS: tuple[str, ...] = ("verifications", "steps_used")
#: The verdict of a prediction the interval bears out.
HELD = "held"
#: The verdict of a prediction the interval contradicts.
NOT_HELD = "did not hold"
#: The verdict when the interval straddles the bound a prediction names, or cannot be computed.
NOT_DECIDED = "not decided at this n"
#: The verdict for a model with no recording yet.
NOT_RECORDED = "not recorded yet"
#: The verdict of a conditional prediction whose condition is not met.
NOT_APPLICABLE = "does not apply"
#: What each prediction said, in the pre-registration's words (section 9), shortened.
PREDICTIONS: dict[str, str] = {
    "P1": "labelled − transcript pre-failure work within ±0.15",
    "P2": "told − labelled pre-failure work: below 0 for the 1.5B model, smaller or null for 0.5B, null for 135M",
    "P3a": "enforced has the validity-aware executor's pre-failure work on every stale-fact task",
    "P3b": "enforced − told below 0 for a model whose told arm still executes at blocked steps",
    "P4": "SmolLM2-135M's probe accuracy below 50 % in every arm; the Qwen models' higher with labels than in the transcript",
    "P5": "SmolLM2-135M chooses an option more often when it is listed first",
    "P6a": "no arm changes steps used on the control tasks by more than 0.15 per task (against the baseline)",
    "P6b": "the labelled arms verify needlessly no more than the transcript arm (control tasks)",
}
_SMALL, _LARGE = "smollm2-135m", "qwen2.5-coder-1.5b"


@dataclass(frozen=True)
class StudyAnalysis:
    """Every table of the pre-registered analysis, each model named by its recording's stem.

    ``runs`` holds the model's whole groups with the references beside them;
    ``effects`` every paired effect (``kind`` says which family: ``primary``,
    ``reference``, ``control`` or ``probe``); the rest are as their functions
    in :mod:`cvlib.experiments.agent_study.analysis` return them.
    """

    models: tuple[str, ...]
    runs: pd.DataFrame
    effects: pd.DataFrame
    mcnemar: pd.DataFrame
    shares: pd.DataFrame
    probes: pd.DataFrame
    bias: pd.DataFrame
    confidence: float


def _records(source: str | os.PathLike[str] | Iterable[CallRecord]) -> list[CallRecord]:
    if isinstance(source, str | os.PathLike):
        return read_recording(source, allow_cut_tail=True)  # a recording being appended to may end in a cut line
    return list(source)


def _relabel(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    out = frame.copy()
    out["model"] = model
    return out


def _effects(runs: pd.DataFrame, probes: pd.DataFrame, confidence: float, resamples: int) -> pd.DataFrame:
    """Every paired effect of the plan: the families of contrasts by metric and kind of task."""
    import pandas as pd

    plan: list[tuple[str, pd.DataFrame, Sequence[tuple[str, str]], str, bool | None]] = []
    plan += [("primary", runs, analysis.CONTRASTS, m, True) for m in analysis.METRICS]
    plan += [("reference", runs, analysis.reference_contrasts(), m, True) for m in ("pre_failure_work", "completed")]
    against_transcript = tuple((arm, "transcript") for arm in STUDY_ARMS[1:])
    plan += [("control", runs, analysis.CONTRASTS, m, False) for m in CONTROL_METRICS]
    plan += [("control", runs, tuple(c for c in against_transcript if c not in analysis.CONTRASTS), "verifications", False)]
    plan += [("control", runs, tuple((arm, BASELINE) for arm in STUDY_ARMS), "steps_used", False)]
    plan += [("probe", probes, against_transcript, "correct", None)]
    parts = []
    for kind, frame, contrasts, metric, stale in plan:
        if frame.empty:
            continue
        found = analysis.paired_effects(frame, contrasts, metric, stale_fact=stale, confidence=confidence,
                                        resamples=resamples)
        found.insert(0, "kind", kind)
        found["tasks_kind"] = {True: "stale", False: "control", None: "probed"}[stale]
        parts.append(found)
    columns = ["kind", "model", "contrast", "metric", "tasks", "mean", "low", "high", "tasks_kind"]
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


def analyse(sources: Mapping[str, str | os.PathLike[str] | Iterable[CallRecord]], confidence: float = 0.95,
            resamples: int = 10_000) -> StudyAnalysis:
    """The pre-registered analysis of the study's recordings, one per model (whole groups only).

    Parameters
    ----------
    sources : Mapping
        A model's name (its recording's stem) -> its recording, or its records.
    confidence : float
        Every interval's level.
    resamples : int
        Bootstrap resamples (seed 0).

    Returns
    -------
    StudyAnalysis
    """
    import pandas as pd

    runs, probes, bias = [], [], []
    for model, source in sources.items():
        records = _records(source)
        mine = analysis.whole_groups(analysis.study_runs(records))
        if mine.empty:
            continue
        runs.append(_relabel(mine, model))
        probes.append(_relabel(analysis.probe_runs(records), model))
        bias.append(_relabel(analysis.position_bias(records), model))
    models = tuple(model for model in sources if any(model in set(r["model"]) for r in runs))
    if not runs:
        empty = pd.DataFrame()
        return StudyAnalysis(models, empty, empty, empty, empty, empty, empty, confidence)
    model_runs = pd.concat(runs, ignore_index=True)
    references = analysis.reference_runs(model_runs["task"].unique(), analysis.answer_rates(model_runs))
    all_runs = analysis.with_references(model_runs, references)
    probe_frame = pd.concat(probes, ignore_index=True)
    tests = [analysis.completion_mcnemar(model_runs, a, b).assign(contrast=f"{a} − {b}") for a, b in analysis.CONTRASTS]
    probe_table = _probe_accuracy(probe_frame, confidence)
    return StudyAnalysis(models, all_runs, _effects(all_runs, probe_frame, confidence, resamples),
                         pd.concat(tests, ignore_index=True), analysis.task_shares(model_runs, confidence),
                         probe_table, pd.concat(bias, ignore_index=True), confidence)


def _probe_accuracy(probes: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """:func:`cvlib.experiments.agent_study.analysis.probe_accuracy` over the relabelled probe rows (one per task and arm)."""
    import pandas as pd

    from cvlib.core.intervals import proportion_interval

    rows = []
    for (model, arm), part in probes.groupby(["model", "arm"], sort=False):
        right, total = int(part["correct"].sum()), len(part)
        low, high = proportion_interval(right, total, confidence)
        rows.append({"model": model, "arm": arm, "tasks": total, "correct": right, "share": right / total,
                     "low": low, "high": high})
    out = pd.DataFrame(rows, columns=["model", "arm", "tasks", "correct", "share", "low", "high"])
    order = {arm: i for i, arm in enumerate(STUDY_ARMS)}
    return out.sort_values(["model", "arm"], key=lambda c: c.map(order) if c.name == "arm" else c,
                           kind="stable").reset_index(drop=True)


# --- verdicts ---------------------------------------------------------------------------------------------------


def _effect(study: StudyAnalysis, model: str, kind: str, contrast: str, metric: str) -> dict[str, Any] | None:
    e = study.effects
    if e.empty:
        return None
    hit = e[(e["kind"] == kind) & (e["model"] == model) & (e["contrast"] == contrast) & (e["metric"] == metric)]
    return None if hit.empty else hit.iloc[0].to_dict()


def _within(effect: dict[str, Any], band: float) -> str:
    low, high = effect["low"], effect["high"]
    if math.isnan(low) or math.isnan(high):
        return NOT_DECIDED
    if -band <= low and high <= band:
        return HELD
    return NOT_HELD if high < -band or low > band else NOT_DECIDED


def _below_zero(effect: dict[str, Any]) -> str:
    if math.isnan(effect["high"]):
        return NOT_DECIDED
    return HELD if effect["high"] < 0 else NOT_HELD


def _includes_zero(effect: dict[str, Any]) -> bool:
    return not math.isnan(effect["low"]) and effect["low"] <= 0 <= effect["high"]


def _row(prediction: str, model: str, verdict: str, effect: dict[str, Any] | None = None, what: str = "",
         note: str = "") -> dict[str, Any]:
    effect = effect or {}
    return {"prediction": prediction, "model": model, "measured": what or effect.get("contrast", ""),
            "tasks": effect.get("tasks", math.nan), "mean": effect.get("mean", math.nan),
            "low": effect.get("low", math.nan), "high": effect.get("high", math.nan), "verdict": verdict, "note": note}


def _p1_p2(study: StudyAnalysis, model: str) -> list[dict[str, Any]]:
    rows = []
    read = _effect(study, model, "primary", "labelled − transcript", "pre_failure_work")
    if read:
        rows.append(_row("P1", model, _within(read, BAND), read))
    told = _effect(study, model, "primary", "told − labelled", "pre_failure_work")
    if told is None:
        return rows
    if model == _LARGE:
        rows.append(_row("P2", model, _below_zero(told), told))
    elif model == _SMALL:
        verdict = NOT_DECIDED if math.isnan(told["low"]) else HELD if _includes_zero(told) else NOT_HELD
        rows.append(_row("P2", model, verdict, told, note="predicted null"))
    else:
        large = _effect(study, _LARGE, "primary", "told − labelled", "pre_failure_work")
        if large is None:
            verdict, note = NOT_DECIDED, "predicted smaller than the 1.5B model's, which is not recorded yet"
        else:
            smaller = _includes_zero(told) or abs(told["mean"]) < abs(large["mean"])
            verdict, note = (HELD if smaller else NOT_HELD), "predicted smaller than the 1.5B model's, or null"
        rows.append(_row("P2", model, verdict, told, note=note))
    return rows


def _p3(study: StudyAnalysis, model: str) -> list[dict[str, Any]]:
    runs = study.runs[(study.runs["model"] == model) & study.runs["stale_fact"]]
    if runs.empty:
        return [_row("P3a", model, NOT_DECIDED, what="tasks with the same pre-failure work", note="no stale-fact task recorded")]
    pfw = runs.groupby(["task", "arm"])["pre_failure_work"].mean().unstack("arm")
    same = int((pfw["enforced"] == pfw[VALIDITY_AWARE]).sum())
    rows = [_row("P3a", model, HELD if same == len(pfw) else NOT_HELD, what="tasks with the same pre-failure work",
                 note=f"{same} of {len(pfw)} tasks", effect={"tasks": len(pfw)})]
    gate = _effect(study, model, "primary", "enforced − told", "pre_failure_work")
    shares = study.shares
    told = shares[(shares["model"] == model) & (shares["arm"] == "told") & (shares["share"] == "execute_blocked")]
    executes = bool(len(told)) and int(told.iloc[0]["count"]) > 0
    if gate is not None:
        if executes:
            rows.append(_row("P3b", model, _below_zero(gate), gate))
        else:
            rows.append(_row("P3b", model, NOT_APPLICABLE, gate, note="its told arm never answered EXECUTE at a blocked step"))
    return rows


def _p4(study: StudyAnalysis, model: str) -> list[dict[str, Any]]:
    probes = study.probes[study.probes["model"] == model] if not study.probes.empty else study.probes
    if probes.empty:
        return [_row("P4", model, NOT_RECORDED, what="probe accuracy")]
    if model == _SMALL:
        highs, lows = probes["high"], probes["low"]
        verdict = HELD if (highs < 0.5).all() else NOT_HELD if (lows >= 0.5).any() else NOT_DECIDED
        best = probes.loc[probes["share"].idxmax()]
        return [_row("P4", model, verdict, what=f"highest probe accuracy ({best['arm']})",
                     effect={"tasks": best["tasks"], "mean": best["share"], "low": best["low"], "high": best["high"]})]
    rows = []
    for arm in STUDY_ARMS[1:]:
        effect = _effect(study, model, "probe", f"{arm} − transcript", "correct")
        if effect is None:
            continue
        verdict = NOT_DECIDED if math.isnan(effect["low"]) else HELD if effect["low"] > 0 else (
            NOT_HELD if effect["mean"] <= 0 or effect["high"] < 0 else NOT_DECIDED)
        rows.append(_row("P4", model, verdict, effect, what=f"probe accuracy, {arm} − transcript"))
    return rows


def _p5(study: StudyAnalysis) -> list[dict[str, Any]]:
    bias = study.bias[study.bias["model"] == _SMALL] if not study.bias.empty else study.bias
    if bias.empty or _SMALL not in study.models:
        return [_row("P5", _SMALL, NOT_RECORDED, what="first-listed against later-listed (sampled repeats)")]
    shown = bias[(bias["first_shown"] > 0) & (bias["later_shown"] > 0)]
    more = int((shown["first_share"] > shown["later_share"]).sum())
    verdict = NOT_DECIDED if shown.empty else HELD if more == len(shown) else NOT_HELD
    return [_row("P5", _SMALL, verdict, what="answers chosen more often when listed first",
                 note=f"{more} of {len(shown)} answers (decisions pooled, descriptive)")]


def _p6(study: StudyAnalysis, model: str) -> list[dict[str, Any]]:
    rows = []
    for arm in STUDY_ARMS:
        effect = _effect(study, model, "control", f"{arm} − {BASELINE}", "steps_used")
        if effect is not None:
            rows.append(_row("P6a", model, _within(effect, BAND), effect))
    for arm in STUDY_ARMS[1:]:
        effect = _effect(study, model, "control", f"{arm} − transcript", "verifications")
        if effect is not None:
            verdict = NOT_DECIDED if math.isnan(effect["low"]) else NOT_HELD if effect["low"] > 0 else HELD
            rows.append(_row("P6b", model, verdict, effect, what=f"{effect['contrast']}, verifications"))
    return rows


def verdicts(study: StudyAnalysis, planned: Sequence[str]) -> pd.DataFrame:
    """Each pre-registered prediction, per model, with the effect that decides it and its verdict.

    Parameters
    ----------
    study : StudyAnalysis
        :func:`analyse`.
    planned : sequence of str
        Every model the study plans (a model without a recording gets *not recorded yet*).

    Returns
    -------
    pandas.DataFrame
        ``prediction``, ``model``, ``measured``, ``tasks``, ``mean``, ``low``, ``high``, ``verdict``, ``note``.
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for model in planned:
        if model not in study.models:
            rows.append(_row("P1–P6", model, NOT_RECORDED, what="every prediction"))
            continue
        rows += _p1_p2(study, model) + _p3(study, model) + _p4(study, model) + _p6(study, model)
    if _SMALL in planned and _SMALL in study.models:
        rows += _p5(study)
    order = {p: i for i, p in enumerate(["P1", "P2", "P3a", "P3b", "P4", "P5", "P6a", "P6b", "P1–P6"])}
    frame = pd.DataFrame(rows, columns=list(_row("", "", "")))
    return frame.sort_values("prediction", key=lambda c: c.map(order), kind="stable").reset_index(drop=True)
