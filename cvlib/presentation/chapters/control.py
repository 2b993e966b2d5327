"""The chapter "C: the control": the glued numbers of the run, the published comparison and the exercise.

The run is scenario C's (:func:`cvlib.setup_scenario`, then its ``run``);
this module writes what the chapter shows of it, so the notebook holds no
wrangling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cvlib.presentation import published
from cvlib.scenarios.named import run_scenario

if TYPE_CHECKING:  # pragma: no cover
    from cvlib.presentation.published import Comparison
    from cvlib.scenarios.setup import ScenarioRun, ScenarioSetup

__all__ = ["comparison", "exercise", "values"]


def values(setup: ScenarioSetup, run: ScenarioRun, depth: int) -> dict[str, Any]:
    """Every number the chapter's prose names about the run (glue keys ``C_...``).

    Parameters
    ----------
    setup
        Scenario C's set-up.
    run
        Its run, the timestamp-only executor among those run.
    depth
        The chapter's depth.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_all`.
    """
    return {
        "C_depth": depth,
        "C_baseline_steps": run.baseline.steps_used,
        "C_validity_steps": run.validity_aware.steps_used,
        "C_overhead": run.overhead,
        "C_verifications": run.validity_aware.verifications,
        "C_budget": setup.budget,
        "C_timestamp_steps": run.result("timestamp_only").steps_used,
        "C_timestamp_verifications": run.result("timestamp_only").verifications,
    }


def comparison(run: ScenarioRun, depth: int) -> Comparison:
    """The article's scenario C numbers beside ours.

    Parameters
    ----------
    run
        Scenario C's run.
    depth
        The chapter's depth, which decides whether the published numbers describe this run.

    Returns
    -------
    Comparison
    """
    ours = {
        "baseline_steps": run.baseline.steps_used,
        "validity_aware_steps": run.validity_aware.steps_used,
        "overhead": run.overhead,
    }
    return published.compare("C", ours, params={"depth": depth})


def exercise(depth: int) -> dict[str, Any]:
    """The exercise's run: the same control three times as long.

    Parameters
    ----------
    depth
        The chapter's depth.

    Returns
    -------
    dict
        Glue key (``C_ex_...``) to count, for :func:`cvlib.presentation.formatting.glue_all`.
    """
    longer = run_scenario("C", depth=3 * depth)
    return {
        "C_ex_depth": 3 * depth,
        "C_ex_baseline_steps": longer.baseline.steps_used,
        "C_ex_validity_steps": longer.validity_aware.steps_used,
        "C_ex_overhead": longer.overhead,
    }
