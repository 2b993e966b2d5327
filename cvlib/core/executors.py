"""The executors under comparison: one loop, and the policies that make it one executor or the other.

Both executors are small deterministic state machines, not agents: they get
the same plan, a world with the same facts and events, and pay the same
recovery cost. They differ only in *when* they learn that a dependency broke.
The baseline learns it when an action fails against the world; the
validity-aware executor looks at what it believes about a step's facts before
acting, and pays to verify the doubtful ones. So there is one loop,
:func:`run_policy`, and the difference is a :class:`Policy`: what it watches,
and what it decides before a step is executed.

Adding an executor means writing a policy (its ``name``, the beliefs it
watches, and its ``check``) and registering it with :func:`register_policy`
(or announcing it in the entry-point group ``cvlib.policies``); every
scenario, sweep, trace, table and chapter can then run it by name, and takes
``policies=`` a list of names, ``"module:attribute"`` references or
:class:`Policy` objects (:func:`resolve_policies`). The article's two,
:data:`ARTICLE_POLICIES`, are the default everywhere. Results of several
executors side by side are named by one rule, :func:`policy_column`:
``{policy}_{metric}``, e.g. ``validity_aware_pfw``.

Reproduced quirk: under the article's budget rule an action that starts within
the budget but whose own step ends past it still counts as completed (the
budget is only checked after non-action steps and after a replan). It decides
no published number; ``ExecutionRules(budget_rule="strict")`` corrects it.

What makes a run linear in the plan's size: the loop hands every stretch of
plain steps (non-action steps whose facts the policy does not watch) to
:meth:`~cvlib.core.world.BeliefView.execute_run`, which takes them in one
call, under any rules; only actions and watched steps go through the body of
the loop, which remains the statement of the rules.

For sweeps of many small plans, :func:`article_pair_small` states the
article's two executors under the article's rules once more on integers (a
fact is a bit, a closure a mask, belief and ground truth one mask each), with
no world and no object per step; it computes what :func:`run_policy` computes
for them, which the property tests check on random plans and schedules.
:func:`article_pair_runs` takes the plan as runs of one closure and counts a
stretch of plain steps at once, for plans of few closures (the article's
diamonds); :func:`is_article_pair` says when a sweep may take either.
"""

from __future__ import annotations

import importlib
from bisect import bisect_left
from collections.abc import Iterable, Mapping

from cvlib.core._typing import Protocol
from cvlib.core.errors import ParameterError
from cvlib.core.facts import DOUBTFUL_STATES, ValidityState
from cvlib.core.graph import PlanGraph, RunColumns, Step, StepKind
from cvlib.core.recovery import recovery_cost, redo_cost_before
from cvlib.core.rules import ExecutionRules, check_rules
from cvlib.core.validation import require_int
from cvlib.core.values import asdict, value_class
from cvlib.core.verification import expected_saving
from cvlib.core.world import BeliefView, Ledger, Recorder, World

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ARTICLE_POLICIES",
    "BASELINE",
    "ENTRY_POINT_GROUP",
    "METRICS",
    "TIMESTAMP_ONLY",
    "VALIDITY_AWARE",
    "Baseline",
    "ExecutorResult",
    "Policy",
    "PolicyLike",
    "Replan",
    "RunState",
    "TimestampOnly",
    "ValidityAware",
    "article_pair_runs",
    "article_pair_small",
    "compute_budget",
    "executor_names",
    "get_policy",
    "is_article_pair",
    "policies",
    "policy_column",
    "policy_columns",
    "law_policies",
    "policy_names",
    "recovery_cost",
    "register_policy",
    "resolve_policies",
    "resolve_policy",
    "run_baseline",
    "run_executor",
    "run_policy",
    "run_validity_aware",
    "scur_of",
]

