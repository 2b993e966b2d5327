"""cvlib's side of every row of the reproduce page's "Departures from the original" table.

The original's side of each row was read from its code and run outside the
repository; here each test pins what cvlib does with the same input, and the
last test keeps the table and these tests in step.
"""

from __future__ import annotations

import re

import pytest

import cvlib as cv
from cvlib.core.errors import CvlibError, ParameterError, SizeLimitError, UnknownFactError, UnknownStepError
from cvlib.core.graph import PlanGraph, Step

#: The first cell of each row of the table, in order.
ROWS = (
    "A negative `change_tick` (scenarios A, D1, D2, D3, E1, E2)",
    "A negative budget (`budget_override`, `budget`)",
    "Negative budgets in a budget sweep's list",
    "An empty budget list (`budget_sweep_A(budgets=[])`)",
    "Empty depth, branching or merge lists (`topology_parameter_grid`)",
    "`branching_factor=0`",
    "A negative `branching_factor`, or `merge_factor` of 0 or below",
    "A non-integer seed (`1.5`, `\"abc\"`, `True`)",
    "A non-integer change tick (`1.5`, `True`)",
    "A non-integer budget (`8.5`)",
    "A non-integer depth (`4.0`, `True`)",
    "`expected_pfw` on a fact no step holds",
    "`expected_pfw` with a negative change tick",
    "A plan of any size",
    "A duplicate step id",
    "A step kind other than plan, decision or action (`\"actoin\"`)",
    "A plan with no steps",
    "An event of an unknown kind",
    "An event on a fact the world does not hold",
    "A predecessor that is not a step of the plan",
)


def _refused(error: type[CvlibError], pattern: str, call, *args, **kwargs) -> None:
    with pytest.raises(error, match=pattern) as caught:
        call(*args, **kwargs)
    assert "\n" not in str(caught.value), "a one-line error"


@pytest.mark.parametrize("scenario", ["A", "D1", "D2", "D3", "E1", "E2"])
def test_negative_change_tick_is_refused_not_read_as_zero(scenario):
    _refused(ParameterError, r"change_tick must be >= 0, got -3", cv.run_scenario, scenario, change_tick=-3)
    _refused(ParameterError, r"event tick must be >= 0, got -3", cv.Event, -3, "F1", cv.EventKind.REPLACE)
    assert cv.run_scenario(scenario, change_tick=0).baseline.steps_used > 0  # tick 0 itself is fine


def test_negative_budget_is_refused_even_where_the_original_would_complete():
    _refused(ParameterError, r"budget must be >= 0, got -1", cv.run_scenario, "A", budget=-1)
    # the original completes this one (a one-step plan whose action succeeds); cvlib refuses it too
    _refused(ParameterError, r"budget must be >= 0, got -1", cv.run_scenario, "A", depth=1, change_tick=1, budget=-1)
    assert cv.run_scenario("A", budget=0).baseline.completed is False


def test_negative_budgets_in_a_sweep_are_refused():
    _refused(ParameterError, r"each of budgets must be >= 0, got -1", cv.budget_sweep, budgets=[9, -1])


def test_empty_budget_list_is_refused():
    _refused(ParameterError, r"budgets must list at least one value", cv.budget_sweep, budgets=[])
    assert cv.budget_sweep()["budget"].tolist() == [9, 8, 7, 6, 5, 4]  # None is the published sweep


@pytest.mark.parametrize("empty", ["depths", "branching_factors", "merge_factors"])
def test_empty_grid_lists_are_refused(empty):
    lists = {"depths": [3], "branching_factors": [1], "merge_factors": [1], empty: []}
    _refused(ParameterError, rf"{empty} must list at least one value", cv.topology_grid, **lists)


def test_branching_factor_zero_is_refused():
    _refused(ParameterError, r"branching_factor must be >= 1, got 0", cv.branching, 4, 0, 2)
    _refused(ParameterError, r"branching_factor must be >= 1, got 0", cv.run_scenario, "D2", branching_factor=0)


