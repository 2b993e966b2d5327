"""The second edition's predictions (pre-registration part 3, section 9) graded by code.

Each prediction is a rule over the recorded runs and probes; its verdict is
one of ``held``, ``did not hold``, ``untestable`` (with the reason: no
recording of the model, too few tasks to bound a null, a condition that never
arises) or ``does not apply``. The rules were written before any recording was
read, so a verdict cannot be chosen after seeing the numbers, and each rule has
its own test.

An interval is the paired bootstrap over tasks of :mod:`cvlib.experiments.paired`;
a band (a null) is judged by two one-sided tests
(:func:`cvlib.experiments.agent_study.edition2_analysis.bounded`): held when the
90 % interval lies inside the margin, did not hold when the 95 % interval lies
wholly outside it, untestable otherwise.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cvlib.core.intervals import proportion_interval
from cvlib.experiments.agent_study.edition2 import EXPERIMENT
from cvlib.experiments.agent_study.edition2_analysis import MARGINS, bounded
from cvlib.experiments.paired import paired_effect
from cvlib.models.recording import CallRecord, read_recording

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FIRST_EDITION_GAP", "STILL_EXECUTES", "Verdict", "first_answers", "grade_predictions"]

HELD, NOT_HELD, UNTESTABLE, NOT_APPLICABLE = "held", "did not hold", "untestable", "does not apply"
#: The three models the predictions name, by their recorded file names.
SMALL, MIDDLE, LARGE = (
    "SmolLM2-135M-Instruct.Q4_1.gguf",
    "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
)
#: The first edition's transcript gap for Qwen2.5-Coder-1.5B, the ceiling E1 sets on the reading effect.
FIRST_EDITION_GAP = 0.40
#: A told arm that answers EXECUTE at this share of its blocked decisions or more still executes there (E3).
STILL_EXECUTES = 0.10


@dataclass(frozen=True, slots=True)
class Verdict:
    """One prediction's verdict for one model (or for all, ``model`` empty), with the number it rests on."""

    prediction: str
    model: str
    verdict: str
    reason: str


def _per_task(runs: pd.DataFrame, model: str, metric: str, group: str | None = "stale") -> pd.DataFrame:
    part = runs[runs["model"] == model]
    if group == "stale":
        part = part[part["stale_fact"]]
    elif group == "control":
        part = part[~part["stale_fact"]]
    elif group == "floorless":
        part = part[part["group"].isin(("hidden", "false_alarm", "noisy"))]
    return part.groupby(["task", "arm"])[metric].mean().astype(float).unstack("arm")


def _differences(runs: pd.DataFrame, model: str, first: str, second: str, metric: str, group: str = "stale") -> list[float]:
    wide = _per_task(runs, model, metric, group)
    if first not in wide or second not in wide:
        return []
    return [d for d in (wide[first] - wide[second]).tolist() if not math.isnan(d)]


def _band(differences: Sequence[float], margin: float) -> tuple[str, str]:
    """A null judged by two one-sided tests: held inside the margin, did not hold wholly outside it."""
    if len(differences) < 10:
        return UNTESTABLE, f"{len(differences)} tasks, too few to bound"
    tost = bounded(differences, margin)
    effect = paired_effect(differences)
    said = f"{effect.mean:+.2f} ({effect.low:+.2f} to {effect.high:+.2f}), 90 % {tost['low90']:+.2f} to {tost['high90']:+.2f}"
    if tost["within"]:
        return HELD, said
    if effect.low > margin or effect.high < -margin:
        return NOT_HELD, said
    return UNTESTABLE, said + f"; too few tasks to bound it within ±{margin}"


def _above(differences: Sequence[float], floor: float = 0.0) -> tuple[str, str]:
    """An effect predicted above ``floor``: held when the whole interval is above it, did not hold when not."""
    if len(differences) < 10:
        return UNTESTABLE, f"{len(differences)} tasks, too few for an interval"
    effect = paired_effect(differences)
    said = f"{effect.mean:+.2f} ({effect.low:+.2f} to {effect.high:+.2f}), {effect.tasks} tasks"
    return (HELD if effect.low > floor else NOT_HELD), said


