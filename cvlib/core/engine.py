"""The executors and their world under non-default :class:`~cvlib.rules.ExecutionRules`.

:mod:`cvlib.executors` keeps the article's hot loop untouched and hands a run
over to this module only when the rules differ from the article's. Here the
same two executors run with every option the extension chapters need:
recovery that charges for what was done (X1), verification that is noisy and
costs what it costs (X2), time-to-live and resources with outages (X4), and
the strict budget rule (X5).

The separation of belief and ground truth is kept structural, as in
:mod:`cvlib.world`: executors get a :class:`RuledView`, whose only ways to
learn ground truth are an executed action (did it fail?) and a paid
verification, whose answer may now be wrong. Noise is drawn by the world, from
the seeded generator of the verification model, never by the executor.

Under ``ExecutionRules()`` forced through this module the results equal the
original executors' exactly (``tests/test_rules.py`` checks this over random
plans and schedules), so every option is a departure from one known point.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Mapping
from dataclasses import replace

from cvlib.core.errors import ParameterError, UnknownFactError
from cvlib.core.executors import BASELINE, VALIDITY_AWARE, ExecutorResult, compute_budget, recovery_cost
from cvlib.core.facts import DOUBTFUL_STATES, Fact, ValidityState
from cvlib.core.events import Evidence, ObservationLog, ResourceEvent, SilentChange, check_supports
from cvlib.core.graph import PlanGraph, Step
from cvlib.core.recovery import committed_by, redo_cost
from cvlib.core.rules import ORIGINAL, ExecutionRules, check_rules
from cvlib.core.validation import require_int
from cvlib.core.verification import expected_saving
from cvlib.core.world import Event, EventKind, Ledger, World

_SUPERSEDED = ValidityState.SUPERSEDED
_ACTIVE = ValidityState.ACTIVE

# Internal event kinds, applied in one tick-sorted stream.
_REPLACE, _AMBIGUOUS, _SILENT, _RESOURCE = 0, 1, 2, 3


class RuledWorld:
    """A world with facts, events, silent changes, resources and outages, under ``rules``.

    Parameters
    ----------
    facts, events:
        As for :class:`cvlib.world.World`.
    rules:
        The execution rules; ``ttl`` sets each fact's horizon from the tick it
        was observed (0 at the start), and the verification model's seed
        seeds the world's noise.
    silent_changes:
        Changes nothing announces (:class:`~cvlib.freshness.SilentChange`).
    resource_events:
        Outages and restorations (:class:`~cvlib.freshness.ResourceEvent`).
    supports:
        Fact id -> the resource that makes it usable.
    """

    def __init__(
        self,
        facts: Iterable[Fact] | Mapping[str, Fact],
        events: Iterable[Event] = (),
        *,
        rules: ExecutionRules = ORIGINAL,
        silent_changes: Iterable[SilentChange] = (),
        resource_events: Iterable[ResourceEvent] = (),
        supports: Mapping[str, str] | None = None,
    ) -> None:
        rules = check_rules(rules) or ORIGINAL
        base = World(facts, events)  # validates facts and events exactly as the original world does
        self.rules = rules
        self._facts: dict[str, Fact] = dict(base.facts)
        if rules.ttl is not None:
            self._facts = {fid: replace(f, valid_until=rules.ttl) for fid, f in self._facts.items()}
        self._log = ObservationLog({fid: 0 for fid in self._facts})
        self._supports = check_supports(supports, self._facts)
        stream: list[tuple[int, int, int, object]] = []
        for seq, event in enumerate(base.events):  # already tick-sorted, stable
            stream.append((event.tick, seq, _REPLACE if event.kind is EventKind.REPLACE else _AMBIGUOUS, event))
        offset = len(stream)
        for k, change in enumerate(silent_changes):
            if not isinstance(change, SilentChange):
                raise ParameterError(f"silent_changes holds SilentChange values, got {type(change).__name__}")
            if change.fact_id not in self._facts:
                raise UnknownFactError(f"silent change at tick {change.tick} names unknown fact {change.fact_id!r}")
            stream.append((change.tick, offset + k, _SILENT, change))
        offset = len(stream)
        for k, outage in enumerate(resource_events):
            if not isinstance(outage, ResourceEvent):
                raise ParameterError(f"resource_events holds ResourceEvent values, got {type(outage).__name__}")
            stream.append((outage.tick, offset + k, _RESOURCE, outage))
        stream.sort(key=lambda item: (item[0], item[1]))
        self._stream = stream
        self._next = 0
        self._broken: set[str] = set()
        self._down: set[str] = set()
        self._horizons = [(f.valid_until, f.id) for f in self._facts.values() if f.valid_until is not None]
        heapq.heapify(self._horizons)
        self._rng = random.Random(rules.verification.seed)
        self.ledger = Ledger()

    @classmethod
    def from_world(cls, world: World, rules: ExecutionRules) -> RuledWorld:
        """The same facts and events as an original world, under ``rules``."""
        return cls(world.facts, world.events, rules=rules)

    # -- time ------------------------------------------------------------------------
    @property
    def tick(self) -> int:
        """The world's clock, always the number of steps spent so far."""
        return self.ledger.steps_used

    def apply_due_events(self) -> None:
        """Apply every event, resource change and expiry due by now, in schedule order."""
        tick = self.tick
        stream = self._stream
        while self._next < len(stream) and stream[self._next][0] <= tick:
            _, _, kind, payload = stream[self._next]
            self._next += 1
            if kind == _RESOURCE:
                if payload.up:
                    self._down.discard(payload.resource)
                else:
                    self._down.add(payload.resource)
                continue
            fact = self._facts[payload.fact_id]
            if kind == _REPLACE:
                self._facts[fact.id] = fact.replaced(payload.new_value, tick)
                self._broken.add(fact.id)
            elif kind == _AMBIGUOUS:
                self._facts[fact.id] = fact.marked_ambiguous(tick)
                if payload.ground_truth_changed:
                    self._broken.add(fact.id)
            else:  # silent: the world changes, belief does not
                self._broken.add(fact.id)
        horizons = self._horizons
        while horizons and horizons[0][0] < tick:
            _, fact_id = heapq.heappop(horizons)
            fact = self._facts[fact_id]
            if fact.is_due_to_expire(tick):
                self._facts[fact_id] = fact.expired(tick)

    # -- ground truth ------------------------------------------------------------------
    def _unusable(self, fact_id: str) -> bool:
        """Really broken, or resting on a resource that is down (operationally invalid)."""
        if fact_id in self._broken:
            return True
        resource = self._supports.get(fact_id)
        return resource is not None and resource in self._down

    def _is_doomed(self, closure: frozenset[str]) -> bool:
        if not self._broken and not self._down:
            return False
        return any(self._unusable(f) for f in closure)

    def _source_down(self, fact_id: str) -> bool:
        resource = self._supports.get(fact_id)
        return resource is not None and resource in self._down

    # -- inspection for reports and tests ----------------------------------------------------
    def fact(self, fact_id: str) -> Fact:
        """The fact as the world holds it now; an unknown id raises :class:`~cvlib.errors.UnknownFactError`."""
        try:
            return self._facts[fact_id]
        except KeyError:
            raise UnknownFactError(f"no fact {fact_id!r} in this world") from None

    @property
    def broken_facts(self) -> frozenset[str]:
        """Ground truth, for reports after a run. Executors cannot reach this."""
        return frozenset(self._broken)

    @property
    def down_resources(self) -> frozenset[str]:
        """Resources in an outage right now."""
        return frozenset(self._down)

    @property
    def observation_log(self) -> ObservationLog:
        """When each fact was last observed at its source."""
        return self._log

    def belief_view(self) -> RuledView:
        """The only handle an executor gets on this world."""
        return RuledView(self)


