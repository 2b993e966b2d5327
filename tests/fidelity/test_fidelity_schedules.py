"""Schedules: the exact knapsack, the oracle against brute force, legality where it is possible, determinism."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvlib.core.errors import ParameterError
from cvlib.fidelity import (
    MAGIC_BOUNDARIES,
    POLICIES,
    BookDecay,
    ObligationAware,
    Oracle,
    generate_trajectory,
    magic_tier,
    make_policy,
    mckp,
    run_schedule,
    stored_forms,
)
from cvlib.fidelity import params as P


@pytest.mark.parametrize("tier, z", list(enumerate(MAGIC_BOUNDARIES, start=1)))
def test_the_variants_tier_boundaries_at_exact_z(tier, z):
    import math

    assert magic_tier(z) == tier
    assert magic_tier(math.nextafter(z, 0.0)) == tier - 1


groups = st.lists(
    st.lists(st.tuples(st.integers(0, 12), st.integers(0, 20)), min_size=1, max_size=3), min_size=1, max_size=4
)


@settings(max_examples=150, deadline=None)
@given(groups, st.integers(0, 40))
def test_mckp_matches_brute_force(gs, budget):
    costs = [[c for c, _ in g] for g in gs]
    values = [[v for _, v in g] for g in gs]
    best = None
    for pick in itertools.product(*[range(len(g)) for g in gs]):
        c = sum(costs[i][k] for i, k in enumerate(pick))
        v = sum(values[i][k] for i, k in enumerate(pick))
        if c <= budget and (best is None or v > best[0] or (v == best[0] and c < best[1])):
            best = (v, c)
    sol = mckp(costs, values, budget)
    if best is None:
        assert sol is None
    else:
        got = (sum(values[i][k] for i, k in enumerate(sol)), sum(costs[i][k] for i, k in enumerate(sol)))
        assert got == best


def test_mckp_refuses_bad_input():
    with pytest.raises(ParameterError, match="budget must be >= 0"):
        mckp([[1]], [[1]], -5)
    with pytest.raises(ParameterError, match="every cost must be >= 0"):
        mckp([[-1]], [[1]], 5)


def small(seed, frac, **kw):
    return generate_trajectory(seed, n_turns=10, n_objects=3, n_probes=5, budget_fraction=frac, **kw)


def _all_choices(snap, forms):
    per = [[x for x in o.options if x.name in forms] for o in snap.objects]
    for combo in itertools.product(*per):
        yield {o.object_id: x.name for o, x in zip(snap.objects, combo)}, sum(x.tokens for x in combo)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 5000), st.sampled_from([0.05, 0.15, 0.3, 0.6]))
def test_oracle_is_optimal_against_brute_force(seed, frac):
    """On small instances, no assignment within the budget beats the oracle's lexicographic objective at any turn."""
    traj = small(seed, frac)
    pol = Oracle(probes=traj.probes)
    run = run_schedule(traj, pol, stored_forms(traj))
    for snap, rec in zip(run.snapshots, run.turns):
        if not snap.objects:
            continue
        feasible = [c for c, tokens in _all_choices(snap, pol.forms) if tokens <= snap.budget]
        if not feasible:
            assert rec.infeasible
            continue
        best = max(pol.objective(snap, c) for c in feasible)
        assert pol.objective(snap, dict(rec.applied)) == best
        # and its probe failures that turn are the fewest any assignment achieves
        fails = sum(not p.passed for p in run.probes if p.turn == snap.turn)
        due = sum(p.turn == snap.turn for p in traj.probes)
        assert fails == due - best[0]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 5000), st.sampled_from([0.05, 0.15, 0.3, 0.6]), st.integers(0, 3))
def test_obligation_aware_is_legal_and_feasible_wherever_a_legal_assignment_fits(seed, frac, hyst):
    traj = small(seed, frac)
    pol = ObligationAware(hysteresis=hyst)
    run = run_schedule(traj, pol, stored_forms(traj))
    for snap, rec in zip(run.snapshots, run.turns):
        assert rec.illegal == ()  # never an illegal form, feasible or not
        legal_fits = any(
            tokens <= snap.budget and all(c[o.object_id] in o.legal for o in snap.objects)
            for c, tokens in _all_choices(snap, pol.forms)
        )
        assert rec.infeasible == (not legal_fits)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 5000), st.sampled_from([0.05, 0.15, 0.3, 0.6]))