#: Name of the executor that learns of a broken dependency only when an action fails.
BASELINE = "baseline"
#: Name of the executor that checks what it believes about a step's facts before acting.
VALIDITY_AWARE = "validity_aware"
#: Name of the executor that doubts a fact only when its age exceeds the rules' time-to-live.
TIMESTAMP_ONLY = "timestamp_only"
#: The article's two executors, baseline first, which every entry point that runs executors runs by default.
ARTICLE_POLICIES: tuple[str, ...] = (BASELINE, VALIDITY_AWARE)
#: The entry-point group in which an installed package announces its policies (``importlib.metadata``).
ENTRY_POINT_GROUP = "cvlib.policies"
#: The per-executor quantities of a results table by column suffix; the column ``{policy}_{metric}``
#: holds this :class:`ExecutorResult` attribute of that policy's run.
METRICS: Mapping[str, str] = {
    "pfw": "pre_failure_work",
    "steps": "steps_used",
    "completed": "completed",
    "scur": "scur",
    "replans": "replans",
    "verifications": "verifications",
}

_SUPERSEDED = frozenset({ValidityState.SUPERSEDED})
_DOUBTFUL_OR_SUPERSEDED = DOUBTFUL_STATES | _SUPERSEDED


@value_class
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
        return scur_of(self.decisions_on_stale_deps, self.decisions_total)

    @classmethod
    def from_ledger(cls, executor: str, ledger: Ledger, budget: int, completed: bool) -> ExecutorResult:
        """The result of a finished run, from the counters its world kept.

        Parameters
        ----------
        executor : str
            The executor's name.
        ledger : Ledger
            The world's counters after the run.
        budget : int
            The budget the run had.
        completed : bool
            Whether the run completed.

        Returns
        -------
        ExecutorResult
        """
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
        """Every field plus ``scur``, flat, for one row of a results table.

        Returns
        -------
        dict
        """
        out = asdict(self)
        out["scur"] = self.scur
        return out


def scur_of(decisions_on_stale_deps: int, decisions_total: int) -> float:
    """SCUR from its two counts: the one definition, which :attr:`ExecutorResult.scur` and the bit-mask paths share.

    Parameters
    ----------
    decisions_on_stale_deps : int
        Decisions taken on a closure holding a really broken fact.
    decisions_total : int
        All decisions; 0 gives a SCUR of 0.

    Returns
    -------
    float
    """
    if decisions_total == 0:
        return 0.0
    return decisions_on_stale_deps / decisions_total


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

#: The registered executors by name, baseline first (the order of every comparison table).
_POLICIES: dict[str, Policy] = {BASELINE: Baseline(), VALIDITY_AWARE: ValidityAware(), TIMESTAMP_ONLY: TimestampOnly()}
#: Whether the entry points of :data:`ENTRY_POINT_GROUP` have been read into :data:`_POLICIES`.
_ENTRY_POINTS_LOADED = False

#: A policy as the entry points take it, a registered name, a ``"module:attribute"`` reference, or the object itself.
PolicyLike = str | Policy


def _check_policy(policy: object, origin: str) -> Policy:
    """``policy`` if it has what the loop calls (a name that can head a column, and the three methods)."""
    name = getattr(policy, "name", None)
    if not isinstance(name, str) or not name.isidentifier():
        raise ParameterError(
            f"{origin}: a policy needs a name made of letters, digits and underscores (it heads "
            f"columns such as {{name}}_pfw), got {name!r}"
        )
    missing = [m for m in ("watched_states", "watches_health", "check") if not callable(getattr(policy, m, None))]
    if missing:
        raise ParameterError(f"{origin}: policy {name!r} has no {', '.join(missing)} method (see cvlib.core.executors.Policy)")
    return policy  # type: ignore[return-value]


def _instantiate(obj: object, origin: str) -> Policy:
    """A policy from what a reference names: the object itself, or an instance of a class made with no arguments."""
    if isinstance(obj, type):
        cls = obj
        try:
            obj = cls()
        except TypeError as exc:
            raise ParameterError(f"{origin}: the class {cls.__name__} cannot be made without arguments ({exc})") from None
    return _check_policy(obj, origin)