class RuledView:
    """What an executor may do or see in a :class:`RuledWorld`, and nothing more."""

    __slots__ = ("_world", "failure_cause")

    def __init__(self, world: RuledWorld) -> None:
        self._world = world
        #: Facts of the closure that made the last action fail, which a failing
        #: action reports (its revealing moment), so a replan knows what to re-observe.
        self.failure_cause: frozenset[str] = frozenset()

    @property
    def steps_used(self) -> int:
        """Steps spent so far, every kind counted (the world's clock)."""
        return self._world.ledger.steps_used

    @property
    def replans(self) -> int:
        """Replans paid so far."""
        return self._world.ledger.replans

    def sync(self) -> None:
        """Let due events, outages and expiries happen before the next decision."""
        self._world.apply_due_events()

    def state_of(self, fact_id: str) -> ValidityState:
        """What is believed about one fact (free to read; says nothing about ground truth)."""
        return self._world.fact(fact_id).state

    def facts_in_state(self, fact_ids: Iterable[str], states: frozenset[ValidityState]) -> frozenset[str]:
        """Those of ``fact_ids`` believed to be in one of ``states``."""
        facts = self._world._facts
        return frozenset(f for f in fact_ids if facts[f].state in states)

    def resources_down(self, fact_ids: Iterable[str]) -> frozenset[str]:
        """Facts among ``fact_ids`` whose supporting resource is announced down (the health signal)."""
        world = self._world
        if not world._down:
            return frozenset()
        return frozenset(f for f in fact_ids if world._source_down(f))

    def decide(self, closure: frozenset[str]) -> None:
        """Count one decision on ``closure``, and whether ground truth already dooms it."""
        world = self._world
        world.ledger.decisions_total += 1
        if world._is_doomed(closure):
            world.ledger.decisions_on_stale_deps += 1

    def execute(self, step: Step, closure: frozenset[str]) -> bool:
        """Spend one step on ``step``; False only for an action whose closure is broken.

        A doomed non-action step still succeeds (nothing reveals the break) and
        counts as pre-failure work; a failing action records :attr:`failure_cause`.
        """
        world = self._world
        doomed = world._is_doomed(closure)
        world.ledger.steps_used += 1
        if step.is_action:
            self.failure_cause = frozenset(f for f in closure if world._unusable(f)) if doomed else frozenset()
            return not doomed
        if doomed:
            world.ledger.pre_failure_work += 1
        return True

    def verify(self, fact_ids: Iterable[str]) -> bool:
        """Spend the model's cost resolving every STALE/UNKNOWN fact in ``fact_ids``.

        A fact whose source is up is checked at the source: really broken ->
        rejected unless the check misses; intact -> confirmed unless it raises
        a false alarm. A fact whose source is down can only be checked against
        old evidence: the check is inconclusive and the fact stays doubtful
        (unless ``launder`` is on, the wrong bookkeeping that confirms it as
        if the evidence were new). Returns False if anything was rejected or
        left unresolved.
        """
        world = self._world
        rules = world.rules
        model = rules.verification
        world.ledger.steps_used += model.cost
        world.ledger.verifications += 1
        tick = world.tick
        ok = True
        for fact_id in sorted(fact_ids):
            fact = world._facts[fact_id]
            if fact.state not in DOUBTFUL_STATES:
                continue
            if world._source_down(fact_id):
                cached = world._log.observed_at(fact_id) or 0
                evidence = Evidence(fact_id, observed_at=tick if rules.launder else cached, read_at=tick)
                if not rules.launder:
                    world._log.record(evidence)  # a read of old evidence: changes nothing
                    ok = False
                    continue
                self._confirm(fact, evidence)
                continue
            broken = fact_id in world._broken
            if broken:
                reject = not (model.miss_rate > 0.0 and world._rng.random() < model.miss_rate)
            else:
                reject = model.false_alarm_rate > 0.0 and world._rng.random() < model.false_alarm_rate
            if reject:
                world._facts[fact_id] = fact.rejected(tick)
                ok = False
            else:
                self._confirm(fact, Evidence(fact_id, observed_at=tick, read_at=tick))
        return ok

    def _confirm(self, fact: Fact, evidence: Evidence) -> None:
        world = self._world
        rules = world.rules
        observed = world._log.record(evidence)
        confirmed = fact.confirmed(evidence.read_at)
        if rules.ttl is not None and rules.ttl_refresh:
            confirmed = replace(confirmed, valid_until=observed + rules.ttl)
        world._facts[fact.id] = confirmed
        if confirmed.valid_until is not None:
            heapq.heappush(world._horizons, (confirmed.valid_until, fact.id))

    def replan(self, cost: int) -> None:
        """A flat replan: spend ``cost`` steps; the run ends after it."""
        self._world.ledger.steps_used += cost
        self._world.ledger.replans += 1

    def recover(self, cost: int, refresh: Iterable[str]) -> None:
        """A replan that carries on: spend ``cost`` and re-observe ``refresh`` at its source.

        A re-observed fact is ACTIVE, no longer broken (the plan now rests on
        its current value) and freshly observed. A fact whose source is down
        cannot be re-observed and stays as it is.
        """
        world = self._world
        world.ledger.steps_used += cost
        world.ledger.replans += 1
        tick = world.tick
        rules = world.rules
        for fact_id in sorted(refresh):
            if world._source_down(fact_id):
                continue
            world._broken.discard(fact_id)
            world._log.record(Evidence(fact_id, observed_at=tick, read_at=tick))
            fact = world._facts[fact_id]
            renewed = fact.confirmed(tick) if fact.state is not _ACTIVE else fact
            if rules.ttl is not None:
                renewed = replace(renewed, valid_until=tick + rules.ttl)
                heapq.heappush(world._horizons, (renewed.valid_until, fact_id))
            world._facts[fact_id] = renewed



