"""Budget windows (cvlib.experiments.windows): where only the validity-aware executor completes, and how it is written."""

from __future__ import annotations

import pytest

import cvlib as cv
from cvlib.experiments import windows
from cvlib.scenarios.named import setup_scenario


def test_published_budgets_count_down_from_the_computed_budget() -> None:
    assert list(windows.published_budgets(10)) == [10, 9, 8, 7, 6, 5]
    assert list(windows.published_budgets(3)) == [3, 2, 1]  # never below 1


def test_window_text_writes_contiguous_gappy_and_empty_windows() -> None:
    assert windows.window_text([8, 6, 7]) == "6-8"
    assert windows.window_text([4, 6]) == "4,6"
    assert windows.window_text([5]) == "5-5"
    assert windows.window_text([]) == "none"


def test_outcomes_by_budget_runs_each_budget_in_the_order_given() -> None:
    setup = setup_scenario("A", depth=4, change_tick=1)
    outcomes = windows.outcomes_by_budget(setup, [100, 0])
    assert [o.budget for o in outcomes] == [100, 0]
    assert outcomes[0].completed("baseline") and outcomes[0].completed("validity_aware")
    assert not outcomes[1].completed("baseline") and not outcomes[1].completed("validity_aware")
    assert outcomes[0].steps("baseline") < 100  # an unconstrained run uses what it needs, not the budget
    with pytest.raises(cv.ParameterError):
        windows.outcomes_by_budget(setup, [-1])


def test_only_validity_aware_is_the_window_condition() -> None:
    def result(name, completed, steps, budget):
        return cv.ExecutorResult(name, completed, steps, budget, 1, 0, 0, steps, 0)

    inside = windows.BudgetOutcome(7, {"baseline": result("baseline", False, 7, 7),
                                       "validity_aware": result("validity_aware", True, 6, 7)})
    outside = windows.BudgetOutcome(9, {"baseline": result("baseline", True, 9, 9),
                                        "validity_aware": result("validity_aware", True, 6, 9)})
    assert inside.only_validity_aware and not outside.only_validity_aware


def test_budget_window_is_the_gap_between_the_two_unconstrained_runs() -> None:
    setup = setup_scenario("A", depth=4, change_tick=1)
    window = windows.budget_window(setup)
    assert window["contiguous"]
    # the baseline needs every step it took; the validity-aware executor finishes with fewer
    assert window["validity_aware_steps"] < window["baseline_steps"]
    assert window["low"] == window["validity_aware_steps"] and window["high"] == window["baseline_steps"] - 1
    assert window["width"] == window["baseline_steps"] - window["validity_aware_steps"]
    # the same budgets as checking each one
    for budget in (window["low"], window["high"]):
        (outcome,) = windows.outcomes_by_budget(setup, [budget])
        assert outcome.only_validity_aware


def test_no_window_when_nothing_breaks() -> None:
    window = windows.budget_window(setup_scenario("C"))
    assert window["width"] == 0 and window["low"] is None and window["high"] is None and window["contiguous"]
