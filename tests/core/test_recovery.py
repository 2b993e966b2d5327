"""Recovery models (X1): hand-checked costs, the chain identity, the window law, the multi-action PFW law."""

from __future__ import annotations

import pytest
from _strategies import plans, schedules
from hypothesis import given
from hypothesis import strategies as st

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.core.events import Event, EventKind
from cvlib.core.executors import run_baseline, run_validity_aware
from cvlib.core.facts import Fact
from cvlib.core.law import predicted_pfw
from cvlib.core.recovery import committed_by, redo_cost
from cvlib.core.rules import ExecutionRules
from cvlib.core.world import World
from cvlib.experiments.recovery_windows import budget_window, window_surface
from cvlib.scenarios.builders import staged_setup
from cvlib.scenarios.generators import action_positions, chain

REDO = ExecutionRules(recovery="redo_affected")
SUBPLAN = ExecutionRules(recovery="subplan")


def test_redo_cost_counts_executed_steps_resting_on_refreshed_facts():
    closures = [frozenset({"F1"}), frozenset({"F1"}), frozenset({"F2"}), frozenset({"F1", "F2"})]
    assert redo_cost("redo_affected", closures, [0, 1, 2], set(), {"F1"}) == 3  # steps 0, 1 + replan
    assert redo_cost("redo_affected", closures, [0, 1, 2], set(), {"F2"}) == 2  # step 2 + replan
    assert redo_cost("subplan", closures, [0, 1, 2], {0, 1}, {"F1"}) == 1  # committed steps stay done
    assert redo_cost("redo_affected", closures, [0, 1, 2], {0, 1}, {"F1"}) == 3  # ignores what is done


def test_redo_cost_refuses_flat():
    with pytest.raises(ParameterError, match="redo_affected or subplan"):
        redo_cost("flat", [], [], set(), set())


def test_committed_by_is_the_action_and_its_ancestors():
    plan = chain(6, num_actions=2)
    assert committed_by(plan, "S2") == {"S0", "S1", "S2"}


def test_staged_chain_is_the_chain_with_actions_spaced_out():
    steps = [(s.id, s.kind.value, set(s.requires), s.predecessors) for s, _ in chain(6, num_actions=2).ordered_steps()]
    assert steps == [
        ("S0", "plan", {"F1"}, ()), ("S1", "decision", set(), ("S0",)), ("S2", "action", set(), ("S1",)),
        ("S3", "decision", set(), ("S2",)), ("S4", "decision", set(), ("S3",)), ("S5", "action", set(), ("S4",)),
    ]
    assert action_positions(6, 2) == [2, 5]
    assert action_positions(7, 3) == [2, 4, 6]
    with pytest.raises(ParameterError, match="num_actions must be at most depth"):
        chain(2, num_actions=3)


def test_scenario_a_under_redo_affected():
    run = cv.run_scenario("A", rules=REDO)
    # baseline: 4 steps, redo S0-S2 (3) + 1, retry the action (1) = 9; validity-aware: S0, redo S0 + 1, S1-S3 = 6
    assert (run.baseline.steps_used, run.validity_aware.steps_used) == (9, 6)
    assert (run.baseline.pre_failure_work, run.validity_aware.pre_failure_work) == (2, 0)
    assert run.baseline.completed and run.validity_aware.completed


def test_subplan_keeps_a_successful_action_done():
    # depth 6, actions at S2 and S5; F1 replaced at tick 4, after the first action succeeded
    setup = staged_setup(6, 2, 4)
    redo = setup.run(rules=REDO)
    sub = setup.run(rules=SUBPLAN)
    # validity-aware detects at S4 having executed S0-S3: redo_affected redoes 4, subplan only S3
    assert redo.validity_aware.steps_used == 6 + 4 + 1
    assert sub.validity_aware.steps_used == 6 + 1 + 1
    assert sub.baseline.steps_used < redo.baseline.steps_used