# -- executors -----------------------------------------------------------------------------


def _result(name: str, world: RuledWorld, budget: int, completed: bool, rules: ExecutionRules) -> ExecutorResult:
    ledger = world.ledger  # read by the harness after the run, never through the view
    if rules.budget_rule == "strict":
        completed = completed and ledger.steps_used <= budget
    return ExecutorResult.from_ledger(name, ledger, budget, completed)


class _Run:
    """Book-keeping shared by both executors: order, executed and committed steps, recovery."""

    def __init__(self, plan: PlanGraph, world: RuledWorld, at_risk: str, budget: int | None) -> None:
        if not isinstance(world, RuledWorld):
            raise ParameterError(f"the ruled executors need a RuledWorld, got {type(world).__name__}")
        self.rules = world.rules
        self.budget = compute_budget(plan, at_risk) if budget is None else require_int("budget", budget, minimum=0)
        self.flat = recovery_cost(plan, at_risk)
        self.plan = plan
        tables = _plan_tables(plan)
        self.order, self.closures, self.index, self.next_action = tables.order, tables.closures, tables.index, tables.next_action
        self._tables = tables
        self.executed: list[int] = []
        self.committed: set[int] = set()
        self.world = world
        self.view = world.belief_view()
        # A run that keeps replanning without progress gives up (possible only
        # when an outage outlasts every replan and the budget is huge).
        self.max_replans = 4 * len(self.order) + 2 * len(world._stream) + 8

    def over_budget(self) -> bool:
        return self.view.steps_used > self.budget

    def commit(self, i: int) -> None:
        self.committed |= self._tables.committed(self.plan, i)

    def recover(self, refresh: Iterable[str]) -> bool:
        """Non-flat replan; False when the run must stop (over budget or no progress)."""
        refresh = frozenset(refresh)
        cost = redo_cost(self.rules.recovery, self.closures, self.executed, self.committed, refresh)
        self.view.recover(cost, refresh)
        return not self.over_budget() and self.view.replans <= self.max_replans


