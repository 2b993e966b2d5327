"""The notes study's second-edition predictions (pre-registration part 4, section 4.10) graded by code.

The predictions were written before any call; these rules turn each into a
verdict over the readings, so a verdict is not chosen after the numbers are
seen. A verdict is ``held``, ``did not hold``, ``untestable`` (with the
reason: the model is not recorded yet, too few tasks, a model that did not
take the test) or ``does not apply``. Where section 4.10 leaves a detail open,
the rule fixes it here, and the chapter's appendix states it:

* the stale arm of NP2 and NP3 is ``dependency_changed`` (section 4.8 makes N1
  in that arm primary);
* an effect predicted "at most −0.10 with its interval below 0" holds when the
  mean is at most −0.10 and the interval's high end is below 0;
* a band (NP3 within ±0.15; NP4's 0.5B "no reduction larger than 0.10") is
  judged by two one-sided tests (:func:`~cvlib.experiments.notes_study.equivalence.equivalence`):
  held when the 90 % interval lies inside, did not hold when the 95 %
  interval lies wholly outside, untestable otherwise;
* a variant contrast (NP2, NP3) of a model that did not take the test is
  untestable, since section 4.7 says it is not read;
* counts of tasks (NP5, NP7) are greedy answers in the ``unrefutable``
  variant, over the tasks both sides hold; NP6 holds for a model when every
  variant's ``control`` and ``withheld`` arms have stale edits in at most 5 %
  of tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cvlib.experiments.notes_study.equivalence import MIN_TASKS, equivalence
from cvlib.experiments.notes_study.manipulation import ECHO_LIMIT, manipulation_check
from cvlib.experiments.paired import paired_effect

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HELD", "NOT_APPLICABLE", "NOT_HELD", "PREDICTIONS", "UNTESTABLE", "Verdict", "grade_predictions"]

#: The verdict of a prediction the data bear out.
HELD = "held"
#: The verdict of a prediction the data go against.
NOT_HELD = "did not hold"
#: The verdict when the data cannot decide (the reason says why).
UNTESTABLE = "untestable"
#: The verdict of a prediction whose condition never arises.
NOT_APPLICABLE = "does not apply"
#: The three models the predictions name, by recording stem.
SMALL, MIDDLE, LARGE = "smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"
#: The predictions, in the pre-registration's order, each in one line.
PREDICTIONS: dict[str, str] = {
    "NP1": "the Qwen coders take the test (echo at most 5 %); SmolLM2-135M does not",
    "NP2": "refutable − placebo (shown as fresh): at most −0.10 below zero for the 1.5B model, a smaller drop for the 0.5B, "
           "none told from zero for SmolLM2-135M",
    "NP3": "placebo − unrefutable (shown as fresh) within ±0.15 for both Qwen coders",
    "NP4": "stale_verify − dependency_changed (unrefutable): at most −0.10 below zero for the 1.5B model, no reduction "
           "larger than 0.10 for the 0.5B",
    "NP5": "the 1.5B model declines in more tasks with the verify rule than with the true note",
    "NP6": "control and withheld: stale edits in at most 5 % of tasks for each model",
    "NP7": "the 1.5B model makes the true edit exactly in more tasks than the 0.5B",
}
#: The drop NP2 and NP4 predict for the 1.5B model, and the band NP4 gives the 0.5B.
DROP = 0.10
#: NP3's band.
BAND = 0.15
#: NP6's ceiling on stale edits without the note.
CONTROL_CEILING = 0.05


@dataclass(frozen=True, slots=True)
class Verdict:
    """One prediction's verdict for one model (or a pair, ``a − b``), with what it rests on."""

    prediction: str
    model: str
    verdict: str
    reason: str


def _wide(outcomes: pd.DataFrame, model: str, column: str = "stale") -> pd.DataFrame:
    part = outcomes[outcomes["model"] == model]
    return part.assign(hit=part[column].astype(float)).groupby(["task", "variant", "arm"])["hit"].mean().unstack(["variant", "arm"])


def _differences(outcomes: pd.DataFrame, model: str, first: tuple[str, str], second: tuple[str, str]) -> list[float]:
    """Per task, first − second (each ``(variant, arm)``), repeats averaged within a task, over the tasks both hold."""
    wide = _wide(outcomes, model)
    if first not in wide or second not in wide:
        return []
    both = wide[[first, second]].dropna()
    return [float(d) for d in (both[first] - both[second]).tolist()]


