"""The article's sweeps, each returned as a tidy DataFrame.

One row per configuration, stable column names, rows in the order the
parameters were given: notebooks plot them, tests compare them. Every sweep
takes ``policies=`` (default: the article's two); each executor's numbers
are columns named ``{policy}_{metric}`` (:func:`~cvlib.core.executors.policy_column`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, VALIDITY_AWARE, PolicyLike, policy_column, policy_columns
from cvlib.core.validation import require_ints
from cvlib.experiments.windows import outcomes_by_budget, published_budgets
from cvlib.scenarios.named import run_scenario, setup_scenario
from cvlib.scenarios.setup import ScenarioRun, run_setups

#: The per-executor quantities of :func:`run_row`, in column order (each column ``{policy}_{metric}``).
ROW_METRICS = ("pfw", "steps", "completed", "scur")

#: The published grid, depth 3-8 x branching factor 1-4 x merge factor 1-4.
GRID_DEPTHS = tuple(range(3, 9))
GRID_BRANCHING = tuple(range(1, 5))
GRID_MERGING = tuple(range(1, 5))


def run_row(run: ScenarioRun) -> dict[str, Any]:
    """Flatten one :class:`~cvlib.scenarios.setup.ScenarioRun` into a row of numbers.

    Parameters
    ----------
    run : ScenarioRun
        Every executor's result on one scenario.

    Returns
    -------
    dict
        Structure (``total_steps``, ``closure_size``, ``exposed_pct``,
        ``invalidation_depth``, ``predicted_pfw``), then each executor's PFW,
        steps, completion and SCUR as ``{policy}_{metric}`` (grouped by
        metric, executors in the run's order), then ``budget``.
    """
    s = run.structure
    row: dict[str, Any] = {
        "total_steps": s.total_steps,
        "closure_size": s.closure_size,
        "exposed_pct": s.exposed_pct,
        "invalidation_depth": s.invalidation_depth,
        "predicted_pfw": s.predicted_baseline_pfw,
    }
    per_policy = policy_columns(run.results, ROW_METRICS)
    clash = sorted(set(row) & set(per_policy))
    if clash:
        raise ParameterError(f"an executor's columns {clash} collide with the row's own; rename the policy")
    row.update(per_policy)
    row["budget"] = next(iter(run.results.values())).budget
    return row


def topology_grid(
    depths: Sequence[int] = GRID_DEPTHS,
    branching_factors: Sequence[int] = GRID_BRANCHING,
    merge_factors: Sequence[int] = GRID_MERGING,
    seed: int = 0,
    *,
    policies: Iterable[PolicyLike] | None = None,
) -> pd.DataFrame:
    """Scenario D2 over every (depth, branching factor, merge factor), the break before the plan starts.

    Every plan is built first, then all are run together
    (:func:`~cvlib.scenarios.setup.run_setups`), which gives the same rows as
    running them one by one, faster.

    Parameters
    ----------
    depths, branching_factors, merge_factors : sequence of int
        The grid; the default is the published 6 x 4 x 4 = 96 configurations.
    seed : int
        Seed of the wiring.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order; None is the article's two.

    Returns
    -------
    pandas.DataFrame
        One row per configuration (:func:`run_row` plus the three parameters).
    """
    configs = [
        (depth, bf, mf)
        for depth in require_ints("depths", depths, minimum=1)
        for bf in require_ints("branching_factors", branching_factors, minimum=1)
        for mf in require_ints("merge_factors", merge_factors, minimum=1)
    ]
    setups = [setup_scenario("D2", depth=d, branching_factor=bf, merge_factor=mf, seed=seed) for d, bf, mf in configs]
    return pd.DataFrame(
        [
            {"depth": d, "branching_factor": bf, "merge_factor": mf, **run_row(run)}
            for (d, bf, mf), run in zip(configs, run_setups(setups, policies=policies))
        ]
    )


def depth_sweep(
    depths: Sequence[int] = (1, 2, 3, 5, 10), change_tick: int = 0, *, policies: Iterable[PolicyLike] | None = None
) -> pd.DataFrame:
    """Scenario D1 at each chain depth.

    Parameters
    ----------
    depths : sequence of int
        Chain depths; the default is the published 1, 2, 3, 5, 10.
    change_tick : int
        When the root fact breaks (0: before the plan starts).
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order; None is the article's two.

    Returns
    -------
    pandas.DataFrame
        One row per depth.
    """
    return pd.DataFrame(
        [
            {"depth": d, **run_row(run_scenario("D1", depth=d, change_tick=change_tick, policies=policies))}
            for d in require_ints("depths", depths, minimum=1)
        ]
    )


def isolation_sweep(
    branch_counts: Sequence[int] = (1, 4, 8),
    pre_merge_depth: int = 6,
    post_merge_depth: int = 2,
    *,
    policies: Iterable[PolicyLike] | None = None,
) -> pd.DataFrame:
    """Scenario D3 as the number of isolated branches grows.

    Parameters
    ----------
    branch_counts : sequence of int
        Numbers of branches; the default is the published 1, 4, 8.
    pre_merge_depth, post_merge_depth : int
        Steps in each private branch and in the shared segment.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order; None is the article's two.

    Returns
    -------
    pandas.DataFrame
        One row per branch count.
    """
    rows = []
    for b in require_ints("branch_counts", branch_counts, minimum=1):
        run = run_scenario(
            "D3", pre_merge_depth=pre_merge_depth, num_branches=b, post_merge_depth=post_merge_depth, policies=policies
        )
        rows.append({"num_branches": b, **run_row(run)})
    return pd.DataFrame(rows)


def budget_sweep(
    depth: int = 4,
    change_tick: int = 1,
    budgets: Sequence[int] | None = None,
    *,
    policies: Iterable[PolicyLike] | None = None,
) -> pd.DataFrame:
    """Scenario A under externally fixed budgets; by default the computed budget down by five.

    Parameters
    ----------
    depth : int
        Steps in the chain.
    change_tick : int
        Tick at which the flight price changes.
    budgets : sequence of int, optional
        Budgets to try; None is :func:`~cvlib.experiments.windows.published_budgets`.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order; None is the article's two.

    Returns
    -------
    pandas.DataFrame
        One row per budget: ``budget``, each executor's ``{policy}_completed``, then each one's ``{policy}_steps``.
    """
    setup = setup_scenario("A", depth=depth, change_tick=change_tick)
    if budgets is None:
        budgets = published_budgets(setup.budget)
    return pd.DataFrame([o.row() for o in outcomes_by_budget(setup, budgets, policies=policies)])


def separation_window(sweep: pd.DataFrame) -> list[int]:
    """Budgets at which only the validity-aware executor completes, in the sweep's order (largest first by default).

    Parameters
    ----------
    sweep : pandas.DataFrame
        A :func:`budget_sweep` table.

    Returns
    -------
    list of int
    """
    only_va = sweep[sweep[policy_column(VALIDITY_AWARE, "completed")] & ~sweep[policy_column(BASELINE, "completed")]]
    return [int(b) for b in only_va["budget"]]