def register_policy(policy: Policy) -> None:
    """Make ``policy`` runnable by name (:func:`run_executor`, traces, sweeps, the CLI) under ``policy.name``.

    Parameters
    ----------
    policy : Policy
        A new executor; its name must not be taken and must be a Python identifier
        (it heads result columns, ``{name}_pfw``).
    """
    _check_policy(policy, "register_policy")
    name = policy.name
    if name in _POLICIES:
        raise ParameterError(f"an executor called {name!r} is already registered")
    _POLICIES[name] = policy


def _load_entry_points() -> None:
    """Register every policy announced in :data:`ENTRY_POINT_GROUP` by an installed package, once.

    An entry point names a policy object or a policy class (made with no
    arguments); its policy is registered under its own ``name``, unless a
    policy of that name is already registered.
    """
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED:
        return
    _ENTRY_POINTS_LOADED = True
    from importlib.metadata import entry_points

    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
        origin = f"entry point {point.name} = {point.value} ({ENTRY_POINT_GROUP})"
        try:
            loaded = point.load()
        except Exception as exc:  # a broken plugin must not stop cvlib, but it must say so
            raise ParameterError(f"{origin} cannot be loaded: {type(exc).__name__}: {exc}") from None
        policy = _instantiate(loaded, origin)
        _POLICIES.setdefault(policy.name, policy)


def executor_names() -> list[str]:
    """Names :func:`run_executor` accepts, baseline first (the order of every comparison table).

    Includes the policies installed packages announce in :data:`ENTRY_POINT_GROUP`.

    Returns
    -------
    list of str
    """
    _load_entry_points()
    return list(_POLICIES)


def get_policy(name: str) -> Policy:
    """The registered policy called ``name``; an unknown name raises a :class:`~cvlib.core.errors.ParameterError` listing the known ones.

    Parameters
    ----------
    name : str
        An executor's name.

    Returns
    -------
    Policy
    """
    try:
        return _POLICIES[name]
    except (KeyError, TypeError):
        pass
    _load_entry_points()
    try:
        return _POLICIES[name]
    except (KeyError, TypeError):
        raise ParameterError(
            f"unknown executor {name!r}; expected one of {', '.join(_POLICIES)} (or module:attribute)"
        ) from None