def _e1(runs: pd.DataFrame, models: set[str]) -> list[Verdict]:
    out = []
    if LARGE in models:
        diff = _differences(runs, LARGE, "labelled", "transcript", "discrimination")
        verdict, said = _above(diff)
        if verdict == HELD and paired_effect(diff).mean >= FIRST_EDITION_GAP:
            verdict, said = NOT_HELD, said + f"; not smaller than the first edition's {FIRST_EDITION_GAP:+.2f}"
        out.append(Verdict("E1", LARGE, verdict, said))
    if SMALL in models:
        out.append(Verdict("E1", SMALL, *_band(_differences(runs, SMALL, "labelled", "transcript", "discrimination"),
                                               MARGINS["discrimination"])))
    return out


def _e2(runs: pd.DataFrame, models: set[str]) -> list[Verdict]:
    out = []
    if LARGE in models:
        out.append(Verdict("E2", LARGE, *_band(_differences(runs, LARGE, "told", "labelled", "discrimination"),
                                               MARGINS["discrimination"])))
    if MIDDLE in models:
        out.append(Verdict("E2", MIDDLE, *_above(_differences(runs, MIDDLE, "told", "labelled", "cost_over_aware",
                                                              group="control"))))
    return out


def _e3(runs: pd.DataFrame, models: set[str]) -> list[Verdict]:
    out = []
    for model in sorted(models):
        told = runs[(runs["model"] == model) & (runs["arm"] == "told") & runs["stale_fact"]]
        blocked = int(told["blocked"].sum())
        share = told["execute_blocked"].sum() / blocked if blocked else 0.0
        if share < STILL_EXECUTES:
            out.append(Verdict("E3", model, NOT_APPLICABLE, f"the told arm answered EXECUTE at {share:.0%} of blocked decisions"))
            continue
        diff = _differences(runs, model, "enforced", "told", "pre_failure_work")
        if len(diff) < 10:
            out.append(Verdict("E3", model, UNTESTABLE, f"{len(diff)} tasks, too few for an interval"))
            continue
        effect = paired_effect(diff)
        said = f"{effect.mean:+.2f} ({effect.low:+.2f} to {effect.high:+.2f}), {effect.tasks} tasks"
        out.append(Verdict("E3", model, HELD if effect.high < 0 else NOT_HELD, said))
    if LARGE in models:
        out.append(Verdict("E3 cost", LARGE, *_band(_differences(runs, LARGE, "enforced", "told", "cost_over_aware"),
                                                    MARGINS["cost_over_aware"])))
    return out


def _e4(probes: pd.DataFrame, models: set[str]) -> list[Verdict]:
    out = []
    if SMALL in models:
        mine = probes[(probes["model"] == SMALL) & probes["stale_fact"]]
        verdicts = []
        for arm, part in mine.groupby("arm", sort=True):
            per_task = part.groupby("task")["exact"].mean()
            right = int(round(float(per_task.sum())))
            low, high = proportion_interval(right, len(per_task))
            verdicts.append((arm, low, high))
        if not verdicts:
            out.append(Verdict("E4", SMALL, UNTESTABLE, "no probe recorded"))
        elif all(high < 0.5 for _, _, high in verdicts):
            out.append(Verdict("E4", SMALL, HELD, "every arm's interval below 50 %"))
        elif any(low >= 0.5 for _, low, _ in verdicts):
            out.append(Verdict("E4", SMALL, NOT_HELD, "an arm's interval at or above 50 %"))
        else:
            out.append(Verdict("E4", SMALL, UNTESTABLE, "an arm's interval straddles 50 %"))
    if LARGE in models:
        mine = probes[(probes["model"] == LARGE) & probes["stale_fact"]]
        wide = mine.groupby(["task", "arm"])["exact"].mean().astype(float).unstack("arm")
        diff = (wide["labelled"] - wide["transcript"]).dropna().tolist() if {"labelled", "transcript"} <= set(wide) else []
        out.append(Verdict("E4", LARGE, *_band(diff, 0.10)))
    return out


def _e5(runs: pd.DataFrame, models: set[str]) -> list[Verdict]:
    out = []
    stale = runs[runs["stale_fact"]]
    shares = stale.assign(share=stale["answered_execute"] / stale["decisions"])
    for model in sorted(models & {SMALL, MIDDLE, LARGE}):
        wide = shares[shares["model"] == model].pivot_table(index="task", columns="order", values="share")
        if wide.shape[1] < 3:
            out.append(Verdict("E5", model, UNTESTABLE, "not every option order recorded"))
            continue
        diff = (wide[0] - wide[[1, 2]].mean(axis=1)).dropna().tolist()
        if model == LARGE:
            out.append(Verdict("E5", model, *_band(diff, 0.10)))
        else:
            out.append(Verdict("E5", model, *_above(diff, 0.10)))
    return out