def _said(differences: Sequence[float]) -> str:
    effect = paired_effect(differences)
    return f"{effect.mean:+.2f} ({effect.low:+.2f} to {effect.high:+.2f}), {effect.tasks} tasks"


def _drop(differences: Sequence[float], at_least: float = DROP) -> tuple[str, str]:
    """A drop predicted: held when the mean is at most −at_least and the interval lies below zero."""
    if len(differences) < MIN_TASKS:
        return UNTESTABLE, f"{len(differences)} tasks, fewer than {MIN_TASKS}"
    effect = paired_effect(differences)
    return (HELD if effect.mean <= -at_least and effect.high < 0 else NOT_HELD), _said(differences)


def _band(differences: Sequence[float], margin: float) -> tuple[str, str]:
    """A null predicted within ±margin: two one-sided tests."""
    if len(differences) < MIN_TASKS:
        return UNTESTABLE, f"{len(differences)} tasks, fewer than {MIN_TASKS}"
    bound, effect = equivalence(differences, margin), paired_effect(differences)
    said = f"{_said(differences)}; 90 % {bound.low:+.2f} to {bound.high:+.2f}"
    if bound.verdict == "equivalent":
        return HELD, said
    if effect.low > margin or effect.high < -margin:
        return NOT_HELD, said
    return UNTESTABLE, f"{said}; too few tasks to bound it within ±{margin:.2f}"


def _no_larger_reduction(differences: Sequence[float], margin: float) -> tuple[str, str]:
    """No reduction larger than margin: the lower one-sided test."""
    if len(differences) < MIN_TASKS:
        return UNTESTABLE, f"{len(differences)} tasks, fewer than {MIN_TASKS}"
    bound, effect = equivalence(differences, margin), paired_effect(differences)
    said = f"{_said(differences)}; 90 % low end {bound.low:+.2f}"
    if bound.no_larger_reduction:
        return HELD, said
    if effect.high < -margin:
        return NOT_HELD, said
    return UNTESTABLE, f"{said}; too few tasks to bound it at −{margin:.2f}"


def _tasks_with(outcomes: pd.DataFrame, model: str, arm: str, outcome: str) -> dict[str, bool]:
    """Per task, whether the greedy answer in ``arm`` (unrefutable variant) was ``outcome`` by the reader."""
    part = outcomes[(outcomes["model"] == model) & (outcomes["arm"] == arm) & (outcomes["variant"] == "unrefutable")
                    & (outcomes["repeat"] == 0)]
    return {str(t): v == outcome for t, v in zip(part["task"], part["outcome"])}