def _import_reference(reference: str) -> Policy:
    """The policy named by ``"module:attribute"`` (the attribute may be dotted, and may be a class)."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ParameterError(f"policy reference {reference!r}: expected module:attribute, e.g. mypolicies:Cautious")
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise ParameterError(f"policy reference {reference!r}: cannot import module {module_name!r} ({exc})") from None
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ParameterError(f"policy reference {reference!r}: module {module_name!r} has no {attribute!r}") from None
    return _instantiate(obj, f"policy reference {reference!r}")


def _own_name(policy: Policy, origin: str) -> Policy:
    """``policy``, unless it carries the name of a registered executor of another class.

    Results are laid out by name, so such a policy's rows would be labelled
    as the registered one's. The usual way to get there is a subclass that
    sets ``name = "..."`` as a plain class attribute: the ``name`` field it
    inherits is set to its default by ``__init__`` and hides it.
    """
    registered = _POLICIES.get(policy.name)
    if registered is None or registered is policy or type(registered) is type(policy):
        return policy
    meant = type(policy).__dict__.get("name")
    hint = (f" (its class sets name = {meant!r}, but the name field it inherits is set to its default when it is made: "
            f"declare the field, name: str = {meant!r}, in a value class, or pass name={meant!r})"
            if isinstance(meant, str) and meant != policy.name else "")
    raise ParameterError(
        f"{origin}: the policy {type(policy).__qualname__} is named {policy.name!r}, the name of the registered executor "
        f"{type(registered).__qualname__}, so its results would be labelled as that one's; give it a name of its own{hint}"
    )


def resolve_policy(policy: PolicyLike) -> Policy:
    """One policy from a registered name, a ``"module:attribute"`` reference, or a policy object.

    Parameters
    ----------
    policy : str or Policy
        ``"baseline"``, ``"timestamp_only"``, ``"mypackage.policies:Cautious"`` (an
        object or a class made with no arguments), or the policy itself.

    Returns
    -------
    Policy
    """
    if isinstance(policy, str):
        if ":" in policy:
            return _own_name(_import_reference(policy), f"policy reference {policy!r}")
        return get_policy(policy)
    return _own_name(_check_policy(policy, "policies"), "policies")


def resolve_policies(policies: Iterable[PolicyLike] | PolicyLike | None = None) -> tuple[Policy, ...]:
    """The policies an entry point runs, in the order asked; None is the article's two.

    Parameters
    ----------
    policies : list of (str or Policy), a single one, or None
        Names, ``"module:attribute"`` references or policy objects; their
        names must differ (each heads its own result columns).

    Returns
    -------
    tuple of Policy
    """
    if policies is None:
        return _ARTICLE
    if isinstance(policies, str) or not isinstance(policies, Iterable):
        policies = [policies]
    resolved = tuple(resolve_policy(p) for p in policies)
    if not resolved:
        raise ParameterError(f"policies needs at least one executor; registered: {', '.join(executor_names())}")
    names = [p.name for p in resolved]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ParameterError(f"policies names {', '.join(map(repr, repeated))} more than once; got {names}")
    return resolved


def law_policies(policies: Iterable[PolicyLike] | PolicyLike | None = None) -> tuple[Policy, ...]:
    """The baseline, whose doomed work the law predicts, then any other of ``policies``: what a law check runs.

    Parameters
    ----------
    policies : list of (str or Policy), a single one, or None
        Executors to run beside the baseline; None is the baseline alone.

    Returns
    -------
    tuple of Policy
    """
    if policies is None:
        return (_POLICIES[BASELINE],)
    return (_POLICIES[BASELINE], *(p for p in resolve_policies(policies) if p.name != BASELINE))


def policy_names(policies: Iterable[PolicyLike] | PolicyLike | None = None) -> list[str]:
    """The names of :func:`resolve_policies`' policies, in order.

    Parameters
    ----------
    policies : list of (str or Policy), a single one, or None
        As for :func:`resolve_policies`.

    Returns
    -------
    list of str
    """
    return [p.name for p in resolve_policies(policies)]


def policy_column(policy: str, metric: str) -> str:
    """The one rule for naming a per-executor column: ``{policy}_{metric}``.

    Parameters
    ----------
    policy : str
        The executor's name (``"validity_aware"``).
    metric : str
        A key of :data:`METRICS` or another per-run quantity (``"pfw"``).

    Returns
    -------
    str
        E.g. ``"validity_aware_pfw"``.
    """
    return f"{policy}_{metric}"


def policy_columns(results: Mapping[str, ExecutorResult], metrics: Iterable[str]) -> dict[str, Any]:
    """Each of ``metrics`` for each executor in ``results``, grouped by metric, executors in order.

    Parameters
    ----------
    results : mapping of str to ExecutorResult
        One result per executor, keyed by name.
    metrics : iterable of str
        Keys of :data:`METRICS`.

    Returns
    -------
    dict
        ``{policy_column(name, metric): value}``, e.g. ``baseline_pfw``,
        ``validity_aware_pfw``, ``baseline_steps``, ...
    """
    out: dict[str, Any] = {}
    for metric in metrics:
        try:
            attribute = METRICS[metric]
        except KeyError:
            raise ParameterError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}") from None
        for name, result in results.items():
            out[policy_column(name, metric)] = getattr(result, attribute)
    return out


def _in_rules(world: World, rules: ExecutionRules | None) -> World:
    """``world``, or a fresh copy of it under ``rules`` when those differ from the world's own."""
    rules = check_rules(rules)
    if rules is None or rules == world.rules:
        return world
    return world.with_rules(rules)