class _PlanTables:
    """What the ruled executors read off a plan, computed once per plan (sweeps run a plan many times)."""

    __slots__ = ("order", "closures", "index", "next_action", "_committed")

    def __init__(self, plan: PlanGraph) -> None:
        self.order = list(plan.ordered_steps())
        self.closures = [c for _, c in self.order]
        self.index = {s.id: i for i, (s, _) in enumerate(self.order)}
        self.next_action = [0] * len(self.order)
        upcoming = len(self.order) - 1
        for i in range(len(self.order) - 1, -1, -1):
            if self.order[i][0].is_action:
                upcoming = i
            self.next_action[i] = upcoming
        self._committed: dict[int, frozenset[int]] = {}

    def committed(self, plan: PlanGraph, i: int) -> frozenset[int]:
        """Positions a success at position ``i`` makes final: the action and its ancestors."""
        if i not in self._committed:
            ids = committed_by(plan, self.order[i][0].id)
            self._committed[i] = frozenset(self.index[sid] for sid in ids)
        return self._committed[i]


# Plans are immutable; the cache holds the plan itself so its id cannot be reused while cached.
_TABLES: dict[int, tuple[PlanGraph, _PlanTables]] = {}
_TABLES_MAX = 256


def _plan_tables(plan: PlanGraph) -> _PlanTables:
    hit = _TABLES.get(id(plan))
    if hit is not None and hit[0] is plan:
        return hit[1]
    if len(_TABLES) >= _TABLES_MAX:
        _TABLES.pop(next(iter(_TABLES)))
    tables = _PlanTables(plan)
    _TABLES[id(plan)] = (plan, tables)
    return tables


