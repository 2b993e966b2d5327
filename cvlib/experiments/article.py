"""The article's sweeps, each returned as a tidy DataFrame (the grid also as plain rows, without pandas).

One row per configuration, stable column names, rows in the order the
parameters were given: notebooks plot them, tests compare them. Every sweep
takes ``policies=`` (default: the article's two); each executor's numbers
are columns named ``{policy}_{metric}`` (:func:`~cvlib.core.executors.policy_column`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, overload

from cvlib.core.bitmasks import masked_world
from cvlib.core.errors import ParameterError
from cvlib.core.executors import (
    BASELINE,
    VALIDITY_AWARE,
    PolicyLike,
    PolicyRuns,
    policy_column,
    policy_columns,
    run_policies,
)
from cvlib.core.law import predicted_pfw_columns
from cvlib.core.validation import require_ints
from cvlib.experiments.rows import Rows
from cvlib.experiments.windows import outcomes_by_budget, published_budgets
from cvlib.scenarios.generators import branching_columns
from cvlib.scenarios.named import run_scenario, setup_scenario
from cvlib.scenarios.setup import LaidOutRun, ScenarioRun, ScenarioSetup, check_executor_names

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

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


@overload
def topology_grid(
    depths: Sequence[int] = ...,
    branching_factors: Sequence[int] = ...,
    merge_factors: Sequence[int] = ...,
    seed: int = ...,
    *,
    policies: Iterable[PolicyLike] | None = ...,
    as_frame: Literal[True] = ...,
) -> pd.DataFrame: ...


@overload
def topology_grid(
    depths: Sequence[int] = ...,
    branching_factors: Sequence[int] = ...,
    merge_factors: Sequence[int] = ...,
    seed: int = ...,
    *,
    policies: Iterable[PolicyLike] | None = ...,
    as_frame: Literal[False],
) -> Rows: ...


def topology_grid(
    depths: Sequence[int] = GRID_DEPTHS,
    branching_factors: Sequence[int] = GRID_BRANCHING,
    merge_factors: Sequence[int] = GRID_MERGING,
    seed: int = 0,
    *,
    policies: Iterable[PolicyLike] | None = None,
    as_frame: bool = True,
) -> pd.DataFrame | Rows:
    """Scenario D2 over every (depth, branching factor, merge factor), the break before the plan starts.

    For the article's two executors (the default) the parameters are
    checked once, on one D2 setup, and each diamond is laid out by
    construction (:func:`~cvlib.scenarios.generators.branching_columns`) and
    run on bit masks (:func:`~cvlib.core.executors.article_pair_runs`): the
    rows :func:`~cvlib.scenarios.setup.run_setups` gives, without a plan
    object or a world per configuration, which are most of the grid's time
    otherwise. Any other choice of executors builds every setup and runs
    them all together through :func:`~cvlib.scenarios.setup.run_setups`.

    Parameters
    ----------
    depths, branching_factors, merge_factors : sequence of int
        The grid; the default is the published 6 x 4 x 4 = 96 configurations.
    seed : int
        Seed of the wiring.
    policies : list of (str or ~cvlib.core.executors.Policy), optional
        The executors, in order; None is the article's two.
    as_frame : bool
        Return a DataFrame (the default); False returns the same rows as
        :class:`~cvlib.experiments.rows.Rows`, without importing pandas
        (``.to_frame()`` gives the frame later).

    Returns
    -------
    pandas.DataFrame or Rows
        One row per configuration (:func:`run_row` plus the three parameters).
    """
    configs = [
        (depth, bf, mf)
        for depth in require_ints("depths", depths, minimum=1)
        for bf in require_ints("branching_factors", branching_factors, minimum=1)
        for mf in require_ints("merge_factors", merge_factors, minimum=1)
    ]
    cells = _grid_cells(configs, seed)  # every parameter checked before the executors are looked at
    rows = _grid_rows(configs, cells, run_policies(policies, cells))
    return rows.to_frame() if as_frame else rows


def _grid_cells(configs: list[tuple[int, int, int]], seed: int) -> list[LaidOutRun]:
    """Each configuration's diamond laid out by construction, in a world read once from one D2 setup.

    The facts, the schedule and the fact at risk are read from the first
    configuration's setup, built and checked as any D2 setup is (so a bad seed
    gets the same error); they do not depend on the diamond's shape.
    :func:`~cvlib.scenarios.generators.branching_columns` checks each shape
    in order, with the errors :func:`~cvlib.scenarios.generators.branching`
    gives. A configuration's own setup is built only if the loop runs it.
    """
    depth, bf, mf = configs[0]
    template = setup_scenario("D2", depth=depth, branching_factor=bf, merge_factor=mf, seed=seed)
    world = masked_world(
        template.facts,
        template.events,
        rules=template.rules,
        silent_changes=template.silent_changes,
        resource_events=template.resource_events,
        supports=template.supports,
    )
    at_risk, breaks = template.at_risk, template.break_ticks()
    masks: dict[frozenset[str], int] = {}
    build = partial(_shape_setup, seed)
    return [
        LaidOutRun("D2", None, columns, depth_at_risk, world, at_risk, breaks, build, config, masks=masks)
        for config, (columns, depth_at_risk) in zip(configs, branching_columns(configs, seed=seed))
    ]


def _shape_setup(seed: int, depth: int, branching_factor: int, merge_factor: int) -> ScenarioSetup:
    """The D2 setup of one shape of the grid, as a laid-out cell builds it when the loop asks."""
    return setup_scenario("D2", depth=depth, branching_factor=branching_factor, merge_factor=merge_factor, seed=seed)


#: The grid's columns before the executors', its three parameters and the structure :func:`run_row` starts with.
_GRID_STRUCTURE = (
    "depth",
    "branching_factor",
    "merge_factor",
    "total_steps",
    "closure_size",
    "exposed_pct",
    "invalidation_depth",
    "predicted_pfw",
)


def _grid_rows(configs: list[tuple[int, int, int]], cells: list[LaidOutRun], runs: PolicyRuns) -> Rows:
    """The grid's rows: each configuration's structure, read from its columns, then :func:`run_row`'s executor columns.

    The same rows, columns and types as :func:`run_row` on each
    configuration's :class:`~cvlib.scenarios.setup.ScenarioRun`, with the
    same errors for executors whose names a run or a row cannot hold.
    """
    check_executor_names("D2", runs.names)
    per_policy = [(policy_column(p, m), runs.column(p, m)) for m in ROW_METRICS for p in runs.names]
    clash = sorted(set(_GRID_STRUCTURE[3:]) & {name for name, _ in per_policy})
    if clash:
        raise ParameterError(f"an executor's columns {clash} collide with the row's own; rename the policy")
    breaks = cells[0].break_ticks() if cells else {}  # one D2 world for every shape
    structure = []
    for (d, bf, mf), cell in zip(configs, cells):
        n, size = cell.columns.run_starts[-1], cell.closure_size
        predicted = predicted_pfw_columns(cell.columns, breaks)
        structure.append((d, bf, mf, n, size, 100.0 * size / n, cell.invalidation_depth, predicted))
    executors_and_budget = zip(*[column for _, column in per_policy], [cell.budget for cell in cells])
    names = (*_GRID_STRUCTURE, *(name for name, _ in per_policy), "budget")
    return Rows(names, tuple([s + e for s, e in zip(structure, executors_and_budget)]))


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
    import pandas as pd

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
    import pandas as pd

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
    import pandas as pd

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
