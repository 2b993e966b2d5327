"""The one executor loop: :func:`run_policy`, the run state it keeps and the protocol a policy follows.

Both executors are small deterministic state machines, not agents: they get
the same plan, a world with the same facts and events, and pay the same
recovery cost. They differ only in *when* they learn that a dependency broke.
So there is one loop, :func:`run_policy`, and the difference is a
:class:`Policy` (:mod:`cvlib.core.policies`): what it watches, and what it
decides before a step is executed.

Reproduced quirk: under the article's budget rule an action that starts within
the budget but whose own step ends past it still counts as completed (the
budget is only checked after non-action steps and after a replan). It decides
no published number; ``ExecutionRules(budget_rule="strict")`` corrects it.

What makes a run linear in the plan's size: the loop hands every stretch of
plain steps (non-action steps whose facts the policy does not watch) to
:meth:`~cvlib.core.world.BeliefView.execute_run`, which takes them in one
call, under any rules; only actions and watched steps go through the body of
the loop, which remains the statement of the rules.
"""

from __future__ import annotations

from bisect import bisect_left

from cvlib.core._typing import Protocol
from cvlib.core.errors import ParameterError
from cvlib.core.facts import ValidityState
from cvlib.core.graph import PlanGraph, RunColumns, Step, StepKind
from cvlib.core.recovery import recovery_cost, redo_cost_before
from cvlib.core.results import ExecutorResult
from cvlib.core.rules import ExecutionRules
from cvlib.core.validation import require_int
from cvlib.core.values import value_class
from cvlib.core.world import BeliefView, Recorder, World

__all__ = ["Policy", "Replan", "RunState", "compute_budget", "run_policy"]


def compute_budget(plan: PlanGraph, at_risk: str) -> int:
    """Steps in the plan + closure size of the fact at risk + 1.

    Computed once from structure, before anything runs: it knows which fact is
    at risk but never when, or whether, it breaks.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    at_risk : str
        The fact at risk; it must be required by some step.

    Returns
    -------
    int
    """
    plan.require_fact(at_risk, "fact at risk")
    return len(plan) + plan.closure_size(at_risk) + 1



@value_class
class Replan:
    """A policy's verdict that the step must not be executed: replan, re-observing ``refresh``."""

    refresh: frozenset[str]


class RunState:
    """What the loop knows of its own progress: the plan in order, the budget, what is committed.

    A policy receives it read-only, to weigh a decision (what verifying now
    would save, what a replan would cost); only the loop changes it.
    """

    __slots__ = ("plan", "columns", "rules", "budget", "flat_cost", "committed")

    def __init__(self, plan: PlanGraph, rules: ExecutionRules, budget: int, flat_cost: int) -> None:
        self.plan = plan
        self.columns: RunColumns = plan.run_columns()
        self.rules = rules
        self.budget = budget
        self.flat_cost = flat_cost
        #: Positions a successful action has made final (their own action and every step it rests on).
        self.committed: set[int] = set()

    def next_action(self, position: int) -> int:
        """Position of the first action at or after ``position``.

        Parameters
        ----------
        position : int
            A position in the execution order.

        Returns
        -------
        int
            The last position when no action is left.
        """
        actions = self.columns.actions
        k = bisect_left(actions, position)
        return actions[k] if k < len(actions) else len(self.columns.closures) - 1

    def redo_cost(self, position: int, refresh: frozenset[str]) -> int:
        """What a replan that carries on costs at ``position`` under the rules' recovery model.

        Parameters
        ----------
        position : int
            The step that triggered the replan.
        refresh : frozenset of str
            The facts the replan re-observes.

        Returns
        -------
        int
        """
        return redo_cost_before(self.rules.recovery, self.columns, position, self.committed, refresh)

    def gain_and_loss(self, position: int, doubtful: frozenset[str]) -> tuple[int, int]:
        """Steps a caught change saves, and steps a false alarm costs, if verified at ``position``.

        Flat recovery: catching a change skips the ``r`` steps up to and
        including the next action (the replan is paid either way); a false
        alarm pays the replan ``R`` instead of those ``r`` steps. Recovery
        that carries on: acting on belief, the steps up to the action run once
        anyway, and a real change then costs redoing the doomed ones and the
        failed attempt; a false alarm costs a replan that redoes the executed
        steps resting on the doubtful facts.

        Parameters
        ----------
        position : int
            Where the verification would happen.
        doubtful : frozenset of str
            The doubtful facts of the step's closure.

        Returns
        -------
        tuple of (int, int)
            ``(gain, loss)``.
        """
        action = self.next_action(position)
        remaining = action - position + 1
        if not self.rules.continues_past_actions:
            return remaining, self.flat_cost - remaining
        doomed_ahead = self.columns.count_touching(doubtful, position, action)
        return doomed_ahead + 1, self.redo_cost(position, doubtful)