def run_executor(
    name: PolicyLike,
    plan: PlanGraph,
    world: World,
    at_risk: str,
    budget: int | None = None,
    *,
    rules: ExecutionRules | None = None,
    recorder: Recorder | None = None,
) -> ExecutorResult:
    """Run the executor called ``name`` (see :func:`executor_names`).

    Parameters
    ----------
    name : str or Policy
        ``"baseline"``, ``"validity_aware"``, ``"timestamp_only"``, a registered
        policy's name, a ``"module:attribute"`` reference, or a policy object.
    plan, world, at_risk, budget, recorder
        As for :func:`run_policy`.
    rules : ExecutionRules, optional
        Run in a fresh copy of ``world`` under these rules instead of its own.

    Returns
    -------
    ExecutorResult
    """
    policy = resolve_policy(name)
    if not isinstance(world, World):
        raise ParameterError(f"an executor runs in a World, got {type(world).__name__}")
    return run_policy(policy, plan, _in_rules(world, rules), at_risk, budget, recorder=recorder)


def run_baseline(
    plan: PlanGraph,
    world: World,
    at_risk: str,
    budget: int | None = None,
    *,
    rules: ExecutionRules | None = None,
    recorder: Recorder | None = None,
) -> ExecutorResult:
    """Execute every step in order; learn of a broken dependency only when an action fails.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    world : World
        A fresh world (the executor only gets its belief view).
    at_risk : str
        The fact whose closure sizes the budget and the recovery cost.
    budget : int, optional
        Step budget; None computes it with :func:`compute_budget`.
    rules : ExecutionRules, optional
        Run in a fresh copy of ``world`` under these rules instead of its own.
    recorder : Recorder, optional
        Hears every step spent.

    Returns
    -------
    ExecutorResult
    """
    return run_executor(BASELINE, plan, world, at_risk, budget, rules=rules, recorder=recorder)


def run_validity_aware(
    plan: PlanGraph,
    world: World,
    at_risk: str,
    budget: int | None = None,
    *,
    rules: ExecutionRules | None = None,
    recorder: Recorder | None = None,
) -> ExecutorResult:
    """Check what is believed about a step's closure before acting on it (see :class:`ValidityAware`).

    Parameters
    ----------
    plan, world, at_risk, budget, rules, recorder
        As for :func:`run_baseline`.

    Returns
    -------
    ExecutorResult
    """
    return run_executor(VALIDITY_AWARE, plan, world, at_risk, budget, rules=rules, recorder=recorder)


def policies() -> Mapping[str, Policy]:
    """Every registered policy by name (a copy), with those installed packages announce.

    Returns
    -------
    dict of str to Policy
    """
    _load_entry_points()
    return dict(_POLICIES)


#: The article's two policies, resolved once.
_ARTICLE: tuple[Policy, ...] = tuple(_POLICIES[name] for name in ARTICLE_POLICIES)


