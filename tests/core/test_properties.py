"""Properties over random plans and random event schedules (hypothesis).

Plans get random ids (so the smallest-id tie-break matters), random kinds with
at least one action, and random requirements over a few facts. Schedules mix
replacements, ambiguous real changes and ambiguous false alarms at random
ticks, and facts may carry validity horizons. The profile in conftest.py
makes every run derandomized, so the suite's verdict never varies.
"""

from __future__ import annotations

import json

import networkx as nx
from hypothesis import given
from hypothesis import strategies as st

import cvlib as cv
from cvlib.core.events import Event, EventKind
from cvlib.core.facts import Fact
from cvlib.core.graph import PlanGraph, Step, StepKind

FACTS = ("F1", "F2", "F3", "F4")


def step_id(k: int) -> str:
    # mixed prefixes and unpadded numbers: "B10" < "B2" < "S0", so ties are broken by string order
    return f"{'SAB'[k % 3]}{k // 3}"


@st.composite
def plans(draw, max_steps: int = 12) -> PlanGraph:
    """A random DAG: step i may only come after steps drawn before it.

    Drawn as a few integer lists (bit masks for requirements and
    predecessors) rather than many small draws, which keeps generation fast.
    """
    keys = draw(st.lists(st.integers(0, 59), min_size=1, max_size=max_steps, unique=True))
    n = len(keys)
    ids = [step_id(k) for k in keys]
    kinds = draw(st.lists(st.sampled_from(list(StepKind)), min_size=n, max_size=n))
    if StepKind.ACTION not in kinds:
        kinds[draw(st.integers(0, n - 1))] = StepKind.ACTION
    masks = draw(st.lists(st.integers(0, 15), min_size=n, max_size=n))
    requires = [frozenset(f for b, f in enumerate(FACTS) if m >> b & 1) for m in masks]
    if not any(requires):
        requires[draw(st.integers(0, n - 1))] = frozenset({FACTS[0]})
    pred_masks = draw(st.lists(st.integers(0, 2**max_steps - 1), min_size=n, max_size=n))
    steps = []
    for i, sid in enumerate(ids):
        preds = [ids[j] for j in range(i) if pred_masks[i] >> j & 1][:3]
        steps.append(Step(sid, kinds[i], requires[i], tuple(preds)))
    order = draw(st.permutations(range(n)))  # construction order must not matter
    return PlanGraph([steps[k] for k in order])


EVENT_KINDS = ("replace", "ambiguous-real", "ambiguous-false-alarm")
EVENT = st.tuples(st.integers(0, 15), st.integers(0, len(FACTS) - 1), st.integers(0, len(EVENT_KINDS) - 1))


def make_event(tick: int, fact_index: int, kind_index: int) -> Event:
    fact, kind = FACTS[fact_index], EVENT_KINDS[kind_index]
    if kind == "replace":
        return Event(tick, fact, EventKind.REPLACE, new_value=f"{fact}@{tick}")
    return Event(tick, fact, EventKind.AMBIGUOUS, ground_truth_changed=kind == "ambiguous-real")


@st.composite
def setups(draw, max_steps: int = 12, budget: str = "computed") -> cv.ScenarioSetup:
    plan = draw(plans(max_steps))
    horizons = draw(st.lists(st.integers(-1, 12), min_size=len(FACTS), max_size=len(FACTS)))
    facts = tuple(Fact(f, i, valid_until=None if h < 0 else h) for i, (f, h) in enumerate(zip(FACTS, horizons)))
    events = tuple(make_event(*e) for e in draw(st.lists(EVENT, max_size=5)))
    required = sorted(plan.facts)
    at_risk = required[draw(st.integers(0, len(required) - 1))]
    computed = cv.compute_budget(plan, at_risk)
    chosen = computed if budget == "computed" else draw(st.integers(0, computed + 3))
    return cv.ScenarioSetup("random", plan, facts, events, at_risk, chosen)


def first_action_position(plan: PlanGraph) -> int:
    return next(i for i, (s, _) in enumerate(plan.ordered_steps()) if s.is_action)


# -- the plan graph against networkx ------------------------------------------------------------------------