class Policy(Protocol):
    """What makes the one loop a particular executor.

    The loop takes every step the policy does not watch in bulk (sync, decide,
    execute, budget check); for a watched step or an action it calls
    :meth:`check` after the decision and before executing.
    """

    @property
    def name(self) -> str:
        """The executor's name in results and tables."""

    def watched_states(self, rules: ExecutionRules) -> frozenset[ValidityState]:
        """Beliefs that make the loop hand a step to :meth:`check` (empty: only actions are handed over).

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules.

        Returns
        -------
        frozenset of ValidityState
        """

    def watches_health(self, rules: ExecutionRules) -> bool:
        """Whether a fact whose resource is announced down also makes the loop hand its step over.

        Parameters
        ----------
        rules : ExecutionRules
            The world's rules.

        Returns
        -------
        bool
        """

    def check(self, view: BeliefView, run: RunState, position: int, closure: frozenset[str]) -> Replan | None:
        """Before executing the step at ``position``: go ahead, or replan.

        Parameters
        ----------
        view : BeliefView
            The executor's handle on the world.
        run : RunState
            The loop's progress (read only).
        position : int
            The step's position in the execution order.
        closure : frozenset of str
            The facts the step rests on.

        Returns
        -------
        Replan or None
            None to execute the step.
        """



def run_policy(
    policy: Policy,
    plan: PlanGraph,
    world: World,
    at_risk: str,
    budget: int | None = None,
    *,
    recorder: Recorder | None = None,
) -> ExecutorResult:
    """Run the one executor loop with ``policy`` on ``plan`` in ``world``, under the world's rules.

    Parameters
    ----------
    policy : Policy
        What to watch and what to decide before a step (:class:`Baseline`, :class:`ValidityAware`, or yours).
    plan : PlanGraph
        The plan.
    world : World
        A fresh world; the executor only gets its belief view.
    at_risk : str
        The fact whose closure sizes the budget and the flat recovery cost.
    budget : int, optional
        Step budget; None computes it with :func:`compute_budget`.
    recorder : Recorder, optional
        Hears every step spent (see :mod:`cvlib.core.trace`); results are unchanged.

    Returns
    -------
    ExecutorResult
        Read from the world's ledger after the run.
    """
    if not isinstance(world, World):
        raise ParameterError(f"an executor runs in a World, got {type(world).__name__}")
    if not isinstance(plan, PlanGraph):
        raise ParameterError(f"an executor runs a PlanGraph, got {type(plan).__name__}")
    if budget is None:
        budget = compute_budget(plan, at_risk)
    elif type(budget) is not int or budget < 0:
        budget = require_int("budget", budget, minimum=0)
    rules = world.rules
    plan = plan.with_tie_break(rules.order)  # the plan itself under the article's order
    run = RunState(plan, rules, budget, recovery_cost(plan, at_risk))
    view = world.belief_view(recorder)
    columns = run.columns
    closures, actions = columns.closures, columns.actions
    n = len(closures)
    watched, health = policy.watched_states(rules), policy.watches_health(rules)
    carry_on = rules.continues_past_actions
    strict = rules.budget_rule == "strict"
    # A run that keeps replanning without progress gives up (possible only when an
    # outage outlasts every replan and the budget is huge).
    max_replans = 4 * n + 2 * world.schedule_size + 8
    completed = False
    position = 0
    upcoming = 0  # index into ``actions`` of the first action at or after ``position``
    while True:
        while upcoming < len(actions) and actions[upcoming] < position:
            upcoming += 1
        stop = actions[upcoming] if upcoming < len(actions) else n
        position, over_budget = view.execute_run(columns, position, stop, budget, watched=watched, watch_health=health)
        if over_budget:
            break
        if position >= n:
            completed = carry_on  # ran out of steps: the article's (flat) rules call that not completed
            break
        # An action, or a step the policy watches: one step at a time. The view
        # needs only the step's kind, so no Step value is made for it.
        closure = closures[position]
        is_action = position == stop
        view.sync()
        view.decide(closure, position)
        verdict = policy.check(view, run, position, closure)
        if verdict is None:
            failure = view.execute(_ACTION_STEP if is_action else _PLAIN_STEP, closure)
            if not is_action:
                position += 1
                if view.steps_used > budget:
                    break
                continue
            if not failure:
                if not carry_on:
                    completed = True
                    break
                run.committed |= plan.ancestors_at(position, run.committed)
                position += 1
                if strict and view.steps_used > budget:
                    break
                continue
            refresh = failure  # the failure says which facts were wrong
        else:
            refresh = verdict.refresh
        if not carry_on:
            view.replan(run.flat_cost)
            completed = view.steps_used <= budget
            break
        view.recover(run.redo_cost(position, refresh), refresh)
        if view.steps_used > budget or view.replans > max_replans:
            break
        # and retry the same step
    if strict:
        completed = completed and world.ledger.steps_used <= budget
    # The ledger is read by the harness after the run, never through the view.
    return ExecutorResult.from_ledger(policy.name, world.ledger, budget, completed)


# What the loop hands BeliefView.execute (the view reads only whether the step is an action).
_ACTION_STEP = Step("action", StepKind.ACTION)
_PLAIN_STEP = Step("plain", StepKind.DECISION)

