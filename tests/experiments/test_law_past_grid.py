"""The law past the published grid: which diamonds run their action early, and what each law says there."""

from __future__ import annotations

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.experiments import errata
from cvlib.experiments.law_check import (
    CLOSED_FORM,
    DEEP_DEPTHS,
    GENERAL,
    deep_case,
    deep_sweep,
    summarize_deep,
)


def _action_index(plan) -> int:
    """Where the action sits in the order, read from the step ids and kinds alone."""
    return next(i for i, sid in enumerate(plan.topological_order()) if plan.step(sid).is_action)


@pytest.fixture(scope="module")
def faithful():
    return deep_sweep()


@pytest.fixture(scope="module")
def numeric():
    return deep_sweep(order="numeric")


def test_sweep_covers_depths_3_to_16_and_the_articles_factors(faithful):
    assert DEEP_DEPTHS == tuple(range(3, 17))
    assert [(c.depth, c.branching_factor, c.merge_factor) for c in faithful] == [
        (d, b, m) for d in range(3, 17) for b in range(1, 5) for m in range(1, 5)
    ]


def test_each_case_agrees_with_the_plan_and_a_run(faithful):
    for case in faithful:
        plan = cv.branching(case.depth, case.branching_factor, case.merge_factor, seed=0)
        assert case.steps == len(plan)
        assert case.action_position == _action_index(plan)
        assert case.closed_form_pfw == case.steps - 1  # every step holds the root fact; the broken tick is 0
        assert case.measured_pfw == cv.run_scenario(
            "D2", depth=case.depth, branching_factor=case.branching_factor, merge_factor=case.merge_factor
        ).baseline.pre_failure_work
        assert case.never_run == case.steps - 1 - case.action_position


def test_the_general_law_matches_every_run_and_the_closed_form_fails_exactly_where_the_action_is_early(faithful):
    for case in faithful:
        assert case.general_holds
        assert case.measured_pfw == case.action_position  # the steps before the action, all doomed at tick 0
        assert case.closed_form_holds == case.action_last


def test_summary_of_the_faithful_sweep(faithful):
    found = summarize_deep(faithful)
    affected = [c for c in faithful if c.action_position != c.steps - 1]
    assert found.configurations == 224
    assert found.cases == len(affected)
    assert found.first_depth == min(c.depth for c in affected)
    assert found.closed_form_mismatches == len(affected)
    assert found.general_mismatches == 0
    # what the original's own code gives for the same sweep (measured outside the repository)
    assert (found.first_depth, found.cases, found.closed_form_mismatches) == (11, 10, 10)
    assert {(c.depth, c.branching_factor, c.merge_factor) for c in affected} == {
        (11, 2, 1), (11, 3, 1), (11, 4, 1), (12, 2, 1), (12, 3, 1), (12, 4, 1),
        (13, 2, 1), (14, 2, 1), (15, 2, 1), (16, 2, 1),
    }


def test_published_grid_is_unaffected(faithful):
    assert all(c.action_last for c in faithful if c.depth <= 8)


def test_numeric_order_restores_the_law(numeric):
    found = summarize_deep(numeric)
    assert (found.cases, found.closed_form_mismatches, found.general_mismatches, found.first_depth) == (0, 0, 0, None)
    assert all(c.measured_pfw == c.steps - 1 for c in numeric)


def test_a_later_break_keeps_the_general_law_exact():
    for tick in (0, 5, 40, 68, 70, 80):
        case = deep_case(11, 2, 1, change_tick=tick)
        assert case.general_holds
        assert case.measured_pfw == max(0, case.action_position - tick)


def test_sweep_refuses_bad_input():
    with pytest.raises(ParameterError, match="order must be one of"):
        deep_sweep(order="alphabetical")
    with pytest.raises(ParameterError, match="depths must list at least one value"):
        deep_sweep(depths=[])
    with pytest.raises(ParameterError, match="change_tick must be >= 0"):
        deep_sweep(change_tick=-1)


def test_findings_and_tables(faithful, numeric):
    found = errata.deep_findings(faithful, numeric)
    assert found["X5_deep_first_depth"] == 11
    assert found["X5_deep_cases"] == 10
    assert found["X5_deep_original_mismatches"] == 10
    assert found["X5_deep_numeric_mismatches"] == 0
    assert found["X5_deep_general_mismatches"] == 0
    assert (found["X5_deep_depth_low"], found["X5_deep_depth_high"], found["X5_deep_grid_depth"]) == (3, 16, 8)
    example = errata.deep_example(faithful)
    assert (example.depth, example.branching_factor, example.merge_factor) == (11, 2, 1)
    assert found["X5_deep_example_before"] + found["X5_deep_example_after"] + 1 == found["X5_deep_example_steps"]
    frame = errata.deep_frame(faithful)
    assert len(frame) == 10 and not frame["closed_form_holds"].any() and frame["general_holds"].all()
    assert (frame["article_pfw"] - frame["measured_pfw"]).tolist() == frame["never_run"].tolist()
    assert len(errata.deep_frame(faithful, affected_only=False)) == 224
    summary = errata.deep_summary_frame({"string": faithful, "numeric": numeric}).set_index("order")
    assert summary.loc["string", "cases"] == 10 and summary.loc["numeric", "cases"] == 0
    with pytest.raises(ParameterError):
        errata.deep_findings([], numeric)
    with pytest.raises(ParameterError):
        errata.deep_example([])


def test_example_falls_back_to_the_last_diamond_when_none_is_affected():
    cases = deep_sweep(depths=[3, 4])
    assert errata.deep_example(cases) == cases[-1]
    assert errata.deep_findings(cases, cases)["X5_deep_first_depth"] is None


def test_check_law_names_the_law_each_case_checks():
    table = cv.check_law(cv.LAW_CASES + cv.DEEP_LAW_CASES)
    published = table.iloc[: len(cv.LAW_CASES)]
    deep = table.iloc[len(cv.LAW_CASES) :]
    assert (published["law"] == CLOSED_FORM).all()
    assert (published["expected_pfw"] == published["closed_form_pfw"]).all()
    assert (deep["law"] == GENERAL).all()
    assert (deep["expected_pfw"] < deep["closed_form_pfw"]).all()
    assert table["match"].all()
    assert (deep["expected_pfw"] == deep["action_position"]).all()


def test_closed_form_applies():
    assert cv.closed_form_applies(cv.chain(5), "F1")
    assert cv.closed_form_applies(cv.multi_branch(3, 4, 2), "F2")
    assert cv.closed_form_applies(cv.branching(8, 2, 2), "F1")
    assert not cv.closed_form_applies(cv.branching(11, 2, 1), "F1")
    assert cv.closed_form_applies(cv.branching(11, 2, 1).with_tie_break("numeric"), "F1")
    with pytest.raises(cv.UnknownFactError):
        cv.closed_form_applies(cv.chain(3), "F9")


def test_sweep_factors_are_the_articles_grid_factors():
    from cvlib.experiments.article import GRID_BRANCHING, GRID_MERGING
    from cvlib.experiments.law_check import DEEP_FACTORS

    assert DEEP_FACTORS == GRID_BRANCHING == GRID_MERGING
