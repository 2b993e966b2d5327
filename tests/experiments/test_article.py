"""The article's sweeps (cvlib.experiments.article): their rows, their defaults and the laws the rows must obey."""

from __future__ import annotations

import pandas as pd
import pytest

import cvlib as cv
from cvlib.experiments import article
from cvlib.scenarios.named import run_scenario


def test_run_row_flattens_both_executors_and_the_structure() -> None:
    run = run_scenario("D1", depth=3, change_tick=0)
    row = article.run_row(run)
    assert row["total_steps"] == run.structure.total_steps
    assert row["baseline_pfw"] == run.baseline.pre_failure_work
    assert row["validity_aware_pfw"] == run.validity_aware.pre_failure_work == 0
    assert row["predicted_pfw"] == row["baseline_pfw"]  # the law, on a chain broken at the start
    assert row["budget"] == run.baseline.budget
    assert all(not isinstance(v, (list, dict)) for v in row.values())  # a flat row of numbers


def test_depth_sweep_has_one_row_per_depth_and_pfw_grows_with_depth() -> None:
    table = article.depth_sweep((1, 2, 5))
    assert list(table["depth"]) == [1, 2, 5]
    assert list(table["baseline_pfw"]) == sorted(table["baseline_pfw"])
    assert table["baseline_pfw"].iloc[-1] > table["baseline_pfw"].iloc[0]
    assert (table["validity_aware_pfw"] == 0).all()
    assert (table["predicted_pfw"] == table["baseline_pfw"]).all()


def test_topology_grid_covers_every_configuration_in_order() -> None:
    grid = article.topology_grid(depths=(3, 4), branching_factors=(1, 2), merge_factors=(1,))
    assert list(zip(grid["depth"], grid["branching_factor"], grid["merge_factor"])) == [(3, 1, 1), (3, 2, 1), (4, 1, 1), (4, 2, 1)]
    assert (grid["baseline_pfw"] == grid["predicted_pfw"]).all()
    # the same rows as running each configuration alone
    alone = article.run_row(run_scenario("D2", depth=4, branching_factor=2, merge_factor=1, seed=0))
    assert grid.iloc[3][list(alone)].to_dict() == alone


def test_topology_grid_default_is_the_published_96_configurations() -> None:
    assert len(article.GRID_DEPTHS) * len(article.GRID_BRANCHING) * len(article.GRID_MERGING) == 96


def test_isolation_sweep_exposure_falls_as_unrelated_branches_are_added() -> None:
    table = article.isolation_sweep((1, 4))
    assert list(table["num_branches"]) == [1, 4]
    assert table["total_steps"].iloc[1] > table["total_steps"].iloc[0]
    assert table["exposed_pct"].iloc[1] < table["exposed_pct"].iloc[0]
    assert table["baseline_pfw"].nunique() == 1  # damage does not grow with unrelated plan


def test_budget_sweep_and_its_separation_window() -> None:
    sweep = article.budget_sweep(depth=4, change_tick=1)
    assert list(sweep["budget"]) == sorted(sweep["budget"], reverse=True)
    assert len(sweep) == 6
    window = article.separation_window(sweep)
    only = sweep[sweep["validity_aware_completed"] & ~sweep["baseline_completed"]]
    assert window == [int(b) for b in only["budget"]]
    assert window, "the published sweep has a window where only the validity-aware executor completes"
    explicit = article.budget_sweep(depth=4, change_tick=1, budgets=[1, 100])
    assert list(explicit["budget"]) == [1, 100]
    assert not explicit["baseline_completed"].iloc[0] and explicit["baseline_completed"].iloc[1]


def test_separation_window_of_a_sweep_without_one_is_empty() -> None:
    both = pd.DataFrame({"budget": [5, 4], "baseline_completed": [True, True], "validity_aware_completed": [True, True]})
    assert article.separation_window(both) == []


@pytest.mark.parametrize(
    "call",
    [lambda: article.depth_sweep((0,)), lambda: article.isolation_sweep((0,)),
     lambda: article.topology_grid(depths=("3",)), lambda: article.budget_sweep(budgets=[-1])],
)
def test_bad_parameters_are_refused_with_a_parameter_error(call) -> None:
    with pytest.raises(cv.ParameterError):
        call()
