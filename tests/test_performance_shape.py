"""The linear-time core computes exactly what the step-by-step statement of the rules computes.

No timings here (those live in ``benchmarks/``): these tests pin the *shape*
of the fast paths (orders handed over by generators, the sampler, bulk
execution of plain steps, skipped syncs, shared closures) against the plain
algorithms they replace, so a speed-up can never change a result.
"""

from __future__ import annotations

import itertools
import random

import pytest

import cvlib as cv
from cvlib import Event, Fact, PlanGraph, Step, World
from cvlib.core.events import ResourceEvent, SilentChange
from cvlib.core.rules import ExecutionRules, VerificationModel
from cvlib.scenarios.generators import _sample_positions
from tests.reference_executor import reference_baseline, reference_validity_aware


def _world_state(world: World) -> list:
    return [(f.id, f.state, f.value, f.history) for f in sorted(world.facts.values(), key=lambda f: f.id)]


def _random_case(rng: random.Random):
    """A hand-rolled random plan (several facts, several actions possible) with horizons and mixed events."""
    n = rng.randint(1, 30)
    facts = [f"F{i}" for i in range(rng.randint(1, 4))]
    ids = [f"X{rng.randint(0, 99)}_{i}" for i in range(n)]
    steps = []
    for i in range(n):
        preds = tuple(rng.sample(ids[:i], rng.randint(0, min(3, i))))
        req = frozenset(rng.sample(facts, rng.randint(0, min(2, len(facts)))))
        kind = "action" if i == n - 1 or rng.random() < 0.08 else rng.choice(["plan", "decision"])
        steps.append(Step(ids[i], kind, req, preds))
    rng.shuffle(steps)
    plan = PlanGraph(steps)
    world_facts = [Fact(f, 0, valid_until=rng.randint(0, 12) if rng.random() < 0.4 else None) for f in facts]
    events = []
    for _ in range(rng.randint(0, 4)):
        f = rng.choice(facts)
        if rng.random() < 0.5:
            events.append(Event(rng.randint(0, 15), f, "replace", new_value=1))
        else:
            events.append(Event(rng.randint(0, 15), f, "ambiguous", ground_truth_changed=rng.random() < 0.5))
    return plan, world_facts, events