def _e6(runs: pd.DataFrame, models: set[str]) -> list[Verdict]:
    if LARGE not in models:
        return []
    wide = _per_task(runs, LARGE, "cost_over_aware", "control")
    margin = MARGINS["cost_over_aware"]
    verdicts = []
    for arm in wide.columns:
        values = wide[arm].dropna().tolist()
        if len(values) < 10:
            return [Verdict("E6", LARGE, UNTESTABLE, f"{len(values)} control tasks, too few for an interval")]
        verdicts.append((arm, paired_effect(values)))
    if all(e.high <= margin for _, e in verdicts):
        return [Verdict("E6", LARGE, HELD, f"every arm's interval at or below +{margin} steps")]
    if any(e.low > margin for _, e in verdicts):
        arms = ", ".join(a for a, e in verdicts if e.low > margin)
        return [Verdict("E6", LARGE, NOT_HELD, f"{arms} above +{margin} steps")]
    return [Verdict("E6", LARGE, UNTESTABLE, f"an arm's interval straddles +{margin} steps")]


def _e7(runs: pd.DataFrame, models: set[str]) -> list[Verdict]:
    beaten = []
    tested = False
    for model in sorted(models):
        wide = _per_task(runs, model, "cost_over_aware", "floorless")
        for arm in wide.columns:
            values = wide[arm].dropna().tolist()
            if len(values) < 10:
                continue
            tested = True
            effect = paired_effect(values)
            if effect.high < 0:
                beaten.append(f"{model} {arm} {effect.mean:+.2f}")
    if not tested:
        return [Verdict("E7", "", UNTESTABLE, "fewer than 10 floorless tasks recorded for every model")]
    return [Verdict("E7", "", NOT_HELD if beaten else HELD, "; ".join(beaten) or "no arm below the validity-aware executor")]


def _e8(first_answers: pd.DataFrame) -> list[Verdict]:
    out = []
    for model, part in first_answers.groupby("model", sort=True):
        same = int((part["told"] == part["enforced"]).sum())
        out.append(Verdict("E8", str(model), HELD if same == len(part) else NOT_HELD, f"{same} of {len(part)} cells"))
    return out


def first_answers(recording: str | os.PathLike[str] | Iterable[CallRecord]) -> pd.DataFrame:
    """Each cell's first answer in the ``told`` and ``enforced`` arms, whose first prompts are the same bytes (E8).

    Parameters
    ----------
    recording : str, os.PathLike or iterable of CallRecord
        A second-edition recording, or its records.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``cell``, ``told``, ``enforced``.
    """
    import pandas as pd

    records = read_recording(recording) if isinstance(recording, str | os.PathLike) else list(recording)
    firsts: dict[tuple[str, str], dict[str, str]] = {}
    for r in records:
        if r.experiment != EXPERIMENT or r.decision.get("probe") or r.arm not in ("told", "enforced"):
            continue
        firsts.setdefault((r.model, str(r.run)), {}).setdefault(str(r.arm), r.response)
    rows = [{"model": m, "cell": c, "told": a.get("told"), "enforced": a.get("enforced")}
            for (m, c), a in sorted(firsts.items())]
    return pd.DataFrame(rows, columns=["model", "cell", "told", "enforced"])


def grade_predictions(runs: pd.DataFrame, probes: pd.DataFrame, first_answers: pd.DataFrame) -> list[Verdict]:
    """Every prediction's verdict per model it names.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`~cvlib.experiments.agent_study.edition2_analysis.edition2_runs`.
    probes : pandas.DataFrame
        :func:`~cvlib.experiments.agent_study.edition2_analysis.probe_table`.
    first_answers : pandas.DataFrame
        One row per cell: ``model``, ``told`` and ``enforced`` (each arm's first answer).

    Returns
    -------
    list of Verdict
        A prediction about a model with no recording is left out; one about all models that cannot be judged
        is ``untestable`` with its reason.
    """
    models = set(runs["model"]) if not runs.empty else set()
    return [*_e1(runs, models), *_e2(runs, models), *_e3(runs, models), *_e4(probes, models), *_e5(runs, models),
            *_e6(runs, models), *_e7(runs, models), *_e8(first_answers)]