def article_pair_small(
    closures: list[int],
    first_action: int,
    horizons: list[int | None],
    events: list[tuple[int, int, bool, bool]],
    flat_cost: int,
    budget: int,
) -> tuple[tuple[bool, int, int, int, int, int, int], tuple[bool, int, int, int, int, int, int]]:
    """The baseline and the validity-aware executor under the article's rules, on a plan given as bit masks.

    What :func:`run_policy` computes for :class:`Baseline` and
    :class:`ValidityAware` under :data:`~cvlib.core.rules.ORIGINAL` (flat
    recovery, a verification of cost 1 that never errs, verify always, no
    outages, no silent changes), in a world whose facts all start ACTIVE,
    stated on integers: fact number ``k`` is bit ``1 << k``, a step's
    closure is the OR of its facts' bits, and belief and ground truth are
    one mask each. A small plan then runs with no object per step and no
    world at all, which is what a sweep of many small random plans needs;
    the property tests check it against :func:`run_policy` on thousands of
    random plans.

    Parameters
    ----------
    closures : list of int
        Each step's closure mask, in execution order.
    first_action : int
        Position of the first action (the run ends there); ``len(closures)`` when there is none.
    horizons : list of (int or None)
        Each fact's ``valid_until`` (None: no horizon).
    events : list of (int, int, bool, bool)
        ``(tick, fact number, replaces, breaks)`` in the world's schedule
        order (by tick, then as given): a replacement (``replaces``, and
        ``breaks``), or an ambiguous signal that is (``breaks``) or is not a
        real change.
    flat_cost : int
        What a replan costs (:func:`~cvlib.core.recovery.recovery_cost`).
    budget : int
        Steps each executor may spend.

    Returns
    -------
    tuple
        For the baseline, then the validity-aware executor: ``(completed,
        steps_used, replans, verifications, pre_failure_work,
        decisions_total, decisions_on_stale_deps)``.
    """
    n = len(closures)
    ne = len(events)
    if not ne and horizons.count(None) == len(horizons):
        # Nothing changes and nothing expires: belief is ground truth and every fact stays ACTIVE, so
        # both executors walk the order to the first action (or until the budget runs out) without a
        # doubt, a verification, a replan or doomed work (about a fifth of a random family's plans).
        if first_action < n and (first_action == 0 or first_action <= budget):
            walked = (True, first_action + 1, 0, 0, 0, first_action + 1, 0)
        else:
            steps = min(max(budget, 0), n - 1) + 1 if n else 0
            walked = (False, steps, 0, 0, 0, steps, 0)
        return walked, walked
    # -- the baseline: acts on belief, learns of a break when its action fails --
    # It spends one step per position and nothing else before its action, so it walks ``passed``
    # positions that are not the action: up to the action, or until its step count passes the budget.
    passed = min(first_action, max(budget, 0) + 1, n)
    broken = e = pfw = 0
    due = events[0][0] if ne else n  # the next event's tick (n: none that a position reaches)
    for position in range(passed):
        if due <= position:
            while e < ne and events[e][0] <= position:
                if events[e][3]:
                    broken |= 1 << events[e][1]
                e += 1
            due = events[e][0] if e < ne else n
        if closures[position] & broken:
            pfw += 1
    if first_action < n and (first_action == 0 or first_action <= budget):  # the action is reached
        while e < ne and events[e][0] <= passed:
            if events[e][3]:
                broken |= 1 << events[e][1]
            e += 1
        if closures[passed] & broken:
            steps = passed + 1 + flat_cost
            baseline = (steps <= budget, steps, 1, 0, pfw, passed + 1, pfw + 1)
        else:
            baseline = (True, passed + 1, 0, 0, pfw, passed + 1, pfw)
    else:
        baseline = (False, passed, 0, 0, pfw, passed, pfw)
    # -- the validity-aware executor: looks at belief before each step ---------
    superseded = unknown = expired = broken = 0
    doubt = 0  # superseded | unknown | expired: a step whose closure meets it is looked at
    pending = [(v, 1 << k) for k, v in enumerate(horizons) if v is not None]
    never = 1 << 62  # later than any step count a run reaches
    soonest = min(pending)[0] if pending else never  # the earliest horizon still pending
    e = steps = pfw = stale = replans = verifications = 0
    due = events[0][0] if ne else never
    completed = False
    position = -1
    for position in range(n):
        if due <= steps:
            while e < ne and events[e][0] <= steps:
                _, k, replaces, breaks = events[e]
                bit = 1 << k
                if replaces:
                    superseded |= bit
                    unknown &= ~bit
                else:
                    unknown |= bit
                    superseded &= ~bit
                expired &= ~bit
                if breaks:
                    broken |= bit
                e += 1
            due = events[e][0] if e < ne else never
            doubt = superseded | unknown | expired
        if soonest < steps:
            keep = []
            for entry in pending:
                if entry[0] < steps:
                    if not doubt & entry[1]:
                        expired |= entry[1]
                else:
                    keep.append(entry)
            pending = keep
            soonest = min(pending)[0] if pending else never
            doubt = superseded | unknown | expired
        closure = closures[position]
        if closure & broken:
            stale += 1
        is_action = position == first_action
        if is_action or closure & doubt:
            if closure & superseded:
                steps += flat_cost
                replans += 1
                completed = steps <= budget
                break
            doubtful = closure & (unknown | expired)
            if doubtful:
                steps += 1
                verifications += 1
                rejected = doubtful & broken
                confirmed = doubtful & ~broken
                superseded |= rejected
                unknown &= ~doubtful
                expired &= ~doubtful
                doubt = superseded | unknown | expired
                k = 0
                while confirmed >> k:
                    if confirmed >> k & 1 and horizons[k] is not None:
                        valid_until: int = horizons[k]  # type: ignore[assignment]
                        pending.append((valid_until, 1 << k))
                        if valid_until < soonest:
                            soonest = valid_until
                    k += 1
                if rejected:
                    steps += flat_cost
                    replans += 1
                    completed = steps <= budget
                    break
        doomed = closure & broken
        steps += 1
        if is_action:
            if doomed:
                steps += flat_cost
                replans += 1
                completed = steps <= budget
            else:
                completed = True
            break
        if doomed:
            pfw += 1
        if steps > budget:
            break
    # One decision per position looked at, the last one included.
    return baseline, (completed, steps, replans, verifications, pfw, position + 1, stale)


