"""The rules as a plain loop: one step at a time, through the public belief view, under any rules.

This is the statement of the executors that the fast loop in
:mod:`cvlib.core.executors` must reproduce: no bulk stretches, no skipped
syncs, no runs of shared closures; executed and committed steps kept as
explicit lists, and the redo cost counted by its definition
(:func:`cvlib.core.recovery.redo_cost`). The property tests compare the two
on random plans, schedules and rules, and ``benchmarks/`` times the fast loop
against this one in the same run.
"""

from __future__ import annotations

from cvlib.core.executors import BASELINE, VALIDITY_AWARE, ExecutorResult, compute_budget
from cvlib.core.facts import DOUBTFUL_STATES, ValidityState
from cvlib.core.graph import PlanGraph
from cvlib.core.recovery import committed_by, recovery_cost, redo_cost
from cvlib.core.verification import expected_saving
from cvlib.core.world import World

SUPERSEDED = frozenset({ValidityState.SUPERSEDED})


def reference_run(name: str, plan: PlanGraph, world: World, at_risk: str, budget: int | None = None) -> ExecutorResult:
    """Run ``"baseline"`` or ``"validity_aware"`` step by step under ``world.rules``."""
    rules = world.rules
    budget = compute_budget(plan, at_risk) if budget is None else budget
    flat = recovery_cost(plan, at_risk)
    order = list(plan.ordered_steps())
    closures = [c for _, c in order]
    index = {step.id: i for i, (step, _) in enumerate(order)}
    n = len(order)
    view = world.belief_view()
    carry_on = rules.continues_past_actions
    strict = rules.budget_rule == "strict"
    checks = name == VALIDITY_AWARE
    executed: list[int] = []
    committed: set[int] = set()
    max_replans = 4 * n + 2 * world.schedule_size + 8
    completed = False

    def next_action(i: int) -> int:
        return next((j for j in range(i, n) if order[j][0].is_action), n - 1)

    def worth_verifying(i: int, doubtful: frozenset[str]) -> bool:
        if rules.verify_policy == "always":
            return True
        if rules.verify_policy == "never":
            return False
        action = next_action(i)
        if not carry_on:
            gain, loss = action - i + 1, flat - (action - i + 1)
        else:
            gain = sum(1 for j in range(i, action) if not doubtful.isdisjoint(closures[j])) + 1
            loss = redo_cost(rules.recovery, closures, executed, committed, doubtful)
        model = rules.verification
        return expected_saving(rules.prior_change, model.miss_rate, model.false_alarm_rate, model.cost, gain, loss) > 0

    i = 0
    while i < n:
        step, closure = order[i]
        view.sync()
        view.decide(closure, i)
        refresh: frozenset[str] | None = None
        if checks:
            down = view.resources_down(closure) if rules.checker == "dependency" else frozenset()
            superseded = view.facts_in_state(closure, SUPERSEDED)
            doubtful = view.facts_in_state(closure, DOUBTFUL_STATES)
            if down:
                refresh = down
            elif superseded:
                refresh = superseded
            elif doubtful and worth_verifying(i, doubtful) and not view.verify(closure):
                refresh = view.facts_in_state(closure, DOUBTFUL_STATES | SUPERSEDED)
        if refresh is None:
            failure = view.execute(step, closure)
            if step.is_action and not failure:
                if not carry_on:
                    completed = True
                    break
                committed |= {index[s] for s in committed_by(plan, step.id)}
                executed.append(i)
                if strict and view.steps_used > budget:
                    break
                i += 1
                continue
            if not step.is_action:
                executed.append(i)
                if view.steps_used > budget:
                    break
                i += 1
                continue
            refresh = failure
        if not carry_on:
            view.replan(flat)
            completed = view.steps_used <= budget
            break
        view.recover(redo_cost(rules.recovery, closures, executed, committed, refresh), refresh)
        if view.steps_used > budget or view.replans > max_replans:
            break
    else:
        completed = carry_on
    if strict:
        completed = completed and world.ledger.steps_used <= budget
    return ExecutorResult.from_ledger(name, world.ledger, budget, completed)


def reference_baseline(plan: PlanGraph, world: World, at_risk: str, budget: int | None = None) -> ExecutorResult:
    """The baseline, step by step."""
    return reference_run(BASELINE, plan, world, at_risk, budget)


def reference_validity_aware(plan: PlanGraph, world: World, at_risk: str, budget: int | None = None) -> ExecutorResult:
    """The validity-aware executor, step by step."""
    return reference_run(VALIDITY_AWARE, plan, world, at_risk, budget)


def reference_pfw(plan: PlanGraph, breaks: dict[str, int]) -> int:
    """The law as its module states it: non-action steps before the first action with a fact broken by their tick."""
    count = 0
    for position, (step, closure) in enumerate(plan.ordered_steps()):
        if step.is_action:
            break
        if any(f in breaks and breaks[f] <= position for f in closure):
            count += 1
    return count


def reference_break_ticks(events) -> dict[str, int]:
    """The earliest tick each fact really breaks, event by event."""
    ticks: dict[str, int] = {}
    for event in events:
        if event.breaks_fact and (event.fact_id not in ticks or event.tick < ticks[event.fact_id]):
            ticks[event.fact_id] = event.tick
    return ticks