def test_oracle_never_fails_more_probes_than_any_schedule(seed, frac):
    traj = small(seed, frac)
    store = stored_forms(traj)
    fails = {p: run_schedule(traj, make_policy(p, probes=traj.probes), store).probe_failures for p in POLICIES}
    assert all(fails["oracle"] <= v for v in fails.values())


def test_same_snapshot_and_policy_version_give_the_same_choice():
    traj = generate_trajectory(3, n_turns=12, n_objects=5, n_probes=6, budget_fraction=0.2)
    store = stored_forms(traj)
    for name in POLICIES:
        pol = make_policy(name, probes=traj.probes, hysteresis=2)
        run = run_schedule(traj, pol, store)
        again = run_schedule(traj, make_policy(name, probes=traj.probes, hysteresis=2), store)
        assert run.turns == again.turns
        for snap in run.snapshots:
            assert pol.choose(snap) == make_policy(name, probes=traj.probes, hysteresis=2).choose(snap)


def test_infeasible_turns_are_recorded_not_given_budget():
    traj = generate_trajectory(1, n_turns=8, n_objects=4, n_probes=3, budget_tokens=0)
    for name in POLICIES:
        run = run_schedule(traj, make_policy(name, probes=traj.probes))
        for t in run.turns:
            assert t.infeasible == (t.resident_tokens > t.budget)
            assert t.budget == 0
        assert all(t.infeasible for t in run.turns if t.applied)
        assert all(not p.passed and p.infeasible for p in run.probes)


def test_each_schedule_chooses_only_among_its_own_forms():
    traj = generate_trajectory(2, n_turns=12, n_objects=5, n_probes=5, budget_fraction=0.25)
    store = stored_forms(traj)
    for name in POLICIES:
        pol = make_policy(name, probes=traj.probes)
        run = run_schedule(traj, pol, store)
        assert {v for t in run.turns for _, v in t.applied} <= set(pol.forms)


def test_defaults_come_from_the_registry():
    assert make_policy("age_only").thresholds == P.default("age_thresholds")
    assert make_policy("obligation_aware").related_weight == P.default("related_weight")
    assert make_policy("book_decay").fold_every == P.default("fold_every")
    assert make_policy("full_while_feasible").keep_recent == P.default("keep_recent")
    mc = make_policy("magic_context_decay")
    assert (mc.pressure_passes, mc.force, mc.m1_cap) == (2, 0.85, 0.20)
    # a parameter goes to its own schedule and is ignored by the others
    assert make_policy("pressure_only", fold_every=9).name == "pressure_only"
    assert make_policy("book_decay", fold_every=9).fold_every == 9


def test_related_weight_changes_what_the_obligation_aware_schedule_values():
    from cvlib.fidelity import Snapshot
    from cvlib.fidelity.schedules import ObjectState, RepOption

    def obj(oid, full_checks, related):
        full = RepOption("full", 100, frozenset((f"k{i}", 1) for i in range(full_checks)), frozenset())
        dense = RepOption("dense", 40, frozenset((f"k{i}", 1) for i in range(6)), frozenset())
        return ObjectState(oid, 0, 50, (full, dense), ("full", "dense"), (), None, None, related)

    # room for one full text: unweighted, the object with more checks wins it; weighted, the related one does
    snap = Snapshot(0, 140, (obj("a", 12, False), obj("b", 10, True)))
    assert make_policy("obligation_aware", related_weight=1).choose(snap) == {"a": "full", "b": "dense"}
    assert make_policy("obligation_aware", related_weight=10).choose(snap) == {"a": "dense", "b": "full"}


def test_bad_schedule_parameters_are_refused():
    with pytest.raises(ParameterError, match="unknown policy"):
        make_policy("lru")
    with pytest.raises(ParameterError, match="hysteresis"):
        ObligationAware(hysteresis=-1)
    with pytest.raises(ParameterError, match="related_weight"):
        ObligationAware(related_weight=0)
    with pytest.raises(ParameterError, match="fold_every"):
        BookDecay(fold_every=0)
    with pytest.raises(ParameterError, match="age thresholds"):
        make_policy("age_only", age_thresholds=(5, 2, 9))
    with pytest.raises(ParameterError, match="age_thresholds must be a list of integer turns"):
        make_policy("age_only", age_thresholds=5)
    with pytest.raises(ParameterError, match="unknown schedule parameter"):
        make_policy("oracle", budget=3)
    with pytest.raises(ParameterError, match="keep_recent must be an integer >= 0"):
        make_policy("full_while_feasible", keep_recent=-1)
