"""The closed-form PFW law: predictions from structure alone, and the 15-case check."""

from __future__ import annotations

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError, UnknownFactError
from cvlib.core.events import Event, EventKind
from cvlib.core.graph import PlanGraph, Step, StepKind


def test_break_ticks_keeps_the_earliest_real_break_only():
    events = [
        Event(3, "F1", EventKind.REPLACE, new_value=1),
        Event(1, "F1", EventKind.AMBIGUOUS, ground_truth_changed=True),
        Event(0, "F2", EventKind.AMBIGUOUS, ground_truth_changed=False),
        Event(2, "F3", EventKind.REPLACE),
    ]
    assert cv.break_ticks(events) == {"F1": 1, "F3": 2}
    assert cv.break_ticks([]) == {}


@pytest.mark.parametrize(("tick", "expected"), [(0, 3), (1, 2), (2, 1), (3, 0), (4, 0), (50, 0)])
def test_single_fact_law_on_a_chain(tick, expected):
    plan = cv.chain(4)
    assert cv.predicted_pfw_single(plan, "F1", tick) == expected
    assert cv.predicted_pfw(plan, {"F1": tick}) == expected


def test_prediction_with_nothing_broken_is_zero():
    assert cv.predicted_pfw(cv.chain(6), {}) == 0


def test_prediction_counts_only_steps_holding_a_broken_fact():
    plan = cv.multi_branch(3, 2, 2)  # order: B0_0 B0_1 B0_2 B1_0 B1_1 B1_2 M0 M1
    assert cv.predicted_pfw(plan, {"F2": 0}) == 3 + 1  # B1_* and M0
    assert cv.predicted_pfw(plan, {"F1": 0}) == 3 + 1
    assert cv.predicted_pfw(plan, {"F1": 0, "F2": 0}) == 7
    assert cv.predicted_pfw(plan, {"F2": 4}) == 2 + 1  # B1_1 (position 4), B1_2, M0


def test_prediction_stops_at_the_first_action():
    plan = PlanGraph(
        [
            Step("a", StepKind.PLAN, frozenset({"F1"})),
            Step("b", StepKind.ACTION, predecessors=("a",)),
            Step("c", StepKind.DECISION, predecessors=("a",)),
        ]
    )
    assert plan.topological_order() == ["a", "b", "c"]
    assert cv.predicted_pfw(plan, {"F1": 0}) == 1
    # the article's single-fact form assumes the action is last and counts c too
    assert cv.predicted_pfw_single(plan, "F1", 0) == 2


def test_single_fact_law_errors():
    with pytest.raises(UnknownFactError, match="'F9'"):
        cv.predicted_pfw_single(cv.chain(3), "F9", 0)
    with pytest.raises(ParameterError, match="change_tick must be >= 0, got -2"):
        cv.predicted_pfw_single(cv.chain(3), "F1", -2)


def test_law_cases_are_the_published_15():
    labels = [label for label, _, _ in cv.LAW_CASES]
    assert len(labels) == 15 == len(set(labels))
    scenarios = [s for _, s, _ in cv.LAW_CASES]
    assert scenarios.count("D1") == 5 and scenarios.count("A") == 4
    assert scenarios.count("D2") == 3 and scenarios.count("D3") == 3
    assert sorted(p["depth"] for _, s, p in cv.LAW_CASES if s == "D1") == [1, 2, 3, 5, 10]
    assert sorted(p["change_tick"] for _, s, p in cv.LAW_CASES if s == "A") == [0, 1, 2, 3]
    assert [p["num_branches"] for _, s, p in cv.LAW_CASES if s == "D3"] == [1, 4, 8]


def test_check_law_table():
    table = cv.check_law()
    assert {"case", "scenario", "closure_size", "change_tick", "expected_pfw", "actual_pfw", "match"} <= set(table.columns)
    assert table["match"].all()
    assert list(table["expected_pfw"]) == [0, 1, 2, 4, 9, 3, 2, 1, 0, 5, 24, 29, 7, 7, 7]


def test_check_law_on_custom_cases():
    table = cv.check_law([("long chain late break", "A", {"depth": 12, "change_tick": 5})])
    assert table.loc[0, "expected_pfw"] == table.loc[0, "actual_pfw"] == 6


@pytest.mark.parametrize(("label", "scenario", "params"), cv.LAW_CASES, ids=[c[0] for c in cv.LAW_CASES])
def test_general_and_single_fact_predictions_agree_on_published_cases(label, scenario, params):
    setup = cv.setup_scenario(scenario, **params)
    ticks = cv.break_ticks(setup.events)
    assert cv.predicted_pfw(setup.plan, ticks) == cv.predicted_pfw_single(setup.plan, setup.at_risk, ticks[setup.at_risk])