def grade_predictions(outcomes: pd.DataFrame) -> list[Verdict]:
    """Every prediction of section 4.10 for every model it names, graded by the rules of this module.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`~cvlib.experiments.notes_study.second_analysis.read_second_outcomes` (``model`` by recording stem).

    Returns
    -------
    list of Verdict
        In the order of :data:`PREDICTIONS`, models smallest first.
    """
    models = set(outcomes["model"]) if len(outcomes) else set()
    check = manipulation_check(outcomes) if len(outcomes) else None
    echo = {r["model"]: r for r in check.to_dict("records")} if check is not None else {}
    missing = "not recorded yet"
    out: list[Verdict] = []

    def took(model: str) -> bool | None:
        row = echo.get(model)
        return None if row is None or not row["answers"] else bool(row["took_test"])

    for model, expected in ((SMALL, False), (MIDDLE, True), (LARGE, True)):
        row, taken = echo.get(model), took(model)
        if model not in models or taken is None or row is None:
            out.append(Verdict("NP1", model, UNTESTABLE, missing if model not in models else "no control answer with context"))
            continue
        said = f"{row['echoed']} of {row['answers']} control answers echo the context (limit {ECHO_LIMIT:.0%})"
        out.append(Verdict("NP1", model, HELD if taken == expected else NOT_HELD, said))

    fresh = "dependency_changed"
    n1 = {m: _differences(outcomes, m, ("refutable", fresh), ("placebo", fresh)) for m in (SMALL, MIDDLE, LARGE)}
    for model in (LARGE, MIDDLE, SMALL):
        if model not in models:
            out.append(Verdict("NP2", model, UNTESTABLE, missing))
        elif not took(model):
            out.append(Verdict("NP2", model, UNTESTABLE, "the model did not take the test (section 4.7), so N1 is not read"))
        elif len(n1[model]) < MIN_TASKS:
            out.append(Verdict("NP2", model, UNTESTABLE, f"{len(n1[model])} tasks, fewer than {MIN_TASKS}"))
        elif model == LARGE:
            out.append(Verdict("NP2", model, *_drop(n1[model])))
        elif model == SMALL:
            effect = paired_effect(n1[model])
            out.append(Verdict("NP2", model, HELD if effect.high >= 0 else NOT_HELD, _said(n1[model])))
        else:
            drops = n1[LARGE]
            if LARGE not in models or not took(LARGE) or len(drops) < MIN_TASKS:
                out.append(Verdict("NP2", f"{MIDDLE} − {LARGE}", UNTESTABLE, "the 1.5B model's N1 is not read yet"))
            else:
                mid, big = paired_effect(n1[model]).mean, paired_effect(drops).mean
                out.append(Verdict("NP2", f"{MIDDLE} − {LARGE}", HELD if mid > big else NOT_HELD,
                                   f"0.5B {mid:+.2f} against 1.5B {big:+.2f}"))

    for model in (MIDDLE, LARGE):
        if model not in models:
            out.append(Verdict("NP3", model, UNTESTABLE, missing))
        elif not took(model):
            out.append(Verdict("NP3", model, UNTESTABLE, "the model did not take the test (section 4.7)"))
        else:
            out.append(Verdict("NP3", model, *_band(_differences(outcomes, model, ("placebo", fresh), ("unrefutable", fresh)),
                                                    BAND)))

    verify = {m: _differences(outcomes, m, ("unrefutable", "stale_verify"), ("unrefutable", fresh)) for m in (MIDDLE, LARGE)}
    out.append(Verdict("NP4", LARGE, *_drop(verify[LARGE])) if LARGE in models else Verdict("NP4", LARGE, UNTESTABLE, missing))
    out.append(Verdict("NP4", MIDDLE, *_no_larger_reduction(verify[MIDDLE], DROP)) if MIDDLE in models
               else Verdict("NP4", MIDDLE, UNTESTABLE, missing))

    if LARGE in models:
        verify_declined = _tasks_with(outcomes, LARGE, "stale_verify", "declined")
        true_declined = _tasks_with(outcomes, LARGE, "true_note", "declined")
        shared = sorted(set(verify_declined) & set(true_declined))
        a = sum(verify_declined[t] for t in shared)
        b = sum(true_declined[t] for t in shared)
        out.append(Verdict("NP5", LARGE, (HELD if a > b else NOT_HELD) if shared else UNTESTABLE,
                           f"declined in {a} tasks with the verify rule, {b} with the true note, of {len(shared)}"))
    else:
        out.append(Verdict("NP5", LARGE, UNTESTABLE, missing))

    for model in (SMALL, MIDDLE, LARGE):
        if model not in models:
            out.append(Verdict("NP6", model, UNTESTABLE, missing))
            continue
        greedy = outcomes[(outcomes["model"] == model) & (outcomes["repeat"] == 0) & outcomes["arm"].isin(("control", "withheld"))]
        shares = greedy.groupby(["variant", "arm"])["stale"].mean()
        worst_at = shares.idxmax()
        said = f"at most {shares.max():.0%} ({worst_at[1]}, {worst_at[0]})"
        out.append(Verdict("NP6", model, HELD if shares.max() <= CONTROL_CEILING else NOT_HELD, said))

    if MIDDLE in models and LARGE in models:
        exact_large = _tasks_with(outcomes, LARGE, "true_note", "true_exact")
        exact_mid = _tasks_with(outcomes, MIDDLE, "true_note", "true_exact")
        shared = sorted(set(exact_large) & set(exact_mid))
        a, b = sum(exact_large[t] for t in shared), sum(exact_mid[t] for t in shared)
        out.append(Verdict("NP7", f"{LARGE} − {MIDDLE}", (HELD if a > b else NOT_HELD) if shared else UNTESTABLE,
                           f"exact true edits in {a} tasks for the 1.5B model, {b} for the 0.5B, of {len(shared)}"))
    else:
        out.append(Verdict("NP7", f"{LARGE} − {MIDDLE}", UNTESTABLE, missing))
    return out