@given(plans(max_steps=16))
def test_order_is_networkx_lexicographic_topological_sort(plan):
    g = nx.DiGraph()
    g.add_nodes_from(s.id for s in plan)
    g.add_edges_from((p, s.id) for s in plan for p in s.predecessors)
    assert plan.topological_order() == list(nx.lexicographical_topological_sort(g))
    for fact in plan.facts:
        holders = [s.id for s in plan if fact in plan.closure(s.id)]
        assert plan.closure_size(fact) == len(holders)
        assert plan.invalidation_depth(fact) == nx.dag_longest_path_length(g.subgraph(holders)) + 1


# -- the properties, one checker each ----------------------------------------------------------------------------
#
# Generating an example costs far more than running it, so each @given test below
# draws a setup once and applies every checker that holds for it; a failure's
# traceback and message name the property that broke.


def check_identical_worlds(setup: cv.ScenarioSetup) -> None:
    first, second = setup.new_world(), setup.new_world()
    assert first is not second
    assert first.facts == second.facts, "both executors must start from the same facts"
    assert first.events == second.events, "both executors must face the same events"
    assert first.tick == second.tick == 0 and first.broken_facts == second.broken_facts == frozenset()
    baseline = cv.run_baseline(setup.plan, first, setup.at_risk, setup.budget)
    # running one executor leaves the setup, and so the other executor's world, untouched
    third = setup.new_world()
    assert third.facts == second.facts and third.events == second.events, "a run must not mutate the setup"
    validity_aware = cv.run_validity_aware(setup.plan, second, setup.at_risk, setup.budget)
    run = setup.run()
    assert (run.baseline, run.validity_aware) == (baseline, validity_aware), "setup.run() uses fresh identical worlds"


def check_validity_aware_pfw_is_0(run: cv.ScenarioRun) -> None:
    assert run.validity_aware.pre_failure_work == 0, "validity-aware PFW must always be 0"


def check_baseline_pfw_is_the_law(setup: cv.ScenarioSetup, run: cv.ScenarioRun) -> None:
    predicted = cv.predicted_pfw(setup.plan, cv.break_ticks(setup.events))
    assert run.baseline.pre_failure_work == predicted, "baseline PFW must equal the law's prediction"
    assert run.structure.predicted_baseline_pfw == predicted


def check_baseline_under_computed_budget(setup: cv.ScenarioSetup, run: cv.ScenarioRun) -> None:
    b = run.baseline
    position = first_action_position(setup.plan)
    cost = cv.recovery_cost(setup.plan, setup.at_risk)
    assert b.completed, "the computed budget always leaves the baseline room to recover"
    assert b.decisions_total == position + 1, "the baseline reaches its first action"
    assert b.steps_used == position + 1 + b.replans * cost
    assert b.steps_used <= b.budget


def check_nothing_broken_nothing_doomed(setup: cv.ScenarioSetup, run: cv.ScenarioRun) -> None:
    if cv.break_ticks(setup.events):
        return
    for r in run.results.values():
        assert (r.pre_failure_work, r.replans, r.decisions_on_stale_deps) == (0, 0, 0), "nothing broke, nothing doomed"
    assert run.baseline.completed


def check_control_has_no_overhead(setup: cv.ScenarioSetup) -> None:
    plain = cv.ScenarioSetup(
        "control", setup.plan, tuple(Fact(f.id, f.value) for f in setup.facts), (), setup.at_risk, setup.budget
    )
    run = plain.run()
    b, v = run.baseline.to_dict(), run.validity_aware.to_dict()
    b.pop("executor"), v.pop("executor")
    assert b == v, "with nothing to doubt, the validity layer's overhead must be zero"


def check_deterministic(setup: cv.ScenarioSetup, run: cv.ScenarioRun) -> None:
    again = cv.ScenarioSetup(setup.name, PlanGraph(list(setup.plan)), setup.facts, setup.events, setup.at_risk, setup.budget)
    second, third = setup.run(), again.run()
    assert (run.baseline, run.validity_aware) == (second.baseline, second.validity_aware), "same setup, same results"
    assert (run.baseline, run.validity_aware) == (third.baseline, third.validity_aware), "same inputs, same results"
    assert json.dumps(run.to_dict(), sort_keys=True) == json.dumps(second.to_dict(), sort_keys=True)