@pytest.mark.parametrize("seed", range(6))
def test_fast_executors_equal_the_step_by_step_rules(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for _ in range(300):
        plan, facts, events = _random_case(rng)
        if not plan.facts:
            continue
        at_risk = rng.choice(sorted(plan.facts))
        budget = cv.compute_budget(plan, at_risk) if rng.random() < 0.6 else rng.randint(0, 40)
        for fast, reference in ((cv.run_baseline, reference_baseline), (cv.run_validity_aware, reference_validity_aware)):
            w_fast, w_ref = World(facts, events), World(facts, events)
            assert fast(plan, w_fast, at_risk, budget) == reference(plan, w_ref, at_risk, budget)
            assert _world_state(w_fast) == _world_state(w_ref)
            assert w_fast.broken_facts == w_ref.broken_facts
        checked += 1
    assert checked > 250


def _random_rules(rng: random.Random) -> ExecutionRules:
    return ExecutionRules(
        recovery=rng.choice(["flat", "redo_affected", "subplan"]),
        budget_rule=rng.choice(["original", "strict"]),
        verification=VerificationModel(
            rng.choice([0.0, 0.3]), rng.choice([0.0, 0.3]), rng.choice([0, 1, 2]), seed=rng.randrange(100)
        ),
        verify_policy=rng.choice(["always", "never", "expected_cost"]),
        prior_change=rng.choice([0.1, 0.5, 0.9]),
        ttl=rng.choice([None, 0, 2, 5]),
        ttl_refresh=rng.random() < 0.5,
        checker=rng.choice(["timestamp", "dependency"]),
        launder=rng.random() < 0.2,
    )


@pytest.mark.parametrize("seed", range(8))
def test_the_fast_loop_equals_the_step_by_step_rules_under_any_rules(seed: int) -> None:
    """One loop serves every rule set: its bulk path reproduces the plain loop under random rules and worlds."""
    rng = random.Random(1000 + seed)
    checked = 0
    for _ in range(250):
        plan, facts, events = _random_case(rng)
        if not plan.facts:
            continue
        ids = [f.id for f in facts]
        rules = _random_rules(rng)
        silent = [SilentChange(rng.randint(0, 20), rng.choice(ids)) for _ in range(rng.randint(0, 2))]
        outages = [ResourceEvent(rng.randint(0, 20), rng.choice(["db", "api"]), rng.random() < 0.4) for _ in range(rng.randint(0, 3))]
        supports = {f: rng.choice(["db", "api"]) for f in ids if rng.random() < 0.5}
        at_risk = rng.choice(sorted(plan.facts))
        budget = cv.compute_budget(plan, at_risk) if rng.random() < 0.5 else rng.randint(0, 60)

        def world() -> World:
            return World(facts, events, rules=rules, silent_changes=silent, resource_events=outages, supports=supports)

        for fast, reference in ((cv.run_baseline, reference_baseline), (cv.run_validity_aware, reference_validity_aware)):
            w_fast, w_ref = world(), world()
            assert fast(plan, w_fast, at_risk, budget) == reference(plan, w_ref, at_risk, budget)
            assert _world_state(w_fast) == _world_state(w_ref)
            assert w_fast.broken_facts == w_ref.broken_facts
        checked += 1
    assert checked > 200


@pytest.mark.parametrize("seed", range(3))
def test_fast_executors_equal_the_rules_on_random_families(seed: int) -> None:
    for setup in cv.random_plans.random_setups(seed, 150):
        for fast, reference in ((cv.run_baseline, reference_baseline), (cv.run_validity_aware, reference_validity_aware)):
            w_fast, w_ref = setup.new_world(), setup.new_world()
            got = fast(setup.plan, w_fast, setup.at_risk, setup.budget)
            assert got == reference(setup.plan, w_ref, setup.at_risk, setup.budget)
            assert _world_state(w_fast) == _world_state(w_ref)


def test_a_long_chain_syncs_only_when_something_falls_due(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    original = World.apply_due_events

    def counting(self: World) -> None:
        calls.append(self.tick)
        original(self)

    monkeypatch.setattr(World, "apply_due_events", counting)
    plan = cv.chain(10_000)
    world = World([Fact("F1", 0)], [Event(5_000, "F1", "replace", new_value=1)])
    result = cv.run_baseline(plan, world, "F1")
    assert calls == [5_000, 9_999]  # at the event's tick and before the action; not one per step
    assert result.pre_failure_work == 10_000 - 1 - 5_000


# -- generators hand over what the general algorithms would compute -------------------------------


def _same_as_general(plan: PlanGraph) -> None:
    general = PlanGraph(list(plan))
    assert plan.topological_order() == general.topological_order()
    order = plan.topological_order()
    assert [plan.closure(s) for s in order] == [general.closure(s) for s in order]
    assert list(plan) == list(general)


@pytest.mark.parametrize("depth", [1, 2, 3, 11, 101])
def test_chain_order_and_closures_are_kahns(depth: int) -> None:
    _same_as_general(cv.chain(depth))


@pytest.mark.parametrize(
    ("p", "b", "q"), list(itertools.product([1, 2, 3], [1, 2, 9, 10, 11, 12, 25, 101, 123], [1, 3]))
)
def test_multi_branch_order_is_kahns(p: int, b: int, q: int) -> None:
    _same_as_general(cv.multi_branch(p, b, q))


@pytest.mark.parametrize(("depth", "bf", "mf"), list(itertools.product([1, 2, 5, 9, 10, 11, 13], [1, 2, 3, 5], [1, 2, 4])))
def test_branching_order_is_kahns_including_two_digit_layers(depth: int, bf: int, mf: int) -> None:
    for seed in (0, 1):
        _same_as_general(cv.branching(depth, bf, mf, seed))


def test_sampler_draws_exactly_like_random_sample() -> None:
    for seed in range(60):
        for n in range(1, 90, 3):
            for k in range(0, min(n, 12) + 1):
                a, b = random.Random(seed), random.Random(seed)
                expected = [a.sample(range(n), k) for _ in range(3)]
                assert [_sample_positions(b.getrandbits, n, k) for _ in range(3)] == expected
                assert a.random() == b.random()  # and leaves the generator in the same state


def test_a_chain_holds_one_closure_object_and_no_step_objects() -> None:
    plan = cv.chain(100_000)
    assert len({id(c) for c in plan._closures}) == 1
    assert not any(isinstance(v, Step) for v in plan._kinds[:10])
    assert plan.run_columns().run_starts == [0, 100_000]
    assert plan.step("S99999").is_action and plan.step("S0").requires == frozenset({"F1"})
