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

What makes a run linear in the plan's size: the executors walk the plan's
execution-order columns and hand every stretch of plain steps (non-action
steps nothing is doubted about) to :meth:`~cvlib.world.BeliefView.execute_run`, which
takes them in one call; only actions and steps in doubt go through the
step-by-step loop bodies below, which remain the statement of the rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.facts import DOUBTFUL_STATES, ValidityState
from cvlib.core.graph import PlanGraph, Step
from cvlib.core.validation import require_int
from cvlib.core.world import BeliefView, Ledger, World

if TYPE_CHECKING:
    from cvlib.core.rules import ExecutionRules

_SUPERSEDED = frozenset({ValidityState.SUPERSEDED})

#: Name of the executor that learns of a broken dependency only when an action fails.
BASELINE = "baseline"
#: Name of the executor that checks what it believes about a step's facts before acting.
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
        """Stale context utilization rate (SCUR), stale decisions over all decisions; 0 when none."""
        if self.decisions_total == 0:
            return 0.0
        return self.decisions_on_stale_deps / self.decisions_total

    @classmethod
    def from_ledger(cls, executor: str, ledger: Ledger, budget: int, completed: bool) -> ExecutorResult:
        """The result of a finished run, from the counters its world kept."""
        return cls(
            executor=executor,
            completed=completed,
            steps_used=ledger.steps_used,
            budget=budget,
            replans=ledger.replans,
            verifications=ledger.verifications,
            pre_failure_work=ledger.pre_failure_work,
            decisions_total=ledger.decisions_total,
            decisions_on_stale_deps=ledger.decisions_on_stale_deps,
        )

    def to_dict(self) -> dict[str, Any]:
        """Every field plus ``scur``, flat, for one row of a results table."""
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
        from cvlib.core.errors import UnknownFactError

        raise UnknownFactError(
            f"fact at risk {fact_id!r} is not required by any step of the plan; "
            f"the plan requires: {', '.join(sorted(plan.facts)) or '(none)'}"
        )


def _checked_budget(plan: PlanGraph, at_risk: str, budget: int | None) -> int:
    if budget is None:
        return compute_budget(plan, at_risk)
    return require_int("budget", budget, minimum=0)


def _result(name: str, world: World, budget: int, completed: bool) -> ExecutorResult:
    # The ledger is read by the harness after the run, never through the view.
    return ExecutorResult.from_ledger(name, world.ledger, budget, completed)


def _steps_to_take(
    plan: PlanGraph, view: BeliefView, budget: int, *, stop_on_doubt: bool, fast: bool = True
) -> Iterator[tuple[Step, frozenset[str]]]:
    """The steps an executor must take one at a time, in execution order.

    Every other step is *plain*: a non-action step whose closure is all
    believed ACTIVE (or, with ``stop_on_doubt`` False, any non-action step).
    For a plain step both executors' loop bodies reduce to sync, decide,
    execute and the budget check, which :meth:`~cvlib.world.BeliefView.execute_run` does
    in bulk with the same effect. The generator simply ends when a bulk
    stretch runs past the budget, as the loop would have broken there.
    Pass ``fast=False`` when an option changes what a plain step does; the
    plan's steps are then all yielded.
    """
    if not fast:
        yield from plan.ordered_steps()
        return
    columns = plan._run_columns()
    closures, order = columns.closures, plan._order
    n = len(closures)
    boundaries = iter([*columns.actions, n])
    stop = next(boundaries)
    position = 0
    while position < n:
        while stop < position:
            stop = next(boundaries)
        position, over_budget = view.execute_run(columns, position, stop, budget, stop_on_doubt=stop_on_doubt)
        if over_budget or position >= n:
            return
        yield plan._make_step(order[position]), closures[position]  # an action, or a step in doubt
        position += 1


def run_baseline(
    plan: PlanGraph, world: World, at_risk: str, budget: int | None = None, *, rules: ExecutionRules | None = None
) -> ExecutorResult:
    """Execute every step in order; learn of a broken dependency only when the action fails.

    Parameters
    ----------
    plan, world:
        The plan and a fresh world (the executor only gets its belief view).
    at_risk:
        The fact whose closure sizes the budget and the recovery cost.
    budget:
        Step budget; None computes it with :func:`compute_budget`.
    rules:
        :class:`~cvlib.rules.ExecutionRules`; None or the default is the
        article's mechanics (this fast path), anything else runs in
        :mod:`cvlib.engine` on a world with the same facts and events.
    """
    if rules is not None and _departs(rules):
        return _ruled(BASELINE, plan, world, at_risk, budget, rules)
    budget = _checked_budget(plan, at_risk, budget)
    cost = recovery_cost(plan, at_risk)
    view = world.belief_view()
    completed = False
    for step, closure in _steps_to_take(plan, view, budget, stop_on_doubt=False):
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
    return _result(BASELINE, world, budget, completed)


def run_validity_aware(
    plan: PlanGraph, world: World, at_risk: str, budget: int | None = None, *, rules: ExecutionRules | None = None
) -> ExecutorResult:
    """Check what is believed about a step's closure before acting on it.

    Any SUPERSEDED fact: replan at once. Any STALE or UNKNOWN fact: pay one
    step to verify; replan if the verification fails, else execute the step.
    All ACTIVE: execute. Parameters as for :func:`run_baseline`.
    """
    if rules is not None and _departs(rules):
        return _ruled(VALIDITY_AWARE, plan, world, at_risk, budget, rules)
    budget = _checked_budget(plan, at_risk, budget)
    cost = recovery_cost(plan, at_risk)
    view = world.belief_view()
    completed = False
    for step, closure in _steps_to_take(plan, view, budget, stop_on_doubt=True):
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
    return _result(VALIDITY_AWARE, world, budget, completed)


def _departs(rules: ExecutionRules) -> bool:
    """True when ``rules`` are not the article's (a wrong type is an error, not a silent default)."""
    from cvlib.core.rules import check_rules

    return not check_rules(rules).is_original


def _ruled(
    name: str, plan: PlanGraph, world: World, at_risk: str, budget: int | None, rules: ExecutionRules
) -> ExecutorResult:
    """Run executor ``name`` under non-default rules (see :mod:`cvlib.engine`)."""
    from cvlib.core import engine

    _checked_budget(plan, at_risk, budget)
    return engine.RULED_EXECUTORS[name](plan, engine.RuledWorld.from_world(world, rules), at_risk, budget)


EXECUTORS = {BASELINE: run_baseline, VALIDITY_AWARE: run_validity_aware}


def executor_names() -> list[str]:
    """Names :func:`run_executor` accepts, baseline first (the order of every comparison table)."""
    return list(EXECUTORS)


def run_executor(
    name: str, plan: PlanGraph, world: World, at_risk: str, budget: int | None = None, *, rules: ExecutionRules | None = None
) -> ExecutorResult:
    """Run the executor called ``name`` (see :func:`executor_names`), for callers that pick it by name.

    Arguments as for :func:`run_baseline`; an unknown name raises
    :class:`~cvlib.errors.ParameterError` listing the known ones.
    """
    try:
        runner = EXECUTORS[name]
    except KeyError:
        raise ParameterError(f"unknown executor {name!r}; expected one of {', '.join(EXECUTORS)}") from None
    return runner(plan, world, at_risk, budget, rules=rules)