def run_baseline(
    plan: PlanGraph, world: RuledWorld, at_risk: str, budget: int | None = None
) -> ExecutorResult:
    """The baseline under ``world.rules``: learns of a break only when an action fails."""
    run = _Run(plan, world, at_risk, budget)
    view, rules, order = run.view, run.rules, run.order
    carry_on = rules.continues_past_actions
    strict = rules.budget_rule == "strict"
    completed = False
    i = 0
    while i < len(order):
        step, closure = order[i]
        view.sync()
        view.decide(closure)
        succeeded = view.execute(step, closure)
        if step.is_action:
            if succeeded:
                if not carry_on:
                    completed = True
                    break
                run.commit(i)
                run.executed.append(i)
                if strict and run.over_budget():
                    break
                i += 1
                continue
            if not carry_on:
                view.replan(run.flat)
                completed = view.steps_used <= run.budget
                break
            if not run.recover(view.failure_cause):  # the failure says which facts were wrong
                break
            continue  # retry the action
        run.executed.append(i)
        if run.over_budget():
            break
        i += 1
    else:
        completed = carry_on  # ran out of steps: the original (flat) rules call that not completed
    return _result(BASELINE, run.world, run.budget, completed, rules)


def _should_verify(run: _Run, i: int, doubtful: frozenset[str]) -> bool:
    rules = run.rules
    if rules.verify_policy == "always":
        return True
    if rules.verify_policy == "never":
        return False
    gain, loss = _gain_and_loss(run, i, doubtful)
    model = rules.verification
    return expected_saving(rules.prior_change, model.miss_rate, model.false_alarm_rate, model.cost, gain, loss) > 0