def is_article_pair(policies: Iterable[Policy]) -> bool:
    """Whether ``policies`` are exactly the article's baseline and validity-aware executor, in that order.

    The bit-mask paths (:func:`article_pair_small`, :func:`article_pair_runs`)
    state these two and no others, so a sweep takes them only when this holds
    and runs any other choice (another executor, a subclass, another order)
    through :func:`run_policy`.

    Parameters
    ----------
    policies : iterable of Policy
        Resolved policies (:func:`resolve_policies`).

    Returns
    -------
    bool
    """
    chosen = tuple(policies)
    return (
        len(chosen) == 2
        and type(chosen[0]) is Baseline
        and type(chosen[1]) is ValidityAware
        and (chosen[0].name, chosen[1].name) == ARTICLE_POLICIES
    )


def article_pair_runs(
    run_starts: list[int],
    run_masks: list[int],
    first_action: int,
    horizons: list[int | None],
    events: list[tuple[int, int, bool, bool]],
    flat_cost: int,
    budget: int,
) -> tuple[tuple[bool, int, int, int, int, int, int], tuple[bool, int, int, int, int, int, int]]:
    """:func:`article_pair_small` on a plan given as runs of one closure, each stretch of plain steps counted at once.

    A plan whose steps share a few closures (a diamond is one run of one
    closure) would otherwise cost a pass of the loop per step although
    nothing can change inside a stretch: between two events, two horizons, a
    run boundary, the first action and the budget, every plain step adds the
    same counts, so a stretch adds them multiplied by its length. A step the
    validity-aware executor must look at (its closure holds a superseded,
    unknown or expired fact) and the action still go one at a time, as in
    :func:`article_pair_small`, whose results these are.

    Parameters
    ----------
    run_starts : list of int
        Where each run starts, then the plan's length (as
        :attr:`~cvlib.core.graph.RunColumns.run_starts`).
    run_masks : list of int
        Each run's closure mask (fact number ``k`` is bit ``1 << k``).
    first_action : int
        Position of the first action (the run ends there); the plan's length when there is none.
    horizons : list of (int or None)
        Each fact's ``valid_until`` (None: no horizon).
    events : list of (int, int, bool, bool)
        ``(tick, fact number, replaces, breaks)`` in the world's schedule order, as for :func:`article_pair_small`.
    flat_cost : int
        What a replan costs (:func:`~cvlib.core.recovery.recovery_cost`).
    budget : int
        Steps each executor may spend.

    Returns
    -------
    tuple
        For the baseline, then the validity-aware executor: ``(completed,
        steps_used, replans, verifications, pre_failure_work,
        decisions_total, decisions_on_stale_deps)``.
    """
    n = run_starts[-1]
    ne = len(events)
    # -- the baseline ------------------------------------------------------------
    broken = e = steps = pfw = decisions = stale = replans = 0
    completed = False
    position = r = 0
    while position < n:
        while e < ne and events[e][0] <= steps:
            if events[e][3]:
                broken |= 1 << events[e][1]
            e += 1
        while run_starts[r + 1] <= position:
            r += 1
        doomed = run_masks[r] & broken
        if position == first_action:
            decisions += 1
            if doomed:
                stale += 1
            steps += 1
            if doomed:
                steps += flat_cost
                replans += 1
                completed = steps <= budget
            else:
                completed = True
            break
        # Plain steps up to the run's end, the action, the next event and the step that passes the budget.
        k = min(run_starts[r + 1], first_action) - position
        if e < ne:
            k = min(k, events[e][0] - steps)
        k = min(k, budget - steps + 1)
        decisions += k
        steps += k
        position += k
        if doomed:
            stale += k
            pfw += k
        if steps > budget:
            break
    baseline = (completed, steps, replans, 0, pfw, decisions, stale)
    # -- the validity-aware executor ---------------------------------------------
    superseded = unknown = expired = broken = 0
    pending = [(v, 1 << k) for k, v in enumerate(horizons) if v is not None]
    e = steps = pfw = decisions = stale = replans = verifications = 0
    completed = False
    position = r = 0
    while position < n:
        while e < ne and events[e][0] <= steps:
            _, k, replaces, breaks = events[e]
            bit = 1 << k
            if replaces:
                superseded |= bit
                unknown &= ~bit
            else:
                unknown |= bit
                superseded &= ~bit
            expired &= ~bit
            if breaks:
                broken |= bit
            e += 1
        if pending:
            keep = []
            for entry in pending:
                if entry[0] < steps:
                    bit = entry[1]
                    if not (superseded | unknown | expired) & bit:
                        expired |= bit
                else:
                    keep.append(entry)
            pending = keep
        while run_starts[r + 1] <= position:
            r += 1
        closure = run_masks[r]
        is_action = position == first_action
        if is_action or closure & (superseded | unknown | expired):
            # One step, exactly as article_pair_small takes it.
            decisions += 1
            if closure & broken:
                stale += 1
            if closure & superseded:
                steps += flat_cost
                replans += 1
                completed = steps <= budget
                break
            doubtful = closure & (unknown | expired)
            if doubtful:
                steps += 1
                verifications += 1
                rejected = doubtful & broken
                confirmed = doubtful & ~broken
                superseded |= rejected
                unknown &= ~doubtful
                expired &= ~doubtful
                k = 0
                while confirmed >> k:
                    horizon = horizons[k]
                    if confirmed >> k & 1 and horizon is not None:
                        pending.append((horizon, 1 << k))
                    k += 1
                if rejected:
                    steps += flat_cost
                    replans += 1
                    completed = steps <= budget
                    break
            doomed = closure & broken
            steps += 1
            if is_action:
                if doomed:
                    steps += flat_cost
                    replans += 1
                    completed = steps <= budget
                else:
                    completed = True
                break
            if doomed:
                pfw += 1
            if steps > budget:
                break
            position += 1
            continue
        # Plain steps: nothing the executor watches can change before the next event or horizon.
        k = min(run_starts[r + 1], first_action) - position
        if e < ne:
            k = min(k, events[e][0] - steps)
        if pending:
            k = min(k, min(entry[0] for entry in pending) + 1 - steps)
        k = min(k, budget - steps + 1)
        decisions += k
        steps += k
        position += k
        if closure & broken:
            stale += k
            pfw += k
        if steps > budget:
            break
    return baseline, (completed, steps, replans, verifications, pfw, decisions, stale)
