"""Noisy, costed verification measured on the ambiguous-signal chain (X2).

:mod:`cvlib.core.verification` holds the decision algebra the executors use;
this module holds the closed-form expected steps and completion rate of the
ambiguous-signal chain (scenarios E1/E2 with a prior), and the seeded sweep
that measures the same quantities on the executors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cvlib.core.errors import ParameterError
from cvlib.core.executors import VALIDITY_AWARE, PolicyLike, resolve_policy, run_policy
from cvlib.core.rules import VERIFY_POLICIES, ExecutionRules, VerificationModel
from cvlib.core.validation import (
    require_choice,
    require_int,
    require_probabilities,
)
from cvlib.core.verification import break_even_prior, expected_saving
from cvlib.scenarios.named import setup_scenario
from cvlib.scenarios.sizes import check_runs


@dataclass(frozen=True, slots=True)
class AmbiguousChain:
    """The ambiguous-signal chain (E1/E2) as numbers: depth, signal tick, budget and flat replan.

    The signal is seen at position ``change_tick``; ``r = depth - change_tick``
    steps remain up to and including the action; the flat replan costs
    ``R = depth + 1``; the budget is ``2 depth + 1``.
    """

    depth: int
    change_tick: int

    def __post_init__(self) -> None:
        require_int("depth", self.depth, minimum=1)
        require_int("change_tick", self.change_tick, minimum=0)
        if self.change_tick >= self.depth:
            raise ParameterError(
                f"change_tick must be below depth ({self.depth}) so the signal arrives before the action, "
                f"got {self.change_tick}"
            )

    @property
    def remaining(self) -> int:
        """``r``, steps left up to and including the action when the signal is seen."""
        return self.depth - self.change_tick

    @property
    def replan(self) -> int:
        """``R``, what the flat replan costs in steps."""
        return self.depth + 1

    @property
    def budget(self) -> int:
        """The step budget, ``2 depth + 1``."""
        return 2 * self.depth + 1

    def gain_and_loss(self) -> tuple[int, int]:
        """``(r, R - r)``, steps an early replan saves on a real change and adds on a false alarm.

        Returns
        -------
        tuple of (int, int)
        """
        return self.remaining, self.replan - self.remaining

    def break_even(self, model: VerificationModel) -> float:
        """The prior at which verifying pays for itself on this chain (see :func:`~cvlib.core.verification.break_even_prior`).

        Parameters
        ----------
        model : VerificationModel
            The verification's error rates and cost.

        Returns
        -------
        float
        """
        gain, loss = self.gain_and_loss()
        return break_even_prior(model.miss_rate, model.false_alarm_rate, model.cost, gain, loss)

    def outcomes(self, policy: str, prior: float, model: VerificationModel) -> list[tuple[float, int]]:
        """Every way the validity-aware run can go, with its probability.

        Parameters
        ----------
        policy : str
            ``always``, ``never`` or ``expected_cost``.
        prior : float
            Probability that the signal is a real change.
        model : VerificationModel
            The verification's error rates and cost.

        Returns
        -------
        list of (float, int)
            (probability, steps used) pairs.
        """
        require_choice("policy", policy, VERIFY_POLICIES)
        p, m, f, c = prior, model.miss_rate, model.false_alarm_rate, model.cost
        t, r, big_r = self.change_tick, self.remaining, self.replan
        if policy == "expected_cost":
            policy = "always" if expected_saving(p, m, f, c, *self.gain_and_loss()) > 0 else "never"
        if policy == "never":
            return [(p, t + r + big_r), (1 - p, t + r)]
        return [
            (p * (1 - m), t + c + big_r),
            (p * m, t + c + r + big_r),
            ((1 - p) * f, t + c + big_r),
            ((1 - p) * (1 - f), t + c + r),
        ]

    def expected_steps(self, policy: str, prior: float, model: VerificationModel) -> float:
        """Steps the validity-aware run uses in expectation, over :meth:`outcomes`.

        Parameters
        ----------
        policy, prior, model
            As for :meth:`outcomes`.

        Returns
        -------
        float
        """
        return sum(prob * steps for prob, steps in self.outcomes(policy, prior, model))

    def completion_rate(self, policy: str, prior: float, model: VerificationModel) -> float:
        """Probability that the validity-aware run ends within :attr:`budget`.

        Parameters
        ----------
        policy, prior, model
            As for :meth:`outcomes`.

        Returns
        -------
        float
        """
        return sum(prob for prob, steps in self.outcomes(policy, prior, model) if steps <= self.budget)


def verification_sweep(
    priors: Sequence[float],
    noise_levels: Sequence[float],
    policies: Sequence[str] = VERIFY_POLICIES,
    n_schedules: int = 200,
    depth: int = 3,
    change_tick: int = 1,
    cost: int = 1,
    seed: int = 0,
    *,
    executor: PolicyLike = VALIDITY_AWARE,
) -> pd.DataFrame:
    """Measure each verification policy over seeded schedules of the ambiguous chain, next to the closed form.

    For each prior *p* and noise level *e* (miss rate = false-alarm rate =
    *e*), schedule *k* draws whether the signal is a real change from one
    generator seeded by ``seed`` (the same draws for every prior, policy and
    noise level: common random numbers), and the verification noise from
    ``seed`` and *k*.

    Parameters
    ----------
    priors : sequence of float
        Probabilities that the signal is a real change.
    noise_levels : sequence of float
        Miss rate = false-alarm rate, each in [0, 1].
    policies : sequence of str
        Verification policies to compare.
    n_schedules : int
        Schedules per (prior, noise, policy).
    depth, change_tick : int
        The chain and when the ambiguous signal arrives.
    cost : int
        Steps one verification spends.
    seed : int
        Seed of the draws.
    executor : str or ~cvlib.core.executors.Policy
        The executor measured (a registered name, ``"module:attribute"`` or a
        policy object); the closed form describes the validity-aware one.

    Returns
    -------
    pandas.DataFrame
        One row per (noise, prior, policy), with measured and analytic mean steps and completion rate.
    """
    measured = resolve_policy(executor)
    chain_spec = AmbiguousChain(depth, change_tick)
    n_schedules = require_int("n_schedules", n_schedules, minimum=1)
    check_runs("n_schedules", n_schedules)
    cost = require_int("cost", cost, minimum=0)
    seed = require_int("seed", seed)
    for policy in policies:
        require_choice("policy", policy, VERIFY_POLICIES)
    priors, noise_levels = require_probabilities("priors", priors), require_probabilities("noise_levels", noise_levels)
    # E1 (the signal is a real change) and E2 (a false alarm), as the article names them.
    setups = {real: setup_scenario("E1" if real else "E2", depth=depth, change_tick=change_tick) for real in (True, False)}
    draws = np.random.default_rng(seed).random(n_schedules)
    rows = []
    for noise in noise_levels:
        for prior in priors:
            for policy in policies:
                steps = np.empty(n_schedules)
                done = np.empty(n_schedules, dtype=bool)
                verifications = 0
                for k in range(n_schedules):
                    model = VerificationModel(noise, noise, cost, seed=seed * 1_000_003 + k)
                    rules = ExecutionRules(verification=model, verify_policy=policy, prior_change=prior)
                    setup = setups[bool(draws[k] < prior)]
                    result = run_policy(measured, setup.plan, setup.new_world(rules), setup.at_risk, setup.budget)
                    steps[k], done[k] = result.steps_used, result.completed
                    verifications += result.verifications
                model = VerificationModel(noise, noise, cost)
                rows.append(
                    {
                        "noise": noise,
                        "prior": prior,
                        "policy": policy,
                        "mean_steps": float(steps.mean()),
                        "completion_rate": float(done.mean()),
                        "verifications_per_run": verifications / n_schedules,
                        "analytic_steps": chain_spec.expected_steps(policy, prior, model),
                        "analytic_completion": chain_spec.completion_rate(policy, prior, model),
                        "break_even": chain_spec.break_even(model),
                    }
                )
    return pd.DataFrame(rows)


def measured_break_even(sweep: pd.DataFrame, noise: float) -> float:
    """Prior where measured always-verify stops costing more than never-verify (linear interpolation).

    Parameters
    ----------
    sweep : pandas.DataFrame
        A :func:`verification_sweep` table.
    noise : float
        The noise level to read.

    Returns
    -------
    float
        NaN when the two measured curves do not cross over the priors swept.
    """
    rows = sweep[sweep["noise"] == noise]
    always = rows[rows["policy"] == "always"].set_index("prior")["mean_steps"]
    never = rows[rows["policy"] == "never"].set_index("prior")["mean_steps"]
    diff = (always - never).sort_index()
    priors, values = diff.index.to_numpy(dtype=float), diff.to_numpy(dtype=float)
    for k in range(len(values) - 1):
        a, b = values[k], values[k + 1]
        if a == 0:
            return float(priors[k])
        if a > 0 > b or a < 0 < b:
            return float(priors[k] + (priors[k + 1] - priors[k]) * a / (a - b))
    if len(values) and values[-1] == 0:
        return float(priors[-1])
    return math.nan
