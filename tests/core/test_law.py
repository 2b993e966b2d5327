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


def test_the_law_on_masks_is_the_law_on_the_plan():
    """predicted_pfw_masks against predicted_pfw on hand-made plans: several facts, breaks before, at and after the action."""
    import random

    rng = random.Random(3)
    for _ in range(400):
        n = rng.randint(1, 12)
        steps = []
        for i in range(n):
            preds = tuple(f"S{p}" for p in sorted(rng.sample(range(i), rng.randint(0, min(i, 2)))))
            own = frozenset(f"F{k + 1}" for k in rng.sample(range(4), rng.randint(0, 2)))
            if not preds and not own:
                own = frozenset({"F1"})
            kind = StepKind.ACTION if rng.random() < 0.2 or i == n - 1 else StepKind.DECISION
            steps.append(Step(f"S{i}", kind, own, preds))
        plan = PlanGraph(steps)
        columns = plan.run_columns()
        masks = [sum(1 << (int(f[1:]) - 1) for f in closure) for closure in columns.closures]
        first = columns.actions[0] if columns.actions else len(masks)
        breaks = {f"F{k + 1}": rng.randint(0, n + 1) for k in range(4) if rng.random() < 0.6}
        as_masks = [(tick, 1 << (int(f[1:]) - 1)) for f, tick in breaks.items()]
        assert cv.predicted_pfw(plan, breaks) == cv.core.law.predicted_pfw_masks(masks, first, as_masks)


def test_the_law_on_masks_counts_stretches_between_breaks():
    from cvlib.core.law import predicted_pfw_masks

    masks = [1, 1, 2, 3, 2, 1]
    assert predicted_pfw_masks(masks, 6, []) == 0
    assert predicted_pfw_masks(masks, 6, [(0, 1)]) == 4  # every step holding F1
    assert predicted_pfw_masks(masks, 6, [(3, 2)]) == 2  # positions 3 and 4
    assert predicted_pfw_masks(masks, 4, [(3, 2), (0, 1)]) == 3  # stops at the action at 4
    assert predicted_pfw_masks(masks, 6, [(9, 1)]) == 0  # after the plan