def _gain_and_loss(run: _Run, i: int, doubtful: frozenset[str]) -> tuple[int, int]:
    """Steps a caught change saves, and steps a false alarm costs, if verified at position ``i``.

    Flat recovery: catching a change skips the ``r`` steps up to and including
    the next action (the replan is paid either way); a false alarm pays the
    replan ``R`` instead of those ``r`` steps. Non-flat recovery: catching a
    change saves the doomed steps up to the action and the failed attempt; a
    false alarm costs a replan that redoes the executed steps resting on the
    doubtful facts.
    """
    action = run.next_action[i]
    remaining = action - i + 1
    if not run.rules.continues_past_actions:
        return remaining, run.flat - remaining
    # Acting on belief, the steps up to the action run once anyway; a real change then costs
    # redoing the doomed ones and the failed attempt. A false alarm costs the replan itself.
    doomed_ahead = sum(1 for j in range(i, action) if not doubtful.isdisjoint(run.closures[j]))
    redo_now = redo_cost(run.rules.recovery, run.closures, run.executed, run.committed, doubtful)
    return doomed_ahead + 1, redo_now


def run_validity_aware(
    plan: PlanGraph, world: RuledWorld, at_risk: str, budget: int | None = None
) -> ExecutorResult:
    """The validity-aware executor under ``world.rules``.

    Before each step: an announced outage under a fact of the closure
    (dependency checker only) or a SUPERSEDED fact -> replan; a doubtful fact
    -> verify if the policy says so, replan if that fails; then execute.
    """
    run = _Run(plan, world, at_risk, budget)
    view, rules, order = run.view, run.rules, run.order
    carry_on = rules.continues_past_actions
    strict = rules.budget_rule == "strict"
    dependency_aware = rules.checker == "dependency"
    completed = False
    i = 0

    def replan(refresh: Iterable[str]) -> bool:
        """True when the run goes on (non-flat and within budget)."""
        nonlocal completed
        if not carry_on:
            view.replan(run.flat)
            completed = view.steps_used <= run.budget
            return False
        return run.recover(refresh)

    while i < len(order):
        step, closure = order[i]
        view.sync()
        view.decide(closure)
        if dependency_aware:
            down = view.resources_down(closure)
            if down:
                if replan(down):
                    continue
                break
        superseded = view.facts_in_state(closure, frozenset({_SUPERSEDED}))
        if superseded:
            if replan(superseded):
                continue
            break
        doubtful = view.facts_in_state(closure, DOUBTFUL_STATES)
        if doubtful and _should_verify(run, i, doubtful) and not view.verify(closure):
            unresolved = view.facts_in_state(closure, DOUBTFUL_STATES | {_SUPERSEDED})
            if replan(unresolved):
                continue
            break
        succeeded = view.execute(step, closure)
        if step.is_action:
            if succeeded:
                if not carry_on:
                    completed = True
                    break
                run.commit(i)
                run.executed.append(i)
                if strict and run.over_budget():
                    break
                i += 1
                continue
            # reachable once verification can miss, or the checker cannot see an outage
            if replan(view.failure_cause):
                continue
            break
        run.executed.append(i)
        if run.over_budget():
            break
        i += 1
    else:
        completed = carry_on  # ran out of steps: the original (flat) rules call that not completed
    return _result(VALIDITY_AWARE, run.world, run.budget, completed, rules)


RULED_EXECUTORS = {BASELINE: run_baseline, VALIDITY_AWARE: run_validity_aware}


def run_both(
    plan: PlanGraph,
    facts: Iterable[Fact],
    events: Iterable[Event],
    at_risk: str,
    budget: int | None = None,
    rules: ExecutionRules = ORIGINAL,
    *,
    silent_changes: Iterable[SilentChange] = (),
    resource_events: Iterable[ResourceEvent] = (),
    supports: Mapping[str, str] | None = None,
) -> tuple[ExecutorResult, ExecutorResult]:
    """Both ruled executors on two identical fresh worlds (same facts, events, noise seed)."""
    facts, events = tuple(facts), tuple(events)
    silent_changes, resource_events = tuple(silent_changes), tuple(resource_events)

    def world() -> RuledWorld:
        return RuledWorld(
            facts, events, rules=rules, silent_changes=silent_changes, resource_events=resource_events, supports=supports
        )

    return run_baseline(plan, world(), at_risk, budget), run_validity_aware(plan, world(), at_risk, budget)
