"""The execution order's tie-break: the string order is the original's, the numeric one an option."""

from __future__ import annotations

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.core.graph import TIE_BREAKS, PlanGraph, Step, numeric_id_key
from cvlib.core.rules import ORIGINAL, ExecutionRules
from cvlib.core.trace import trace_run


def _plain_kahn(plan: PlanGraph, key=lambda step_id: step_id) -> list[str]:
    """Kahn's algorithm written as the original writes it: sort the ready list, take the first."""
    steps = plan.steps
    waiting = {s.id: len(s.predecessors) for s in steps.values()}
    after: dict[str, list[str]] = {sid: [] for sid in steps}
    for s in steps.values():
        for p in s.predecessors:
            after[p].append(s.id)
    ready = [sid for sid, d in waiting.items() if d == 0]
    order = []
    while ready:
        ready.sort(key=key)
        current = ready.pop(0)
        order.append(current)
        for succ in after[current]:
            waiting[succ] -= 1
            if waiting[succ] == 0:
                ready.append(succ)
    return order


def _is_topological(plan: PlanGraph, order: list[str]) -> bool:
    seen: set[str] = set()
    for sid in order:
        if not set(plan.step(sid).predecessors) <= seen:
            return False
        seen.add(sid)
    return len(seen) == len(plan)


@pytest.mark.parametrize("depth", range(3, 17))
def test_default_order_is_the_originals_string_order_past_the_grid(depth):
    for bf in range(1, 5):
        for mf in range(1, 5):
            plan = cv.branching(depth, bf, mf, seed=0)
            assert plan.topological_order() == _plain_kahn(plan)
            assert plan.with_tie_break("string") is plan


@pytest.mark.parametrize("depth", range(3, 17))
def test_numeric_order_is_a_valid_order_that_runs_the_action_last(depth):
    for bf in range(1, 5):
        for mf in range(1, 5):
            plan = cv.branching(depth, bf, mf, seed=0)
            numeric = plan.with_tie_break("numeric")
            order = numeric.topological_order()
            assert order == _plain_kahn(plan, numeric_id_key)
            assert _is_topological(plan, order)
            assert numeric.step_at(len(numeric) - 1).is_action
            assert sorted(order) == sorted(plan.topological_order())


def test_string_order_runs_the_action_before_steps_of_layer_nine_at_depth_eleven():
    plan = cv.branching(11, 2, 1, seed=0)
    order = plan.topological_order()
    action = order.index("L10_0")
    assert action < len(order) - 1
    assert all(sid.startswith("L9_") for sid in order[action + 1 :])
    assert "L10_0" < "L9_5" and numeric_id_key("L9_5") < numeric_id_key("L10_0")


def test_numeric_key_reads_digit_runs_as_numbers_and_falls_back_to_the_string():
    ids = ["L10_0", "L2_10", "L2_9", "S10", "S9", "B1_0", "B10_0", "x", "L01", "L1"]
    assert sorted(ids, key=numeric_id_key) == ["B1_0", "B10_0", "L01", "L1", "L2_9", "L2_10", "L10_0", "S9", "S10", "x"]


def test_numeric_reorder_keeps_steps_closures_and_facts():
    plan = cv.multi_branch(3, 12, 2)  # branch ids B10_ … B11_ sort before B2_ as strings
    numeric = plan.with_tie_break("numeric")
    assert numeric.topological_order()[:3] == ["B0_0", "B0_1", "B0_2"]
    assert numeric.topological_order()[3] == "B1_0"
    assert plan.topological_order()[3] == "B10_0"
    assert numeric.facts == plan.facts
    assert {s.id: numeric.closure(s.id) for s in plan} == {s.id: plan.closure(s.id) for s in plan}
    for fact in plan.facts:
        assert numeric.closure_size(fact) == plan.closure_size(fact)
        assert numeric.invalidation_depth(fact) == plan.invalidation_depth(fact)


def test_hand_built_plan_reorders_too():
    plan = PlanGraph([Step("S10", "plan", {"F1"}), Step("S9", "plan", {"F2"}), Step("S11", "action", set(), ("S10", "S9"))])
    assert plan.topological_order() == ["S10", "S9", "S11"]
    assert plan.with_tie_break("numeric").topological_order() == ["S9", "S10", "S11"]


def test_unknown_tie_breaks_are_refused():
    with pytest.raises(ParameterError, match="tie_break must be one of string, numeric, got 'alphabetical'"):
        cv.chain(3).with_tie_break("alphabetical")
    with pytest.raises(ParameterError, match="order must be one of"):
        ExecutionRules(order="alphabetical")
    assert TIE_BREAKS == ("string", "numeric")


def test_rules_default_is_the_string_order_and_the_article():
    assert ExecutionRules().order == "string"
    assert ExecutionRules(order="string") == ORIGINAL
    assert not ExecutionRules(order="numeric").is_original


def test_numeric_rules_restore_closure_size_minus_one_on_a_deep_diamond():
    setup = cv.setup_scenario("D2", depth=11, branching_factor=2, merge_factor=1)
    faithful = setup.run().baseline.pre_failure_work
    numeric = setup.run(rules=ExecutionRules(order="numeric")).baseline.pre_failure_work
    n = len(setup.plan)
    assert faithful == setup.plan.topological_order().index("L10_0") < n - 1
    assert numeric == n - 1


def test_numeric_rules_change_nothing_where_the_action_is_already_last():
    for name in ("A", "C", "D1", "D2", "D3", "E1", "E2"):
        assert cv.run_scenario(name).to_dict() == {
            k: v for k, v in cv.run_scenario(name, rules=ExecutionRules(order="numeric")).to_dict().items() if k != "rules"
        }


def test_trace_names_the_steps_of_the_order_the_rules_run():
    setup = cv.setup_scenario("D2", depth=11, branching_factor=2, merge_factor=1)
    faithful = trace_run(setup, "baseline")
    numeric = trace_run(setup, "baseline", rules=ExecutionRules(order="numeric"))
    assert faithful.entries[-1].step_id == numeric.entries[-1].step_id == "L10_0"
    ran = [e.step_id for e in numeric.entries]
    assert "L9_7" in ran and "L9_7" not in [e.step_id for e in faithful.entries]
