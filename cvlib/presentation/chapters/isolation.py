"""The chapter "D3: isolation": the branch sweep's table, the glued lists and numbers, the published comparison and the exercise.

The runs are :func:`cvlib.isolation_sweep`'s; this module writes what the
chapter shows of them, so the notebook holds no wrangling.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cvlib.experiments.article import isolation_sweep
from cvlib.presentation import published, tables
from cvlib.presentation.formatting import listing, written

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.presentation.published import Comparison
    from cvlib.presentation.tables import Table

__all__ = ["comparison", "exercise", "sweep_table", "texts"]


def sweep_table(iso: pd.DataFrame) -> Table:
    """One row per branch count: the plan, the steps on the broken fact, the share exposed and each executor's doomed work.

    Parameters
    ----------
    iso
        :func:`cvlib.isolation_sweep`.

    Returns
    -------
    Table
    """
    columns = {
        "num_branches": "Branches",
        "total_steps": "Plan steps",
        "closure_size": "Steps on the broken fact",
        "exposed_pct": "Plan exposed",
        "baseline_pfw": "Baseline doomed steps",
        "validity_aware_pfw": "Validity-aware doomed steps",
    }
    return tables.table(iso, columns, {"exposed_pct": "percent"})


def texts(iso: pd.DataFrame, pre_merge_depth: int, post_merge_depth: int) -> dict[str, str]:
    """Every list and number the chapter's prose names (glue keys ``D3_...``), written, in the chapter's order.

    Parameters
    ----------
    iso
        :func:`cvlib.isolation_sweep`.
    pre_merge_depth, post_merge_depth
        The chapter's plan shape.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_texts`.
    """
    out = {
        "D3_branch_counts": listing(iso["num_branches"], last=" and "),
        "D3_total_nodes": listing(iso["total_steps"], last=" and "),
        "D3_exposed_nodes": listing(iso["closure_size"], last=" and "),
        "D3_exposed_pct": listing(iso["exposed_pct"], "percent", last=" and "),
        "D3_baseline_pfw": listing(iso["baseline_pfw"], last=" and "),
        "D3_validity_pfw": listing(iso["validity_aware_pfw"], last=" and "),
    }
    out |= written(
        {f"D3_exposed_pct_b{b}": (pct, "percent") for b, pct in zip(iso["num_branches"], iso["exposed_pct"])}
    )
    return out | written(
        {
            "D3_pfw_distinct": iso["baseline_pfw"].nunique(),
            "D3_pre_merge": pre_merge_depth,
            "D3_post_merge": post_merge_depth,
        }
    )


def comparison(iso: pd.DataFrame, params: dict[str, Any]) -> Comparison:
    """The article's D3 numbers beside ours.

    Parameters
    ----------
    iso
        :func:`cvlib.isolation_sweep`.
    params
        The chapter's parameters, which decide whether the published numbers describe this run.

    Returns
    -------
    Comparison
    """
    ours = {
        "total_steps": [int(n) for n in iso["total_steps"]],
        "exposed_nodes": [int(n) for n in iso["closure_size"]],
        "exposed_pct": [float(p) for p in iso["exposed_pct"]],
        "baseline_pfw": [int(p) for p in iso["baseline_pfw"]],
    }
    return published.compare("D3", ours, params=params)


def exercise(branch_counts: Sequence[int], pre_merge_depth: int, post_merge_depth: int) -> dict[str, Any]:
    """The exercise's plan, four times the most branches, and its doomed work and share exposed.

    Parameters
    ----------
    branch_counts
        The chapter's branch counts.
    pre_merge_depth, post_merge_depth
        The chapter's plan shape.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_all`.
    """
    ex = isolation_sweep(
        [4 * max(branch_counts)], pre_merge_depth=pre_merge_depth, post_merge_depth=post_merge_depth
    ).iloc[0]
    return {
        "D3_ex_branches": ex["num_branches"],
        "D3_ex_pfw": ex["baseline_pfw"],
        "D3_ex_total": ex["total_steps"],
        "D3_ex_pct": (ex["exposed_pct"], "percent"),
    }
