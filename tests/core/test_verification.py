"""Noisy, costly verification (X2): the algebra, the world's noise, the policies, measured vs analytic."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.core.executors import RunState, run_validity_aware
from cvlib.core.rules import ExecutionRules, VerificationModel
from cvlib.core.verification import break_even_prior, expected_saving
from cvlib.core.world import World
from cvlib.experiments.noisy_verification import AmbiguousChain, measured_break_even, verification_sweep

PERFECT = VerificationModel()


def test_noise_free_break_even_is_cost_over_remaining_steps():
    # E1/E2: depth 3, signal at tick 1 -> r = 2 steps left; a 1-step check breaks even at p = 1/2
    assert AmbiguousChain(3, 1).break_even(PERFECT) == pytest.approx(0.5)
    assert AmbiguousChain(10, 0).break_even(PERFECT) == pytest.approx(0.1)
    assert AmbiguousChain(10, 0).break_even(VerificationModel(cost=3)) == pytest.approx(0.3)


def test_break_even_edge_cases():
    assert break_even_prior(1.0, 0.0, 1, 5, 0) == math.inf  # a check that always misses is never worth it
    assert break_even_prior(0.0, 0.0, 0, 5, 0) == 0.0  # a free, perfect check is always worth it
    assert break_even_prior(0.0, 0.0, 10, 2, 0) == math.inf  # costs more than it can save
    with pytest.raises(ParameterError, match="miss_rate must be in"):
        break_even_prior(1.5, 0.0, 1, 2, 0)


@given(st.floats(0, 1), st.floats(0, 0.9), st.floats(0, 0.9), st.integers(0, 3), st.integers(1, 8), st.integers(0, 7))
def test_saving_is_zero_at_the_break_even_prior(prior, miss, false_alarm, cost, depth, tick):
    if tick >= depth:
        return
    chain = AmbiguousChain(depth, tick)
    gain, loss = chain.gain_and_loss()
    p_star = break_even_prior(miss, false_alarm, cost, gain, loss)
    if 0 < p_star <= 1:
        assert expected_saving(p_star, miss, false_alarm, cost, gain, loss) == pytest.approx(0, abs=1e-9)
    model = VerificationModel(miss, false_alarm, cost)
    # the saving is exactly the difference of the closed-form expected steps
    saving = chain.expected_steps("never", prior, model) - chain.expected_steps("always", prior, model)
    assert saving == pytest.approx(expected_saving(prior, miss, false_alarm, cost, gain, loss), abs=1e-9)


def test_closed_form_reproduces_e1_and_e2():
    chain = AmbiguousChain(3, 1)
    assert chain.expected_steps("always", 1.0, PERFECT) == cv.run_scenario("E1").validity_aware.steps_used == 6
    assert chain.expected_steps("never", 1.0, PERFECT) == cv.run_scenario("E1").baseline.steps_used == 7
    assert chain.expected_steps("always", 0.0, PERFECT) == cv.run_scenario("E2").validity_aware.steps_used == 4
    assert chain.expected_steps("never", 0.0, PERFECT) == cv.run_scenario("E2").baseline.steps_used == 3


def test_a_check_that_always_misses_lets_the_action_fail():
    rules = ExecutionRules(verification=VerificationModel(miss_rate=1.0))
    va = cv.run_scenario("E1", rules=rules).validity_aware
    assert va.verifications == 1 and va.replans == 1
    assert va.steps_used == 1 + 1 + 2 + 4  # S0, verify, S1-S2 (action fails), replan
    assert va.pre_failure_work == 1 and not va.completed  # one step over the budget of 7


def test_a_check_that_always_raises_false_alarms_replans_for_nothing():
    rules = ExecutionRules(verification=VerificationModel(false_alarm_rate=1.0))
    va = cv.run_scenario("E2", rules=rules).validity_aware
    assert (va.steps_used, va.replans, va.verifications) == (1 + 1 + 4, 1, 1)


def test_verification_cost_is_charged():
    va = cv.run_scenario("E2", rules=ExecutionRules(verification=VerificationModel(cost=3))).validity_aware
    assert va.steps_used == 3 + 3


def test_noise_free_models_ignore_the_seed():
    runs = {cv.run_scenario("E1", rules=ExecutionRules(verification=VerificationModel(seed=s), recovery="redo_affected")).to_dict()["validity_aware"]["steps_used"] for s in range(5)}
    assert len(runs) == 1


def test_never_policy_acts_like_the_baseline_on_an_ambiguous_signal():
    run = cv.run_scenario("E1", rules=ExecutionRules(verify_policy="never"))
    assert run.validity_aware.steps_used == run.baseline.steps_used == 7
    assert run.validity_aware.verifications == 0


@pytest.mark.parametrize("prior, verifies", [(0.3, False), (0.7, True)])
def test_expected_cost_policy_verifies_only_above_break_even(prior, verifies):
    run = cv.run_scenario("E1", rules=ExecutionRules(verify_policy="expected_cost", prior_change=prior))
    assert run.validity_aware.verifications == int(verifies)


def test_measured_matches_the_closed_form_within_sampling_error():
    sweep = verification_sweep([0.25, 0.75], [0.2], n_schedules=400, seed=3)
    for _, row in sweep.iterrows():
        # steps per run take at most a few distinct values 3..8: a 4-sigma band on 400 runs is < 0.6 steps
        assert abs(row["mean_steps"] - row["analytic_steps"]) < 0.6
        assert abs(row["completion_rate"] - row["analytic_completion"]) < 0.1


def test_sweep_is_deterministic_per_seed():
    a = verification_sweep([0.5], [0.1], n_schedules=50, seed=1)
    b = verification_sweep([0.5], [0.1], n_schedules=50, seed=1)
    assert a.equals(b)


def test_measured_break_even_on_the_exact_sweep():
    sweep = verification_sweep(list(np.linspace(0, 1, 11)), [0.0], n_schedules=400, seed=0)
    assert abs(measured_break_even(sweep, 0.0) - 0.5) < 0.1


def test_bad_sweep_inputs():
    with pytest.raises(ParameterError, match="change_tick must be below depth"):
        AmbiguousChain(3, 3)
    with pytest.raises(ParameterError, match="priors must be a non-empty list"):
        verification_sweep([], [0.0])
    with pytest.raises(ParameterError, match="policy must be one of"):
        verification_sweep([0.5], [0.0], policies=["sometimes"])


@pytest.mark.parametrize("depth, tick", [(3, 1), (6, 0), (6, 3), (8, 5)])
def test_non_flat_gain_matches_what_verifying_saves(depth, tick):
    # prior 1, perfect check: never-verify minus always-verify = gain - cost, the policy's own estimate
    setup = cv.setup_scenario("E1", depth=depth, change_tick=tick)
    steps = {}
    for policy in ("always", "never"):
        rules = ExecutionRules(recovery="redo_affected", verify_policy=policy)
        world = World(setup.facts, setup.events, rules=rules)
        steps[policy] = run_validity_aware(setup.plan, world, "F1", 10_000).steps_used
    gain = (depth - 1 - tick) + 1  # doomed steps up to the action, and the failed attempt
    assert steps["never"] - steps["always"] == gain - 1
    rules = ExecutionRules(recovery="redo_affected")
    run = RunState(setup.plan, rules, setup.budget, cv.recovery_cost(setup.plan, "F1"))
    assert run.gain_and_loss(tick, frozenset({"F1"})) == (gain, tick + 1)
