"""The chapter "D1: depth": the chain sweep's table, the glued numbers and lists, the published comparison and the exercise.

The runs are :func:`cvlib.depth_sweep`'s; this module writes what the
chapter shows of them, so the notebook holds no wrangling.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cvlib.experiments.article import depth_sweep
from cvlib.presentation import published, tables
from cvlib.presentation.formatting import listing, written

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.presentation.published import Comparison
    from cvlib.presentation.tables import Table

__all__ = ["comparison", "exercise", "sweep_table", "texts"]


def sweep_table(sweep: pd.DataFrame) -> Table:
    """One row per depth: the closure, the law's doomed work and each executor's.

    Parameters
    ----------
    sweep
        :func:`cvlib.depth_sweep`.

    Returns
    -------
    Table
    """
    columns = {
        "depth": "Depth",
        "closure_size": "Steps on the fact",
        "predicted_pfw": "Law: doomed steps",
        "baseline_pfw": "Baseline doomed steps",
        "validity_aware_pfw": "Validity-aware doomed steps",
        "baseline_steps": "Baseline steps",
        "validity_aware_steps": "Validity-aware steps",
    }
    return tables.table(sweep, columns)


def texts(sweep: pd.DataFrame, change_tick: int) -> dict[str, str]:
    """Every list and number the chapter's prose names (glue keys ``D1_...``), written, in the chapter's order.

    Parameters
    ----------
    sweep
        :func:`cvlib.depth_sweep`.
    change_tick
        The tick the root fact broke at.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_texts`.
    """
    out = {
        "D1_depths": listing(sweep["depth"]),
        "D1_baseline_pfw": listing(sweep["baseline_pfw"]),
        "D1_validity_pfw": listing(sweep["validity_aware_pfw"]),
    }
    out |= written({f"D1_baseline_pfw_depth{d}": p for d, p in zip(sweep["depth"], sweep["baseline_pfw"])})
    counts = {
        "D1_law_matches": int((sweep["baseline_pfw"] == sweep["predicted_pfw"]).sum()),
        "D1_cases": len(sweep),
        "D1_validity_max": int(sweep["validity_aware_pfw"].max()),
        "D1_change_tick": change_tick,
    }
    return out | written(counts)


def comparison(sweep: pd.DataFrame, depths: Sequence[int], change_tick: int) -> Comparison:
    """The article's D1 numbers beside ours.

    Parameters
    ----------
    sweep
        :func:`cvlib.depth_sweep`.
    depths, change_tick
        The chapter's parameters, which decide whether the published numbers describe this run.

    Returns
    -------
    Comparison
    """
    ours = {
        "baseline_pfw": [int(p) for p in sweep["baseline_pfw"]],
        "validity_aware_pfw": [int(p) for p in sweep["validity_aware_pfw"]],
    }
    return published.compare("D1", ours, params={"depths": depths, "change_tick": change_tick})


def exercise(depths: Sequence[int]) -> dict[str, Any]:
    """The exercises' chains (twice the deepest, broken at once; the deepest, broken halfway) and what the law and the runs say.

    Parameters
    ----------
    depths
        The chapter's depths.

    Returns
    -------
    dict
        Glue key (``D1_ex...``) to count.
    """
    deep = 2 * max(depths)
    ex1 = depth_sweep([deep], change_tick=0).iloc[0]
    ex2_tick = max(depths) // 2
    ex2 = depth_sweep([max(depths)], change_tick=ex2_tick).iloc[0]
    return {
        "D1_ex1_depth": deep,
        "D1_ex1_pfw": ex1["predicted_pfw"],
        "D1_ex1_measured": ex1["baseline_pfw"],
        "D1_ex2_depth": max(depths),
        "D1_ex2_tick": ex2_tick,
        "D1_ex2_pfw": ex2["predicted_pfw"],
        "D1_ex2_measured": ex2["baseline_pfw"],
    }