@given(st.integers(1, 9), st.integers(0, 9))
def test_on_chains_redo_affected_costs_exactly_what_flat_costs(depth, tick):
    setup = cv.setup_scenario("A", depth=depth, change_tick=tick)
    flat, redo = setup.run(), setup.run(rules=REDO)
    assert flat.baseline.steps_used == redo.baseline.steps_used
    assert flat.validity_aware.steps_used == redo.validity_aware.steps_used


@given(st.integers(1, 8), st.integers(1, 4), st.integers(0, 8), st.sampled_from(["flat", "redo_affected", "subplan"]))
def test_window_width_is_baseline_pfw_plus_one(depth, num_actions, tick, model):
    if num_actions > depth or tick >= depth or (model == "flat" and num_actions > 1):
        return
    setup = staged_setup(depth, num_actions, tick)
    window = budget_window(setup, ExecutionRules(recovery=model))
    pfw = predicted_pfw(setup.plan, {"F1": tick}, through_actions=model != "flat")
    assert window["contiguous"]
    assert window["width"] == pfw + 1


def test_isolated_branches_separate_flat_from_redo():
    # flat lets the validity-aware run end after its replan, skipping the unrelated branches,
    # so the flat window grows with plan size; the redo window stays at PFW + 1
    widths = {
        b: (
            budget_window(cv.setup_scenario("D3", num_branches=b), ExecutionRules())["width"],
            budget_window(cv.setup_scenario("D3", num_branches=b), REDO)["width"],
        )
        for b in (1, 8)
    }
    assert widths == {1: (8, 8), 8: (50, 8)}


@given(plans(max_steps=9), st.data())
def test_multi_action_pfw_law_holds_when_breaks_precede_the_first_action(plan, data):
    order = [s for s, _ in plan.ordered_steps()]
    first_action = next(i for i, s in enumerate(order) if s.is_action)
    facts = sorted(plan.facts)
    broken = data.draw(st.lists(st.sampled_from(facts), unique=True, max_size=len(facts)))
    events = tuple(Event(data.draw(st.integers(0, first_action)), f, EventKind.REPLACE, new_value=1) for f in broken)
    world_facts = [Fact(f, 0) for f in ("F1", "F2", "F3")]
    for rules in (REDO, SUBPLAN):
        world = World(world_facts, events, rules=rules)
        result = run_baseline(plan, world, facts[0], 10_000)
        assert result.completed
        assert result.pre_failure_work == predicted_pfw(plan, cv.break_ticks(events), through_actions=True)


@given(plans(max_steps=9), st.integers(0, 12), st.data())
def test_multi_action_pfw_law_holds_for_any_single_break(plan, tick, data):
    fact = data.draw(st.sampled_from(sorted(plan.facts)))
    events = (Event(tick, fact, EventKind.REPLACE, new_value=1),)
    world = World([Fact(f, 0) for f in ("F1", "F2", "F3")], events, rules=SUBPLAN)
    result = run_baseline(plan, world, fact, 10_000)
    assert result.pre_failure_work == predicted_pfw(plan, {fact: tick}, through_actions=True)


def test_validity_aware_never_does_doomed_work_under_any_recovery_model():
    for model in ("redo_affected", "subplan"):
        surface = window_surface([3, 5], [0, 2], models=[model], num_actions=2)
        assert (surface["width"] == surface["predicted_pfw"] + 1).all()
        for depth, tick in [(5, 0), (5, 2), (5, 4)]:
            assert staged_setup(depth, 2, tick).run(rules=ExecutionRules(recovery=model)).validity_aware.pre_failure_work == 0


@given(plans(max_steps=9), schedules(), st.sampled_from(["redo_affected", "subplan"]), st.data())
def test_validity_aware_does_no_doomed_work_under_carrying_on_recovery(plan, events, model, data):
    facts = [Fact(f, 0, valid_until=data.draw(st.one_of(st.none(), st.integers(0, 6)))) for f in ("F1", "F2", "F3")]
    at_risk = data.draw(st.sampled_from(sorted(plan.facts)))
    world = World(facts, events, rules=ExecutionRules(recovery=model))
    result = run_validity_aware(plan, world, at_risk, 10_000)
    assert result.pre_failure_work == 0
    assert result.completed
