"""The two executors under comparison, the step budget and the result they report.

Both are small deterministic state machines, not agents: they get the same
plan, a world with the same facts and events, and pay the same recovery cost.
They differ only in *when* they learn that a dependency broke. The baseline
learns it when an action fails against the world; the validity-aware executor
looks at what it believes about a step's facts before acting, and pays to
verify the doubtful ones.

Reproduced quirk: an action that starts within the budget but whose own step
ends past it still counts as completed (the budget is only checked after
non-action steps and after a replan). This is the original benchmark's rule;
it decides no published number.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .errors import ParameterError
from .facts import DOUBTFUL_STATES, ValidityState
from .graph import PlanGraph
from .validation import require_int
from .world import BeliefView, World

_SUPERSEDED = frozenset({ValidityState.SUPERSEDED})

BASELINE = "baseline"
VALIDITY_AWARE = "validity_aware"


@dataclass(frozen=True, slots=True)
class ExecutorResult:
    """What one executor did on one scenario.

    ``pre_failure_work`` (PFW) counts non-action steps executed while a fact in
    their closure was really broken; ``scur`` is the share of decisions taken
    on such a closure, judged by ground truth rather than by belief.
    """

    executor: str
    completed: bool
    steps_used: int
    budget: int
    replans: int
    verifications: int
    pre_failure_work: int
    decisions_total: int
    decisions_on_stale_deps: int

    @property
    def scur(self) -> float:
        """Stale context utilization rate: stale decisions / decisions (0 when none)."""
        if self.decisions_total == 0:
            return 0.0
        return self.decisions_on_stale_deps / self.decisions_total

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["scur"] = self.scur
        return out


def compute_budget(plan: PlanGraph, at_risk: str) -> int:
    """Steps in the plan + closure size of the fact at risk + 1.

    Computed once from structure, before anything runs: it knows which fact is
    at risk but never when, or whether, it breaks.
    """
    _require_fact(plan, at_risk)
    return len(plan) + plan.closure_size(at_risk) + 1


def recovery_cost(plan: PlanGraph, at_risk: str) -> int:
    """What a replan costs either executor: closure size of the fact at risk + 1 (flat)."""
    _require_fact(plan, at_risk)
    return plan.closure_size(at_risk) + 1


def _require_fact(plan: PlanGraph, fact_id: str) -> None:
    if not isinstance(fact_id, str) or fact_id not in plan.facts:
        from .errors import UnknownFactError

        raise UnknownFactError(
            f"fact at risk {fact_id!r} is not required by any step of the plan; "
            f"the plan requires: {', '.join(sorted(plan.facts)) or '(none)'}"
        )


def _checked_budget(plan: PlanGraph, at_risk: str, budget: int | None) -> int:
    if budget is None:
        return compute_budget(plan, at_risk)
    return require_int("budget", budget, minimum=0)


def _result(name: str, view: BeliefView, budget: int, completed: bool) -> ExecutorResult:
    ledger = view.ledger()
    return ExecutorResult(
        executor=name,
        completed=completed,
        steps_used=ledger.steps_used,
        budget=budget,
        replans=ledger.replans,
        verifications=ledger.verifications,
        pre_failure_work=ledger.pre_failure_work,
        decisions_total=ledger.decisions_total,
        decisions_on_stale_deps=ledger.decisions_on_stale_deps,
    )


def run_baseline(plan: PlanGraph, world: World, at_risk: str, budget: int | None = None) -> ExecutorResult:
    """Execute every step in order; learn of a broken dependency only when the action fails.

    Parameters
    ----------
    plan, world:
        The plan and a fresh world (the executor only gets its belief view).
    at_risk:
        The fact whose closure sizes the budget and the recovery cost.
    budget:
        Step budget; None computes it with :func:`compute_budget`.
    """
    budget = _checked_budget(plan, at_risk, budget)
    cost = recovery_cost(plan, at_risk)
    view = world.belief_view()
    completed = False
    for step, closure in plan.ordered_steps():
        view.sync()
        view.decide(closure)
        succeeded = view.execute(step, closure)
        if step.is_action:
            if succeeded:
                completed = True
            else:
                view.replan(cost)
                completed = view.steps_used <= budget
            break
        if view.steps_used > budget:
            break
    return _result(BASELINE, view, budget, completed)


def run_validity_aware(plan: PlanGraph, world: World, at_risk: str, budget: int | None = None) -> ExecutorResult:
    """Check what is believed about a step's closure before acting on it.

    Any SUPERSEDED fact: replan at once. Any STALE or UNKNOWN fact: pay one
    step to verify; replan if the verification fails, else execute the step.
    All ACTIVE: execute. Parameters as for :func:`run_baseline`.
    """
    budget = _checked_budget(plan, at_risk, budget)
    cost = recovery_cost(plan, at_risk)
    view = world.belief_view()
    completed = False
    for step, closure in plan.ordered_steps():
        view.sync()
        view.decide(closure)
        if view.any_in_state(closure, _SUPERSEDED):
            view.replan(cost)
            completed = view.steps_used <= budget
            break
        if view.any_in_state(closure, DOUBTFUL_STATES) and not view.verify(closure):
            view.replan(cost)
            completed = view.steps_used <= budget
            break
        succeeded = view.execute(step, closure)
        if step.is_action:
            if succeeded:
                completed = True
            else:  # unreachable under these mechanics: belief ACTIVE implies not broken
                view.replan(cost)
                completed = view.steps_used <= budget
            break
        if view.steps_used > budget:
            break
    return _result(VALIDITY_AWARE, view, budget, completed)


EXECUTORS = {BASELINE: run_baseline, VALIDITY_AWARE: run_validity_aware}


def executor_names() -> list[str]:
    return list(EXECUTORS)


def run_executor(name: str, plan: PlanGraph, world: World, at_risk: str, budget: int | None = None) -> ExecutorResult:
    try:
        runner = EXECUTORS[name]
    except KeyError:
        raise ParameterError(f"unknown executor {name!r}; expected one of {', '.join(EXECUTORS)}") from None
    return runner(plan, world, at_risk, budget)
