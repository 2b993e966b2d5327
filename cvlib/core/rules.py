"""Execution rules: the knobs the article held fixed, as one value.

The article's mechanics make four simplifications it admits to: recovery is a
flat charge, verification always resolves at one step, validity is a
timestamp, and an action that runs past the budget still counts. Each
extension chapter turns one of them into an option. :class:`ExecutionRules`
collects those options; its default *is* the article's mechanics, so every
published number comes from the same world and loop as every extension, run
under ``ExecutionRules()``.

The rule values are small frozen dataclasses so a sweep can build thousands of
variants cheaply and a result can say which rules produced it. The one world
(:mod:`cvlib.core.world`) and the one executor loop (:mod:`cvlib.core.executors`)
read them; the default is simply one rule set among the others.
"""

from __future__ import annotations

from cvlib.core.errors import ParameterError
from cvlib.core.graph import TIE_BREAKS
from cvlib.core.validation import (
    require_bool,
    require_choice,
    require_int,
    require_probability,
)
from cvlib.core.values import asdict, field, value_class

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Recovery models (X1), by name.
#:
#: ``flat``: the article's closure + 1, and the replan
#: ends the run. ``redo_affected``: redo the executed steps that rest on the
#: re-observed facts, plus one replan step, then carry on with the plan.
#: ``subplan``: as ``redo_affected``, but a successful action and everything
#: it rested on stay done (only the invalidated sub-plan is redone).
RECOVERY_MODELS = ("flat", "redo_affected", "subplan")

#: Budget rules (X5), by name.
#:
#: ``original``: an action whose own step ends past the
#: budget still counts as completed (the article's quirk). ``strict``: a run
#: completes only if it ends within the budget.
BUDGET_RULES = ("original", "strict")

#: When a validity-aware executor verifies a doubtful (STALE/UNKNOWN) fact (X2).
VERIFY_POLICIES = ("always", "never", "expected_cost")

#: What a validity-aware executor consults before acting (X4). ``timestamp``:
#: only the facts' believed states (expiry is a timestamp rule).
#: ``dependency``: also the health of the resources that make each fact usable.
CHECKERS = ("timestamp", "dependency")


@value_class
class VerificationModel:
    """How a verification behaves (X2).

    Parameters
    ----------
    miss_rate:
        Probability that a fact which really changed is reported as fine.
    false_alarm_rate:
        Probability that a fact which did not change is reported as changed.
    cost:
        Steps one verification spends (the article: 1).
    seed:
        Seed of the world's verification noise; noise is drawn only when a
        rate is above zero, so a noise-free model consumes no randomness.
    """

    miss_rate: float = 0.0
    false_alarm_rate: float = 0.0
    cost: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "miss_rate", require_probability("miss_rate", self.miss_rate))
        object.__setattr__(self, "false_alarm_rate", require_probability("false_alarm_rate", self.false_alarm_rate))
        require_int("verification cost", self.cost, minimum=0)
        require_int("verification seed", self.seed)


@value_class
class ExecutionRules:
    """Every execution option in one value; ``ExecutionRules()`` is the article.

    Parameters
    ----------
    recovery:
        One of :data:`RECOVERY_MODELS` (X1).
    budget_rule:
        One of :data:`BUDGET_RULES` (X5).
    verification:
        The :class:`VerificationModel` (X2); the default is the article's
        perfect one-step check.
    verify_policy:
        One of :data:`VERIFY_POLICIES` (X2). ``expected_cost`` verifies only
        when the expected saving beats the cost, given ``prior_change``.
    prior_change:
        Probability the executor assigns to "a doubtful fact really changed"
        (used only by the ``expected_cost`` policy).
    ttl:
        Time-to-live in ticks (X4): a fact observed at tick *o* is fresh while
        tick <= *o* + ttl. None leaves each fact's own ``valid_until``.
    ttl_refresh:
        Whether a confirming verification renews the horizon (to the time the
        evidence was *observed*, never the time it was read).
    checker:
        One of :data:`CHECKERS` (X4).
    launder:
        The wrong bookkeeping, kept only to show what it costs: a verification
        that can only read old (cached) evidence renews freshness as if the
        evidence were new. Never on by default.
    order:
        How the execution order breaks ties among ready steps, one of
        :data:`~cvlib.core.graph.TIE_BREAKS` (X5). ``string`` is the article's
        smallest-id-as-a-string rule, under which a diamond deeper than ten
        layers runs its action before some steps; ``numeric`` reads the digits
        in ids as numbers, so the action runs last again.
    """

    recovery: str = "flat"
    budget_rule: str = "original"
    verification: VerificationModel = field(default_factory=VerificationModel)
    verify_policy: str = "always"
    prior_change: float = 0.5
    ttl: int | None = None
    ttl_refresh: bool = False
    checker: str = "timestamp"
    launder: bool = False
    order: str = "string"

    def __post_init__(self) -> None:
        require_choice("recovery", self.recovery, RECOVERY_MODELS)
        require_choice("budget_rule", self.budget_rule, BUDGET_RULES)
        require_choice("verify_policy", self.verify_policy, VERIFY_POLICIES)
        require_choice("checker", self.checker, CHECKERS)
        if not isinstance(self.verification, VerificationModel):
            raise ParameterError(
                f"verification must be a VerificationModel, got {type(self.verification).__name__} {self.verification!r}"
            )
        object.__setattr__(self, "prior_change", require_probability("prior_change", self.prior_change))
        if self.ttl is not None:
            require_int("ttl", self.ttl, minimum=0)
        require_bool("ttl_refresh", self.ttl_refresh)
        require_bool("launder", self.launder)
        require_choice("order", self.order, TIE_BREAKS)

    @property
    def is_original(self) -> bool:
        """True when these rules are the article's (recorded results then leave the rules out)."""
        return self == ORIGINAL

    @property
    def continues_past_actions(self) -> bool:
        """Whether a run goes on after a successful action (multi-action plans).

        Only the non-flat recovery models do: under the flat model a replan
        ends the run and the first action ends it too, as in the article.
        """
        return self.recovery != "flat"

    def to_dict(self) -> dict[str, Any]:
        """Every rule as plain values, nested for the verification model.

        Returns
        -------
        dict
            JSON-safe.
        """
        return asdict(self)


#: The article's rules.
ORIGINAL = ExecutionRules()


def check_rules(rules: object) -> ExecutionRules | None:
    """``rules`` if it is None or an :class:`ExecutionRules`, else a clear error.

    Parameters
    ----------
    rules : object
        What a caller passed as ``rules``.

    Returns
    -------
    ExecutionRules or None
    """
    if rules is None or isinstance(rules, ExecutionRules):
        return rules
    raise ParameterError(f"rules must be an ExecutionRules value or None, got {type(rules).__name__} {rules!r}")
