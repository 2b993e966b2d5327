"""The chapter "Ambiguity": the glued numbers of the real change (E1) and the false alarm (E2), the comparison and the exercise.

The runs are :func:`cvlib.run_scenario`'s; this module writes what the
chapter shows of them, so the notebook holds no wrangling.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cvlib.presentation import published
from cvlib.scenarios.named import run_scenario

if TYPE_CHECKING:  # pragma: no cover
    from cvlib.presentation.published import Comparison
    from cvlib.scenarios.setup import ScenarioRun

__all__ = ["comparison", "exercise", "values"]


def values(runs: Mapping[str, ScenarioRun]) -> dict[str, Any]:
    """Each scenario's steps, verifications, doomed work and SCUR (glue keys ``E1_...`` and ``E2_...``).

    Parameters
    ----------
    runs
        The runs by scenario name (``"E1"``, ``"E2"``).

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_all`.
    """
    out: dict[str, Any] = {}
    for key, run in runs.items():
        out |= {
            f"{key}_baseline_steps": run.baseline.steps_used,
            f"{key}_validity_steps": run.validity_aware.steps_used,
            f"{key}_verifications": run.validity_aware.verifications,
            f"{key}_baseline_pfw": run.baseline.pre_failure_work,
            f"{key}_baseline_scur": (run.baseline.scur, "share"),
            f"{key}_validity_scur": (run.validity_aware.scur, "share"),
        }
    return out


def comparison(e1: ScenarioRun, e2: ScenarioRun, depth: int, change_tick: int) -> Comparison:
    """The article's E1 and E2 numbers beside ours: counts exactly, E2's SCUR at the README's two decimals.

    Parameters
    ----------
    e1, e2
        The real change's run and the false alarm's.
    depth, change_tick
        The chapter's parameters, which decide whether the published numbers describe these runs.

    Returns
    -------
    Comparison
    """
    params = {"depth": depth, "change_tick": change_tick}
    steps = {
        name: {
            "baseline_steps": run.baseline.steps_used,
            "validity_aware_steps": run.validity_aware.steps_used,
            "validity_aware_verifications": run.validity_aware.verifications,
        }
        for name, run in (("E1", e1), ("E2", e2))
    }
    scur = {"baseline_scur": e2.baseline.scur, "validity_aware_scur": e2.validity_aware.scur}
    return published.combined(
        {"E1": published.compare("E1", steps["E1"], params), "E2": published.compare("E2", steps["E2"] | scur, params)}
    )


def exercise(depth: int, change_tick: int) -> dict[str, Any]:
    """The exercise's runs: both scenarios with the signal one tick later (at most the last step).

    Parameters
    ----------
    depth, change_tick
        The chapter's parameters.

    Returns
    -------
    dict
        Glue key (``E_ex_...``) to count, for :func:`cvlib.presentation.formatting.glue_all`.
    """
    ex_tick = min(change_tick + 1, depth - 1)
    late1 = run_scenario("E1", depth=depth, change_tick=ex_tick)
    late2 = run_scenario("E2", depth=depth, change_tick=ex_tick)
    return {
        "E_ex_tick": ex_tick,
        "E_ex_depth": depth,
        "E_ex_e1_baseline": late1.baseline.steps_used,
        "E_ex_e1_validity": late1.validity_aware.steps_used,
        "E_ex_e2_baseline": late2.baseline.steps_used,
        "E_ex_e2_validity": late2.validity_aware.steps_used,
    }
