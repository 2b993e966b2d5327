"""The sweeps: tidy frames, one row per configuration, in the order given."""

from __future__ import annotations

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError

RUN_COLUMNS = {
    "total_steps", "closure_size", "exposed_pct", "invalidation_depth", "predicted_pfw", "baseline_pfw",
    "validity_aware_pfw", "baseline_steps", "validity_aware_steps", "baseline_completed", "validity_aware_completed",
    "baseline_scur", "validity_aware_scur", "budget",
}


def test_topology_grid_small():
    grid = cv.topology_grid(depths=[3, 5], branching_factors=[2], merge_factors=[1, 3], seed=0)
    assert len(grid) == 4
    assert list(zip(grid["depth"], grid["merge_factor"])) == [(3, 1), (3, 3), (5, 1), (5, 3)]
    assert {"depth", "branching_factor", "merge_factor"} | RUN_COLUMNS <= set(grid.columns)
    assert (grid["baseline_pfw"] == grid["predicted_pfw"]).all()
    assert (grid["closure_size"] == grid["total_steps"]).all()


def test_topology_grid_is_deterministic():
    kwargs = dict(depths=[4, 6], branching_factors=[2, 3], merge_factors=[2])
    assert cv.topology_grid(**kwargs).equals(cv.topology_grid(**kwargs))


def test_depth_sweep():
    frame = cv.depth_sweep([4, 2], change_tick=1)
    assert list(frame["depth"]) == [4, 2]
    assert list(frame["baseline_pfw"]) == [2, 0]
    assert list(frame["validity_aware_pfw"]) == [0, 0]


def test_isolation_sweep():
    frame = cv.isolation_sweep([2, 3], pre_merge_depth=3, post_merge_depth=1)
    assert list(frame["num_branches"]) == [2, 3]
    assert list(frame["total_steps"]) == [7, 10]
    assert list(frame["closure_size"]) == [4, 4]
    assert list(frame["baseline_pfw"]) == [3, 3]


def test_budget_sweep_default_range_follows_the_computed_budget():
    frame = cv.budget_sweep(depth=6, change_tick=2)
    natural = cv.setup_scenario("A", depth=6, change_tick=2).budget
    assert natural == 13
    assert list(frame["budget"]) == list(range(13, 7, -1))
    assert {"budget", "baseline_completed", "validity_aware_completed", "baseline_steps", "validity_aware_steps"} <= set(frame.columns)


def test_budget_sweep_custom_budgets_keep_their_order():
    frame = cv.budget_sweep(budgets=[4, 9, 6])
    assert list(frame["budget"]) == [4, 9, 6]
    assert list(frame["validity_aware_completed"]) == [False, True, True]
    assert cv.separation_window(frame) == [6]


def test_budget_sweep_default_never_goes_below_one():
    frame = cv.budget_sweep(depth=1, change_tick=0)
    assert list(frame["budget"]) == [3, 2, 1]


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda: cv.topology_grid(depths="345"), r"depths must be a list of integers, got str '345'"),
        (lambda: cv.topology_grid(depths=[]), r"depths must list at least one value"),
        (lambda: cv.topology_grid(depths=[3, 0]), r"each of depths must be >= 1, got 0"),
        (lambda: cv.depth_sweep([2.0]), r"each of depths must be an integer, got float 2.0"),
        (lambda: cv.isolation_sweep(4), r"branch_counts must be a list of integers, got int 4"),
        (lambda: cv.budget_sweep(budgets=[9, -1]), r"each of budgets must be >= 0, got -1"),
        (lambda: cv.topology_grid(seed="0"), r"seed must be an integer, got str '0'"),
    ],
)
def test_sweep_bad_arguments(call, pattern):
    with pytest.raises(ParameterError, match=pattern):
        call()
