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

        def world(facts=facts, events=events, rules=rules, silent=silent, outages=outages, supports=supports) -> World:
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
    """Everything a generator hands over equals what the general constructor computes from the steps."""
    general = PlanGraph(list(plan))
    assert plan.topological_order() == general.topological_order()
    order = plan.topological_order()
    assert [plan.closure(s) for s in order] == [general.closure(s) for s in order]
    assert list(plan) == list(general)
    mine, theirs = plan.run_columns(), general.run_columns()
    assert list(mine.closures) == list(theirs.closures)
    assert (mine.actions, mine.run_starts) == (theirs.actions, theirs.run_starts)
    assert [c for c in mine.run_closures] == [c for c in theirs.run_closures]
    assert plan._link_starts() == general._link_starts()
    assert plan._longest_path() == general._longest_path() == _plain_depth(general, None)
    assert [plan.position(s) for s in order] == list(range(len(order)))
    for fact in sorted(general.facts):
        assert plan.closure_size(fact) == general.closure_size(fact) == _plain_closure_size(general, fact)
        assert plan.invalidation_depth(fact) == general.invalidation_depth(fact) == _plain_depth(general, fact)
    assert plan.facts == general.facts == frozenset().union(*(s.requires for s in general))
    assert plan.action_count() == general.action_count()


# -- the plain algorithms the fast paths replace (statements, one step at a time) -----------------


def _plain_closure_size(plan: PlanGraph, fact: str) -> int:
    return sum(1 for _, closure in plan.ordered_steps() if fact in closure)


def _plain_depth(plan: PlanGraph, fact: str | None) -> int:
    """Longest chain of steps holding ``fact`` (every step when None), one step at a time."""
    depth: dict[str, int] = {}
    for step, closure in plan.ordered_steps():
        if fact is None or fact in closure:
            depth[step.id] = 1 + max((depth.get(p, 0) for p in step.predecessors), default=0)
    return max(depth.values(), default=0)


def _plain_pfw(plan: PlanGraph, breaks: dict[str, int]) -> int:
    count = 0
    for position, (step, closure) in enumerate(plan.ordered_steps()):
        if step.is_action:
            break
        if any(f in breaks and breaks[f] <= position for f in closure):
            count += 1
    return count


def _plain_pfw_through_actions(plan: PlanGraph, breaks: dict[str, int]) -> int:
    refreshed: set[str] = set()
    count = 0
    for position, (step, closure) in enumerate(plan.ordered_steps()):
        broken = {f for f in closure if f in breaks and breaks[f] <= position and f not in refreshed}
        if not broken:
            continue
        if step.is_action:
            refreshed |= {f for f in closure if f in breaks and breaks[f] <= position}
        else:
            count += 1
    return count


def _plain_pfw_single(plan: PlanGraph, fact: str, tick: int) -> int:
    return sum(
        1
        for position, (step, closure) in enumerate(plan.ordered_steps())
        if fact in closure and not step.is_action and position >= tick
    )


