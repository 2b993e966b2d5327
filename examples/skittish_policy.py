# skittish_policy.py
# (in the repository: examples/skittish_policy.py, this very text)
from dataclasses import dataclass

from cvlib.core.executors import Replan, RunState
from cvlib.core.facts import DOUBTFUL_STATES, ValidityState
from cvlib.core.rules import ExecutionRules
from cvlib.core.world import BeliefView

NOT_ACTIVE = DOUBTFUL_STATES | {ValidityState.SUPERSEDED}


@dataclass(frozen=True)
class Skittish:
    """Replans at the first doubt about a step's facts, without paying to verify."""

    name: str = "skittish"

    def watched_states(self, rules: ExecutionRules) -> frozenset[ValidityState]:
        return NOT_ACTIVE

    def watches_health(self, rules: ExecutionRules) -> bool:
        return False

    def check(self, view: BeliefView, run: RunState, position: int, closure: frozenset[str]) -> Replan | None:
        doubtful = view.facts_in_state(closure, NOT_ACTIVE)
        return Replan(doubtful) if doubtful else None