@pytest.mark.parametrize(("bf", "mf", "name", "value"), [(-2, 2, "branching_factor", -2), (2, 0, "merge_factor", 0), (2, -1, "merge_factor", -1)])
def test_other_factors_below_one_are_refused(bf, mf, name, value):
    _refused(ParameterError, rf"{name} must be >= 1, got {value}", cv.branching, 4, bf, mf)


@pytest.mark.parametrize("seed", [1.5, "abc", True])
def test_non_integer_seeds_are_refused(seed):
    _refused(ParameterError, r"seed must be an integer", cv.run_scenario, "D2", seed=seed)
    _refused(ParameterError, r"seed must be an integer", cv.branching, 6, 3, 2, seed=seed)


@pytest.mark.parametrize("tick", [1.5, True])
def test_non_integer_change_ticks_are_refused(tick):
    _refused(ParameterError, r"change_tick must be an integer", cv.run_scenario, "A", change_tick=tick)


def test_non_integer_budget_is_refused():
    _refused(ParameterError, r"budget must be an integer, got float 8.5", cv.run_scenario, "A", budget=8.5)


@pytest.mark.parametrize("depth", [4.0, True])
def test_non_integer_depths_are_refused(depth):
    _refused(ParameterError, r"depth must be an integer", cv.run_scenario, "A", depth=depth)
    _refused(ParameterError, r"depth must be an integer", cv.chain, depth)


def test_closed_form_on_a_fact_the_plan_does_not_hold_is_refused():
    _refused(UnknownFactError, r"'F9' is not required by any step", cv.predicted_pfw_single, cv.chain(4), "F9", 0)
    # the general law takes a schedule: a break of a fact no step holds dooms nothing
    assert cv.predicted_pfw(cv.chain(4), {"F9": 0}) == 0
    assert cv.predicted_pfw(cv.chain(4), {"F9": 0, "F1": 0}) == 3


def test_closed_form_with_a_negative_tick_is_refused():
    _refused(ParameterError, r"change_tick must be >= 0, got -2", cv.predicted_pfw_single, cv.chain(4), "F1", -2)


def test_plans_above_the_size_limit_are_refused_and_the_limit_can_be_raised():
    _refused(SizeLimitError, r"20,000,000 steps; the limit is 10,000,000", cv.chain, 20_000_000)
    with cv.size_limits(steps=100):
        _refused(SizeLimitError, r"the limit is 100", cv.chain, 101)
    with cv.size_limits(steps=20):
        assert len(cv.chain(20)) == 20


def test_duplicate_step_ids_are_refused():
    _refused(ParameterError, r"duplicate step id 'a'", PlanGraph, [Step("a", "plan", {"F1"}), Step("a", "action")])


def test_unknown_step_kinds_are_refused():
    _refused(ParameterError, r"kind 'actoin'; expected one of plan, decision, action", Step, "b", "actoin")


def test_empty_plans_are_refused():
    _refused(ParameterError, r"a plan needs at least one step", PlanGraph, [])


def test_events_of_unknown_kind_are_refused_when_made():
    _refused(ParameterError, r"unknown event kind 'explode'", cv.Event, 99, "F1", "explode")


def test_events_on_facts_the_world_does_not_hold_are_refused_when_the_world_is_made():
    _refused(UnknownFactError, r"names fact 'F9', which the world does not hold",
             cv.World, [cv.Fact("F1", 1)], [cv.Event(3, "F9", cv.EventKind.REPLACE)])


def test_unknown_predecessors_are_refused_naming_both_steps():
    _refused(UnknownStepError, r"step 'a' comes after 'zz'", PlanGraph, [Step("a", "plan", {"F1"}, ("zz",))])


def test_the_reproduce_page_lists_exactly_these_rows():
    page = (cv.paths.project_root() / "book" / "reproduce.md").read_text(encoding="utf-8")
    section = page.split("## Departures from the original", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    firsts = [re.split(r" \| ", row[2:], maxsplit=1)[0] for row in rows[1:]]  # rows[0] is the header
    assert tuple(firsts) == ROWS
    assert all(len(row.split(" | ")) == 4 for row in rows), "four columns: input, the original, cvlib, why"