def _random_plans(seed: int, count: int):
    """Hand-rolled random plans, the random families and the three generators at random sizes."""
    rng = random.Random(seed)
    for _ in range(count):
        yield _random_case(rng)[0]
    for setup in cv.random_plans.random_setups(seed, count):
        yield setup.plan
    for _ in range(count // 4):
        yield cv.chain(rng.randint(1, 40))
        yield cv.multi_branch(rng.randint(1, 4), rng.randint(1, 40), rng.randint(1, 3))
        yield cv.branching(rng.randint(1, 12), rng.randint(1, 4), rng.randint(1, 3), seed=rng.randrange(50))
        yield _wide_merge(rng)


def _wide_merge(rng: random.Random) -> PlanGraph:
    """Chains of random lengths on random facts, merged by steps with many predecessors (the wide-merge path)."""
    steps, tails = [], []
    for c in range(rng.randint(2, 40)):
        length = rng.randint(1, 4)
        for i in range(length):
            req = frozenset({f"F{rng.randint(1, 5)}"}) if i == 0 or rng.random() < 0.2 else frozenset()
            steps.append(Step(f"C{c}_{i}", "plan" if i == 0 else "decision", req, (f"C{c}_{i - 1}",) if i else ()))
        tails.append(f"C{c}_{length - 1}")
    merges = [Step("W0", "decision", frozenset(), tuple(rng.sample(tails, rng.randint(18, len(tails)) if len(tails) >= 18 else len(tails))))]
    for k in range(1, rng.randint(1, 4)):
        merges.append(Step(f"W{k}", "decision", frozenset(), (f"W{k - 1}", *rng.sample(tails, min(len(tails), 20)))))
    merges.append(Step("A", "action", frozenset(), (merges[-1].id,)))
    steps += merges
    rng.shuffle(steps)
    return PlanGraph(steps)


@pytest.mark.parametrize("seed", range(4))
def test_runs_links_depths_and_sizes_equal_the_plain_algorithms(seed: int) -> None:
    """Closure sizes by runs and invalidation depths by links are the per-step definitions."""
    checked = 0
    for plan in _random_plans(seed, 120):
        columns = plan.run_columns()
        closures = list(columns.closures)
        assert closures == [c for _, c in plan.ordered_steps()]
        # runs: maximal stretches of one closure object, and nothing else
        starts = columns.run_starts
        assert starts[0] == 0 and starts[-1] == len(plan) and starts == sorted(set(starts))
        for r, closure in enumerate(columns.run_closures):
            assert all(closures[k] is closure for k in range(starts[r], starts[r + 1]))
        assert columns.actions == [k for k, (s, _) in enumerate(plan.ordered_steps()) if s.is_action]
        # links: a position continues one exactly when its only predecessor is the position before
        order = plan.topological_order()
        continues = [
            k > 0 and plan.step(sid).predecessors == (order[k - 1],) for k, sid in enumerate(order)
        ]
        assert plan._link_starts() == [k for k, c in enumerate(continues) if not c]
        for fact in sorted(plan.facts) + ["nowhere"]:
            assert plan.closure_size(fact) == _plain_closure_size(plan, fact)
            assert plan.invalidation_depth(fact) == _plain_depth(plan, fact)
        assert plan._longest_path() == _plain_depth(plan, None)
        checked += 1
    assert checked >= 300


@pytest.mark.parametrize("seed", range(4))
def test_the_law_by_runs_equals_the_law_step_by_step(seed: int) -> None:
    """predicted_pfw, its multi-action form and the article's single-fact form, per run vs per step."""
    rng = random.Random(500 + seed)
    for plan in _random_plans(seed, 120):
        facts = sorted(plan.facts)
        for _ in range(3):
            breaks = {f: rng.randint(0, len(plan) + 2) for f in facts if rng.random() < 0.6}
            assert cv.predicted_pfw(plan, breaks) == _plain_pfw(plan, breaks)
            assert cv.predicted_pfw(plan, breaks, through_actions=True) == _plain_pfw_through_actions(plan, breaks)
        for fact in facts:
            tick = rng.randint(0, len(plan) + 1)
            assert cv.predicted_pfw_single(plan, fact, tick) == _plain_pfw_single(plan, fact, tick)


def test_compact_ids_make_and_parse_every_id_and_nothing_else() -> None:
    plans = [cv.chain(23), cv.multi_branch(3, 12, 2), cv.multi_branch(1, 1, 1), cv.branching(9, 3, 2, seed=4)]
    for plan in plans:
        ids = plan._ids
        listed = list(ids)
        assert [ids[i] for i in range(len(ids))] == listed and ids[-1] == listed[-1] and ids[2:5] == listed[2:5]
        assert len(set(listed)) == len(listed)
        assert all(ids.find(sid) == i and sid in plan and plan.step(sid).id == sid for i, sid in enumerate(listed))
        for bad in ["", "S", "S01", "S-1", "S+1", "S 1", "S\u0661", "B1", "B1_", "B01_0", "B0_01", "M", "M01",
                    "L0", "L00_0", "L0_00", "L1_1_1", "x", "S999999", "B99_0", "M9", "L99_0", "L0_99"]:
            assert ids.find(bad) == -1 and bad not in plan
    with pytest.raises(IndexError):
        plans[0]._ids[23]


def test_wiring_a_layer_at_a_time_draws_exactly_like_random_sample() -> None:
    """The inline wiring of cv.branching is rng.sample(previous_layer, take), step after step, with one rng."""
    from cvlib.scenarios.generators import branching_layer_widths

    configs = itertools.product([1, 2, 3, 5, 8], [1, 2, 3, 4, 5, 6, 7, 9], [1, 2, 4], [0, 3])
    for depth, bf, mf, seed in configs:
        rng = random.Random(seed)
        expected = {}
        previous: list[str] = []
        for layer, width in enumerate(branching_layer_widths(depth, bf, mf)):
            current = [f"L{layer}_{j}" for j in range(width)]
            for sid in current:
                expected[sid] = tuple(rng.sample(previous, min(len(previous), bf))) if layer else ()
            previous = current
        assert {s.id: s.predecessors for s in cv.branching(depth, bf, mf, seed)} == expected, (depth, bf, mf, seed)


def test_the_string_order_of_a_layer_is_sorted_by_str() -> None:
    from cvlib.scenarios.generators import _string_order

    assert all(list(_string_order(w)) == sorted(range(w), key=str) for w in range(0, 260))


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


def test_a_long_chain_holds_no_id_strings_and_no_per_step_lists() -> None:
    """Ids, requirements and closures of generated plans are compact: their size does not grow with the plan."""
    import sys

    small, large = cv.chain(10), cv.chain(1_000_000)
    for column in ("_ids", "_requires", "_closures"):
        assert sys.getsizeof(getattr(large, column)) == sys.getsizeof(getattr(small, column)), column
    assert len(large._kinds) == 1_000_000 and isinstance(large._kinds, bytes)
    assert large.invalidation_depth("F1") == large.closure_size("F1") == 1_000_000
    assert large.topological_order()[-2:] == ["S999998", "S999999"]


@pytest.mark.parametrize("seed", range(3))
def test_running_setups_together_equals_running_them_one_by_one(seed: int) -> None:
    """run_setups (every baseline, then every validity-aware run, then the summaries) changes no result."""
    from cvlib.scenarios.setup import run_setups

    rng = random.Random(seed)
    setups = list(cv.random_plans.random_setups(seed, 40))
    setups += [cv.setup_scenario("D2", depth=d, branching_factor=b, merge_factor=m, seed=seed)
               for d, b, m in itertools.product([3, 6], [1, 3], [1, 4])]
    for rules in (None, _random_rules(rng), _random_rules(rng)):
        together = run_setups(setups, rules=rules)
        assert [r.to_dict() for r in together] == [s.run(rules=rules).to_dict() for s in setups]
