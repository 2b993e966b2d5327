"""Schedules: exact knapsack, Magic Context's curve, determinism, legality and the oracle bound."""

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvlib.core.errors import ParameterError
from cvlib.fidelity import (
    MAGIC_BOUNDARIES,
    POLICIES,
    MagicContextDecay,
    ObligationAware,
    generate_trajectory,
    half_life,
    magic_tier,
    make_policy,
    mckp,
    run_schedule,
    stored_forms,
)


@pytest.mark.parametrize("tier, z", list(enumerate(MAGIC_BOUNDARIES, start=1)))
def test_magic_tier_boundaries_at_exact_z(tier, z):
    assert MAGIC_BOUNDARIES == (0.201, 0.729, 1.322, 2.587)
    assert magic_tier(z) == tier
    assert magic_tier(math.nextafter(z, 0.0)) == tier - 1


def test_magic_tier_four_is_archived_and_zero_is_fresh():
    assert magic_tier(0.0) == 0
    assert magic_tier(100.0) == 4
    with pytest.raises(ParameterError, match="non-negative"):
        magic_tier(-0.1)


def test_half_life_formula():
    assert half_life(50, 1.0) == pytest.approx(24.0)
    assert half_life(75, 0.05) == pytest.approx(480.0)  # pressure floored at 0.10
    assert half_life(25, 2.0) == pytest.approx(6.0)


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


def test_mckp_refuses_negative_budget():
    with pytest.raises(ParameterError, match="budget must be >= 0"):
        mckp([[1]], [[1]], -5)


def small_trajectory(seed, frac):
    return generate_trajectory(seed, n_turns=12, n_objects=5, n_probes=6, budget_fraction=frac)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 5000), st.sampled_from([0.05, 0.15, 0.3, 0.6]), st.integers(0, 3))
def test_obligation_aware_never_admits_an_illegal_form(seed, frac, hyst):
    traj = small_trajectory(seed, frac)
    run = run_schedule(traj, ObligationAware(hysteresis=hyst))
    assert all(t.illegal == () for t in run.turns)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 5000), st.sampled_from([0.05, 0.15, 0.3, 0.6]))
def test_oracle_never_fails_more_probes_than_any_schedule(seed, frac):
    traj = small_trajectory(seed, frac)
    forms = stored_forms(traj)
    fails = {p: run_schedule(traj, make_policy(p, probes=traj.probes), forms).probe_failures for p in POLICIES}
    assert all(fails["oracle"] <= v for v in fails.values())


def test_same_snapshot_and_policy_version_give_the_same_choice():
    traj = small_trajectory(3, 0.2)
    forms = stored_forms(traj)
    for name in POLICIES:
        pol = make_policy(name, probes=traj.probes, hysteresis=2)
        run = run_schedule(traj, pol, forms)
        again = run_schedule(traj, make_policy(name, probes=traj.probes, hysteresis=2), forms)
        assert run.turns == again.turns
        for snap in run.snapshots:
            assert pol.choose(snap) == pol.choose(snap) == make_policy(name, probes=traj.probes, hysteresis=2).choose(snap)


def test_infeasible_turns_are_recorded_not_given_budget():
    traj = generate_trajectory(1, n_turns=8, n_objects=4, n_probes=3, budget_tokens=0)
    for name in POLICIES:
        run = run_schedule(traj, make_policy(name, probes=traj.probes))
        for t in run.turns:
            assert t.infeasible == (t.resident_tokens > t.budget)
            assert t.budget == 0
        admitted = [t for t in run.turns if t.applied]
        assert all(t.infeasible for t in admitted)
        assert all(not p.passed for p in run.probes)


def test_magic_context_reties_only_at_folds():
    traj = small_trajectory(7, 0.2)
    pol = MagicContextDecay(fold_every=3)
    run = run_schedule(traj, pol)
    prev = {}
    for t in run.turns:
        applied = dict(t.applied)
        if t.turn % 3:
            assert all(applied[k] == v for k, v in prev.items())
        prev = applied


def test_bad_schedule_parameters_are_refused():
    with pytest.raises(ParameterError, match="unknown policy"):
        make_policy("lru")
    with pytest.raises(ParameterError, match="hysteresis"):
        ObligationAware(hysteresis=-1)
    with pytest.raises(ParameterError, match="fold_every"):
        MagicContextDecay(fold_every=0)
    with pytest.raises(ParameterError, match="age thresholds"):
        make_policy("age_only", age_thresholds=(5, 2, 9))
    with pytest.raises(ParameterError, match="age_thresholds must be a list of integer turns"):
        make_policy("age_only", age_thresholds=5)
    with pytest.raises(ParameterError, match="unknown schedule parameter"):
        make_policy("oracle", budget=3)
