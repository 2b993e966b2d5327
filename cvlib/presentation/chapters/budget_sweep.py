"""The chapter "The budget sweep": its table, where each executor completes, the glued lists, the comparison and the exercise.

The runs are :func:`cvlib.budget_sweep`'s and the window of budgets where
only the validity-aware executor completes is
:func:`cvlib.separation_window`'s; this module writes what the chapter shows
of them, so the notebook holds no wrangling.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cvlib.experiments.article import budget_sweep, separation_window
from cvlib.presentation import published, tables
from cvlib.presentation.formatting import listing, written
from cvlib.scenarios.named import setup_scenario

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.presentation.published import Comparison
    from cvlib.presentation.tables import Table

__all__ = ["both_complete", "comparison", "exercise", "neither_completes", "sweep_table", "texts"]


def sweep_table(sweep: pd.DataFrame) -> Table:
    """One row per budget: whether each executor completes.

    Parameters
    ----------
    sweep
        :func:`cvlib.budget_sweep`.

    Returns
    -------
    Table
    """
    return tables.table(
        sweep,
        {
            "budget": "Budget",
            "baseline_completed": "Baseline completes",
            "validity_aware_completed": "Validity-aware completes",
        },
    )


def both_complete(sweep: pd.DataFrame) -> list[int]:
    """The budgets at which both executors complete.

    Parameters
    ----------
    sweep
        :func:`cvlib.budget_sweep`.

    Returns
    -------
    list of int
    """
    return [int(b) for b in sweep.loc[sweep["baseline_completed"] & sweep["validity_aware_completed"], "budget"]]


def neither_completes(sweep: pd.DataFrame) -> list[int]:
    """The budgets at which neither executor completes.

    Parameters
    ----------
    sweep
        :func:`cvlib.budget_sweep`.

    Returns
    -------
    list of int
    """
    return [int(b) for b in sweep.loc[~sweep["baseline_completed"] & ~sweep["validity_aware_completed"], "budget"]]


def texts(sweep: pd.DataFrame, window: Sequence[int], depth: int, change_tick: int) -> dict[str, str]:
    """Every list and number the chapter's prose names (glue keys ``budget_...``), written, in the chapter's order.

    Parameters
    ----------
    sweep
        :func:`cvlib.budget_sweep`.
    window
        :func:`cvlib.separation_window` of it.
    depth, change_tick
        The chapter's scenario A.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_texts`.
    """
    out = {
        "budget_window": listing(window),
        "budget_both": listing(both_complete(sweep)),
        "budget_neither": listing(neither_completes(sweep)),
    }
    counts = {
        "budget_window_size": len(window),
        "budget_computed": setup_scenario("A", depth=depth, change_tick=change_tick).budget,
        "budget_baseline_steps": int(sweep["baseline_steps"].iloc[0]),
        "budget_validity_steps": int(sweep["validity_aware_steps"].iloc[0]),
    }
    return out | written(counts)


def comparison(sweep: pd.DataFrame, window: list[int], params: dict[str, Any]) -> Comparison:
    """The article's budget-sweep numbers beside ours.

    Parameters
    ----------
    sweep
        :func:`cvlib.budget_sweep`.
    window
        :func:`cvlib.separation_window` of it.
    params
        The chapter's parameters, which decide whether the published numbers describe this run.

    Returns
    -------
    Comparison
    """
    ours = {
        "both_complete": both_complete(sweep),
        "only_validity_completes": window,
        "neither_completes": neither_completes(sweep),
    }
    return published.compare("budget", ours, params=params)


def exercise(depth: int, change_tick: int) -> dict[str, str]:
    """The exercise's chain, two steps longer, swept over every budget from three times its depth down, written.

    Parameters
    ----------
    depth, change_tick
        The chapter's scenario A.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_texts`, in the chapter's order.
    """
    ex_depth = depth + 2
    ex = budget_sweep(depth=ex_depth, change_tick=change_tick, budgets=list(range(3 * ex_depth, 0, -1)))
    ex_window = separation_window(ex)
    counts = {
        "budget_ex_depth": ex_depth,
        "budget_ex_tick": change_tick,
        "budget_ex_width": len(ex_window),
        "budget_ex_baseline": int(ex["baseline_steps"].iloc[0]),
        "budget_ex_validity": int(ex["validity_aware_steps"].iloc[0]),
    }
    return {"budget_ex_window": listing(ex_window)} | written(counts)