def check_counters(setup: cv.ScenarioSetup, run: cv.ScenarioRun) -> None:
    cost = cv.recovery_cost(setup.plan, setup.at_risk)
    first_action = first_action_position(setup.plan)
    for r in run.results.values():
        assert 0.0 <= r.scur <= 1.0
        assert 0 <= r.decisions_on_stale_deps <= r.decisions_total <= first_action + 1
        assert r.replans in (0, 1)
        assert r.steps_used >= r.decisions_total, "every decision costs at least one step"
        assert r.pre_failure_work <= r.decisions_on_stale_deps
        assert r.budget == setup.budget
        if r.replans:
            assert r.completed == (r.steps_used <= r.budget), "after a replan, completed iff within budget"
            assert r.steps_used >= cost
    b, v = run.baseline, run.validity_aware
    assert b.verifications == 0, "the baseline never verifies"
    assert v.verifications <= v.decisions_total
    assert v.decisions_total <= b.decisions_total, "validity-aware never decides past the baseline's stopping point"
    assert v.decisions_on_stale_deps <= v.replans, "validity-aware replans on the one broken closure it decides on"
    predicted = cv.predicted_pfw(setup.plan, cv.break_ticks(setup.events))
    assert b.pre_failure_work <= predicted, "a tighter budget can only cut the baseline's doomed work short"


def check_clock_and_ledger(setup: cv.ScenarioSetup, run: cv.ScenarioRun) -> None:
    for runner, result in ((cv.run_baseline, run.baseline), (cv.run_validity_aware, run.validity_aware)):
        world = setup.new_world()
        assert runner(setup.plan, world, setup.at_risk, setup.budget) == result
        assert world.tick == result.steps_used, "the world's tick equals the steps used"
        ledger = world.ledger
        assert (
            ledger.steps_used, ledger.replans, ledger.verifications, ledger.pre_failure_work,
            ledger.decisions_total, ledger.decisions_on_stale_deps,
        ) == (
            result.steps_used, result.replans, result.verifications, result.pre_failure_work,
            result.decisions_total, result.decisions_on_stale_deps,
        ), "the result reports the world's ledger"


@given(setups())
def test_properties_under_the_computed_budget(setup):
    run = setup.run()
    check_identical_worlds(setup)
    check_validity_aware_pfw_is_0(run)
    check_baseline_pfw_is_the_law(setup, run)
    check_baseline_under_computed_budget(setup, run)
    check_nothing_broken_nothing_doomed(setup, run)
    check_control_has_no_overhead(setup)
    check_counters(setup, run)


@given(setups(budget="any"))
def test_properties_under_any_budget(setup):
    run = setup.run()
    check_validity_aware_pfw_is_0(run)
    check_deterministic(setup, run)
    check_counters(setup, run)
    check_clock_and_ledger(setup, run)


def with_one_final_action(plan: PlanGraph) -> PlanGraph:
    """The article's shape: every drawn step a plan or decision, then one action after all of them."""
    steps = [
        Step(s.id, StepKind.DECISION if s.is_action else s.kind, s.requires, s.predecessors) for s in plan
    ]
    return PlanGraph([*steps, Step("ZZ_action", StepKind.ACTION, predecessors=tuple(s.id for s in steps))])


@given(plans(), st.integers(0, 14), st.integers(0, len(FACTS) - 1))
def test_single_break_matches_the_articles_law_when_the_action_is_last(drawn, tick, fact_index):
    plan = with_one_final_action(drawn)
    facts = sorted(plan.facts)
    fact = facts[fact_index % len(facts)]
    setup = cv.ScenarioSetup(
        "single", plan, tuple(Fact(f) for f in FACTS), (Event(tick, fact, EventKind.REPLACE),), fact,
        cv.compute_budget(plan, fact),
    )
    run = setup.run()
    assert run.baseline.pre_failure_work == cv.predicted_pfw_single(plan, fact, tick)
    if tick == 0:
        assert run.baseline.pre_failure_work == plan.closure_size(fact) - 1, "a break before the start: closure - 1"
