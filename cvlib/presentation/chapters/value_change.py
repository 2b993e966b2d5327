"""The chapter "A: a value change": the glued numbers of the run, the published comparison, the figure's marker and the exercises.

The run is scenario A's (:func:`cvlib.setup_scenario`, then its ``run``);
this module writes what the chapter shows of it, so the notebook holds no
wrangling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cvlib.core.law import predicted_pfw_single
from cvlib.presentation import published
from cvlib.presentation.formatting import words, written
from cvlib.scenarios.named import setup_scenario

if TYPE_CHECKING:  # pragma: no cover
    from cvlib.presentation.published import Comparison
    from cvlib.scenarios.setup import ScenarioRun, ScenarioSetup

__all__ = ["comparison", "exercises", "markers", "texts"]


def texts(setup: ScenarioSetup, run: ScenarioRun, depth: int, change_tick: int) -> dict[str, str]:
    """Every number and phrase the chapter's prose names about the run (glue keys ``A_...``), written, in the chapter's order.

    Parameters
    ----------
    setup
        Scenario A's set-up.
    run
        Its run, the timestamp-only executor among those run.
    depth, change_tick
        The chapter's parameters.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_texts`.
    """
    b, v = run.baseline, run.validity_aware
    counts = {
        "A_depth": depth,
        "A_change_tick": change_tick,
        "A_budget": setup.budget,
        "A_baseline_steps": b.steps_used,
        "A_validity_steps": v.steps_used,
        "A_baseline_pfw": b.pre_failure_work,
        "A_validity_pfw": v.pre_failure_work,
        "A_baseline_replans": b.replans,
        "A_validity_replans": v.replans,
        "A_baseline_scur": (b.scur, "share"),
        "A_validity_scur": (v.scur, "share"),
        "A_steps_saved": b.steps_used - v.steps_used,
        "A_validity_stale_decisions": v.decisions_on_stale_deps,
        "A_predicted_pfw": predicted_pfw_single(setup.plan, setup.at_risk, change_tick),
        "A_timestamp_steps": run.result("timestamp_only").steps_used,
        "A_timestamp_pfw": run.result("timestamp_only").pre_failure_work,
    }
    out = written(counts)
    out["A_baseline_completed"] = words(b.completed, "completed", "did not complete")
    out["A_validity_completed"] = words(v.completed, "completed", "did not complete")
    return out


def comparison(run: ScenarioRun, depth: int, change_tick: int) -> Comparison:
    """The article's scenario A numbers beside ours.

    Parameters
    ----------
    run
        Scenario A's run.
    depth, change_tick
        The chapter's parameters, which decide whether the published numbers describe this run.

    Returns
    -------
    Comparison
    """
    b, v = run.baseline, run.validity_aware
    ours = {
        "baseline_steps": b.steps_used,
        "validity_aware_steps": v.steps_used,
        "baseline_pfw": b.pre_failure_work,
        "validity_aware_pfw": v.pre_failure_work,
        "baseline_replans": b.replans,
        "validity_aware_replans": v.replans,
        "baseline_scur": b.scur,
        "validity_aware_scur": v.scur,
        "baseline_completed": b.completed,
        "validity_aware_completed": v.completed,
    }
    return published.compare("A", ours, params={"depth": depth, "change_tick": change_tick})


def markers(setup: ScenarioSetup, change_tick: int) -> list[tuple[int, str]]:
    """The figure's one marker: the tick the price changes, and from what to what.

    Parameters
    ----------
    setup
        Scenario A's set-up.
    change_tick
        The tick of the change.

    Returns
    -------
    list of (int, str)
    """
    old, new = setup.facts[0].value, setup.events[0].new_value
    return [(change_tick, f"price ${old} → ${new}")]


def exercises(depth: int, change_tick: int) -> dict[str, Any]:
    """The exercises' runs: the change one tick later, and the chain two steps longer.

    Parameters
    ----------
    depth, change_tick
        The chapter's parameters.

    Returns
    -------
    dict
        Glue key (``A_ex...``) to count, for :func:`cvlib.presentation.formatting.glue_all`.
    """
    ex1_tick = min(change_tick + 1, depth - 1)
    later = setup_scenario("A", depth=depth, change_tick=ex1_tick).run()
    longer = setup_scenario("A", depth=depth + 2, change_tick=change_tick).run()
    return {
        "A_ex1_tick": ex1_tick,
        "A_ex1_pfw": later.baseline.pre_failure_work,
        "A_ex1_baseline_steps": later.baseline.steps_used,
        "A_ex1_validity_steps": later.validity_aware.steps_used,
        "A_ex1_gap": later.baseline.steps_used - later.validity_aware.steps_used,
        "A_ex2_depth": depth + 2,
        "A_ex2_pfw": longer.baseline.pre_failure_work,
        "A_ex2_validity_pfw": longer.validity_aware.pre_failure_work,
    }
