"""The executors under comparison, each a policy of the one loop: the baseline, the validity-aware, timestamp-only.

A policy says what the loop (:func:`~cvlib.core.loop.run_policy`) hands it
and what it decides before a step is executed; everything else (the order,
the budget, recovery) is the loop's. The baseline learns of a broken
dependency only when an action fails; the validity-aware executor looks at
what it believes about a step's facts before acting, and pays to verify the
doubtful ones; the timestamp-only executor doubts a fact only past its
time-to-live. Each is registered by name in :mod:`cvlib.core.registry`.
"""

from __future__ import annotations

from cvlib.core.facts import DOUBTFUL_STATES, ValidityState
from cvlib.core.loop import Replan, RunState
from cvlib.core.rules import ExecutionRules
from cvlib.core.values import value_class
from cvlib.core.verification import expected_saving
from cvlib.core.world import BeliefView

__all__ = [
    "ARTICLE_POLICIES",
    "BASELINE",
    "TIMESTAMP_ONLY",
    "VALIDITY_AWARE",
    "Baseline",
    "TimestampOnly",
    "ValidityAware",
]

#: Name of the executor that learns of a broken dependency only when an action fails.
BASELINE = "baseline"
#: Name of the executor that checks what it believes about a step's facts before acting.
VALIDITY_AWARE = "validity_aware"
#: Name of the executor that doubts a fact only when its age exceeds the rules' time-to-live.
TIMESTAMP_ONLY = "timestamp_only"
#: The article's two executors, baseline first, which every entry point that runs executors runs by default.
ARTICLE_POLICIES: tuple[str, ...] = (BASELINE, VALIDITY_AWARE)

_SUPERSEDED = frozenset({ValidityState.SUPERSEDED})
_DOUBTFUL_OR_SUPERSEDED = DOUBTFUL_STATES | _SUPERSEDED


@value_class
class Baseline:
    """Acts on belief: executes every step in order and learns of a break only when an action fails."""

    name: str = BASELINE

    def watched_states(self, rules: ExecutionRules) -> frozenset[ValidityState]:
        """Nothing: the baseline never looks at belief.

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules (unused).

        Returns
        -------
        frozenset of ValidityState
            Empty.
        """
        return frozenset()

    def watches_health(self, rules: ExecutionRules) -> bool:
        """Never: the baseline reads no health signal.

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules (unused).

        Returns
        -------
        bool
            False.
        """
        return False

    def check(self, view: BeliefView, run: RunState, position: int, closure: frozenset[str]) -> Replan | None:
        """Always go ahead: the baseline learns of a break only when an action fails.

        Parameters
        ----------
        view, run, position, closure
            As for :meth:`Policy.check` (unused).

        Returns
        -------
        None
        """
        return None


@value_class
class ValidityAware:
    """Checks what is believed about a step's closure before acting on it.

    An announced outage under a fact of the closure (dependency checker only)
    or a SUPERSEDED fact: replan at once. A STALE or UNKNOWN fact: verify if
    the rules' policy says so (the article: always), replan if that fails.
    Otherwise execute.
    """

    name: str = VALIDITY_AWARE

    def watched_states(self, rules: ExecutionRules) -> frozenset[ValidityState]:
        """SUPERSEDED, and the doubtful states unless the rules never verify.

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules.

        Returns
        -------
        frozenset of ValidityState
        """
        return _SUPERSEDED if rules.verify_policy == "never" else _DOUBTFUL_OR_SUPERSEDED

    def watches_health(self, rules: ExecutionRules) -> bool:
        """Only under the dependency checker.

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules.

        Returns
        -------
        bool
        """
        return rules.checker == "dependency"

    def check(self, view: BeliefView, run: RunState, position: int, closure: frozenset[str]) -> Replan | None:
        """Outage, SUPERSEDED, or a failed verification of a doubtful fact: replan; else go ahead.

        Parameters
        ----------
        view : BeliefView
            The executor's handle on the world.
        run : RunState
            The loop's progress, for the expected-cost policy.
        position : int
            The step's position.
        closure : frozenset of str
            The facts the step rests on.

        Returns
        -------
        Replan or None
        """
        rules = run.rules
        if rules.checker == "dependency":
            down = view.resources_down(closure)
            if down:
                return Replan(down)
        superseded = view.facts_in_state(closure, _SUPERSEDED)
        if superseded:
            return Replan(superseded)
        doubtful = view.facts_in_state(closure, DOUBTFUL_STATES)
        if doubtful and _worth_verifying(run, position, doubtful) and not view.verify(closure):
            return Replan(view.facts_in_state(closure, _DOUBTFUL_OR_SUPERSEDED))
        return None



_STALE = frozenset({ValidityState.STALE})


@value_class
class TimestampOnly:
    """Doubts a fact only when its age exceeds the rules' time-to-live, and verifies it then.

    A fact is STALE exactly when its validity horizon (the rules' ``ttl``)
    has passed; this executor watches that state alone. It reads neither
    supersession (a replaced value, a signal that a fact may have changed)
    nor the health of the resource behind a fact, so it stands for the agent
    that "only checks timestamps". Without a TTL nothing is ever stale and it
    acts as the baseline does.
    """

    name: str = TIMESTAMP_ONLY

    def watched_states(self, rules: ExecutionRules) -> frozenset[ValidityState]:
        """STALE (a fact past its horizon), unless the rules never verify.

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules.

        Returns
        -------
        frozenset of ValidityState
        """
        return frozenset() if rules.verify_policy == "never" else _STALE

    def watches_health(self, rules: ExecutionRules) -> bool:
        """Never: a timestamp says nothing about whether the source still answers.

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules (unused).

        Returns
        -------
        bool
            False.
        """
        return False

    def check(self, view: BeliefView, run: RunState, position: int, closure: frozenset[str]) -> Replan | None:
        """Verify the closure's facts that are past their horizon; replan if that fails.

        Parameters
        ----------
        view : BeliefView
            The executor's handle on the world.
        run : RunState
            The loop's progress, for the expected-cost policy.
        position : int
            The step's position.
        closure : frozenset of str
            The facts the step rests on.

        Returns
        -------
        Replan or None
        """
        stale = view.facts_in_state(closure, _STALE)
        if stale and _worth_verifying(run, position, stale) and not view.verify(stale):
            return Replan(stale)
        return None


def _worth_verifying(run: RunState, position: int, doubtful: frozenset[str]) -> bool:
    rules = run.rules
    if rules.verify_policy == "always":
        return True
    if rules.verify_policy == "never":
        return False
    gain, loss = run.gain_and_loss(position, doubtful)
    model = rules.verification
    return expected_saving(rules.prior_change, model.miss_rate, model.false_alarm_rate, model.cost, gain, loss) > 0

