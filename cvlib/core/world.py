"""The world an executor acts in: ground truth kept apart from belief.

The world holds two things that must never be confused. *Belief* is each
fact's validity state, which executors may read. *Ground truth* is which facts
are really unusable (broken, or resting on a resource that is down), which no
executor may read. An executor never receives the world itself: it gets a
:class:`BeliefView`, whose only ways to learn ground truth are the two
revealing moments of the benchmark, executing an action and paying for a
verification. The world also keeps the books (decisions, stale decisions,
doomed work), so the measurement is taken by the world, not reported by the
executor being measured.

One world serves every rule set: the article's mechanics are
``ExecutionRules()``, and the extension chapters' options (recovery models,
noisy verification, time-to-live, resources with outages) change what the
world does at a revealing moment, never how belief and ground truth are kept
apart.

What keeps a run linear: events, silent changes and outages are consumed
through a pointer into one tick-sorted stream, expiry is driven by a heap of
horizons, and :meth:`BeliefView.execute_run` takes a stretch of plain steps in
one call, skipping syncs until the next tick at which something falls due
(``World._quiet_until``) and judging each run of steps that share one
(interned) closure object once between changes of ground truth.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from enum import Enum

from cvlib.core._schedule import AMBIGUOUS as _AMBIGUOUS
from cvlib.core._schedule import REPLACE as _REPLACE
from cvlib.core._schedule import schedule as _schedule
from cvlib.core._typing import Protocol
from cvlib.core.errors import ParameterError, UnknownFactError
from cvlib.core.events import (
    Event,
    Evidence,
    ObservationLog,
    ResourceEvent,
    SilentChange,
    check_supports,
)
from cvlib.core.facts import DOUBTFUL_STATES, Fact, ValidityState
from cvlib.core.graph import RunColumns, Step, StepKind
from cvlib.core.rules import ORIGINAL, ExecutionRules, check_rules
from cvlib.core.values import replace, value_class

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import random

__all__ = ["BeliefView", "Ledger", "Recorder", "SpendKind", "World"]

_ACTIVE = ValidityState.ACTIVE
_EMPTY: frozenset[str] = frozenset()
#: A tick no run reaches, which :meth:`World._quiet_until` gives when nothing is left to fall due.
_NEVER = sys.maxsize
_NOT_ACTIVE = frozenset(ValidityState) - {ValidityState.ACTIVE}



@value_class(frozen=False, slots=False)
class Ledger:
    """Counters the world keeps while one executor runs (read by the harness after the run)."""

    steps_used: int = 0
    decisions_total: int = 0
    decisions_on_stale_deps: int = 0
    pre_failure_work: int = 0
    verifications: int = 0
    replans: int = 0


class SpendKind(str, Enum):
    """What a stretch of spent steps was spent on, as a :class:`Recorder` hears it."""

    EXECUTE = "execute"  #: a plan or decision step on a closure that still holds
    DOOMED = "doomed"  #: a plan or decision step on a closure already broken (pre-failure work)
    ACTION = "action"  #: the action, succeeding
    ACTION_FAILED = "action_failed"  #: the action, failing against the world
    VERIFY = "verify"  #: a paid verification that confirmed every doubtful fact
    VERIFY_FAILED = "verify_failed"  #: a paid verification that rejected a fact or could not resolve one
    REPLAN = "replan"  #: a replan (flat, or one that carries on)

    def __str__(self) -> str:
        return self.value


class Recorder(Protocol):
    """Something that wants to hear every step a run spends, e.g. :class:`cvlib.core.trace.TraceRecorder`.

    Attached to a view (``world.belief_view(recorder)``), it makes the view
    take every stretch one step at a time, so it hears each step; results
    are unchanged.
    """

    def decided(self, position: int) -> None:
        """A decision is being taken on the step at ``position`` of the execution order.

        Parameters
        ----------
        position : int
            The step's position.
        """

    def spent(self, start: int, steps: int, kind: SpendKind) -> None:
        """``steps`` steps from tick ``start`` were spent on ``kind`` (for the step last decided).

        Parameters
        ----------
        start : int
            The tick the stretch began.
        steps : int
            How many steps.
        kind : SpendKind
            What they were spent on.
        """


class World:
    """Live facts, a schedule of changes, and the ground truth of what is unusable.

    One world serves one executor run; build a fresh one for each executor so
    both see identical worlds.

    Parameters
    ----------
    facts : iterable or mapping of Fact
        The facts the world starts with.
    events : iterable of Event
        Announced changes (a replaced value, an ambiguous signal).
    rules : ExecutionRules
        The execution rules; ``ExecutionRules()`` is the article. ``ttl`` sets
        each fact's horizon from the tick it was observed (0 at the start),
        and the verification model's seed seeds the world's noise.
    silent_changes : iterable of SilentChange
        Changes nothing announces.
    resource_events : iterable of ResourceEvent
        Outages and restorations.
    supports : mapping of str to str, optional
        Fact id -> the resource that makes it usable.
    """

    __slots__ = (
        "rules",
        "ledger",
        "_inputs",
        "_facts",
        "_not_active",
        "_stream",
        "_next",
        "_broken",
        "_down",
        "_supports",
        "_down_facts",
        "_unusable",
        "_horizons",
        "_log",
        "_rng",
    )

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
        self.rules: ExecutionRules = check_rules(rules) or ORIGINAL
        fact_values = facts if isinstance(facts, (tuple, list)) else facts.values() if isinstance(facts, Mapping) else facts
        held: dict[str, Fact] = {}
        for fact in fact_values:
            if type(fact) is not Fact and not isinstance(fact, Fact):
                raise ParameterError(f"a world holds Fact values, got {type(fact).__name__}: {fact!r}")
            if fact.id in held:
                raise ParameterError(f"duplicate fact id {fact.id!r} in the world")
            held[fact.id] = fact
        events, silent_changes, resource_events = tuple(events), tuple(silent_changes), tuple(resource_events)
        self._inputs = (tuple(held.values()), events, silent_changes, resource_events, supports)
        self._stream = _schedule(held, events, silent_changes, resource_events)
        self._supports = check_supports(supports, held) if supports is not None else {}
        if self.rules.ttl is not None:
            held = {fid: replace(f, valid_until=self.rules.ttl) for fid, f in held.items()}
        self._facts = held
        self._not_active: dict[str, ValidityState] = {f.id: f.state for f in held.values() if f.state is not _ACTIVE}
        self._next = 0
        self._broken: set[str] = set()
        self._down: set[str] = set()
        self._down_facts: frozenset[str] = _EMPTY
        self._unusable: set[str] = self._broken  # the same object until an outage makes them differ
        self._horizons = [(f.valid_until, f.id) for f in held.values() if f.valid_until is not None]
        if len(self._horizons) > 1:
            from heapq import heapify  # loaded only by worlds whose facts expire

            heapify(self._horizons)
        self._log = ObservationLog.from_start(held)
        self._rng: random.Random | None = None
        self.ledger = Ledger()

    def with_rules(self, rules: ExecutionRules) -> World:
        """A fresh world with the same facts and schedule, under ``rules`` (nothing has happened in it yet).

        Parameters
        ----------
        rules : ExecutionRules
            The rules of the new world.

        Returns
        -------
        World
        """
        facts, events, silent, resources, supports = self._inputs
        return World(facts, events, rules=rules, silent_changes=silent, resource_events=resources, supports=supports)

    # -- time ------------------------------------------------------------------
    @property
    def tick(self) -> int:
        """The world's clock, always the number of steps spent so far."""
        return self.ledger.steps_used

    def apply_due_events(self) -> None:
        """Apply every change due by now, in schedule order, then expire facts past their horizon."""
        tick = self.ledger.steps_used
        stream = self._stream
        while self._next < len(stream) and stream[self._next][0] <= tick:
            _, _, kind, payload = stream[self._next]
            self._next += 1
            if isinstance(payload, ResourceEvent):
                if payload.up:
                    self._down.discard(payload.resource)
                else:
                    self._down.add(payload.resource)
                self._resources_changed()
            elif isinstance(payload, SilentChange):  # the world changes, belief does not
                self._break(payload.fact_id)
            elif kind == _REPLACE:
                self._set(self._facts[payload.fact_id].replaced(payload.new_value, tick))
                self._break(payload.fact_id)
            else:
                self._set(self._facts[payload.fact_id].marked_ambiguous(tick))
                if payload.ground_truth_changed:
                    self._break(payload.fact_id)
        horizons = self._horizons
        while horizons and horizons[0][0] < tick:
            from heapq import heappop

            _, fact_id = heappop(horizons)
            fact = self._facts[fact_id]
            if fact.is_due_to_expire(tick):
                self._set(fact.expired(tick))

    def _quiet_until(self) -> int:
        """The first tick at which :meth:`apply_due_events` could change anything.

        A scheduled change falls due at its tick; a horizon passes one tick
        after ``valid_until``. Before this tick a sync is a no-op, which is
        what lets :meth:`BeliefView.execute_run` skip it. Anything new that a
        sync reacts to must be reflected here.
        """
        quiet = _NEVER
        if self._next < len(self._stream):
            quiet = self._stream[self._next][0]
        if self._horizons:
            quiet = min(quiet, self._horizons[0][0] + 1)
        return quiet

    # -- belief -----------------------------------------------------------------
    def _set(self, fact: Fact) -> None:
        self._facts[fact.id] = fact
        if fact.state is _ACTIVE:
            self._not_active.pop(fact.id, None)
        else:
            self._not_active[fact.id] = fact.state

    def _confirm(self, fact: Fact, evidence: Evidence) -> None:
        """Belief follows a confirming check; the horizon is renewed only from when the evidence was observed."""
        observed = self._log.record(evidence)
        confirmed = fact.confirmed(evidence.read_at)
        if self.rules.ttl is not None and self.rules.ttl_refresh:
            confirmed = replace(confirmed, valid_until=observed + self.rules.ttl)
        self._set(confirmed)
        if confirmed.valid_until is not None:
            from heapq import heappush

            heappush(self._horizons, (confirmed.valid_until, fact.id))

    # -- ground truth (only the world and its view's revealing moments use these) --
    def _break(self, fact_id: str) -> None:
        # Ground truth is monotone under the article's rules: a later false alarm does not mend a broken fact.
        self._broken.add(fact_id)
        if self._unusable is not self._broken:
            self._unusable.add(fact_id)

    def _resources_changed(self) -> None:
        down = self._down
        self._down_facts = frozenset(f for f, r in self._supports.items() if r in down)
        self._unusable = self._broken | self._down_facts if self._down_facts else self._broken

    def _source_down(self, fact_id: str) -> bool:
        return fact_id in self._down_facts

    def _noise(self) -> float:
        if self._rng is None:
            import random  # only noisy verification draws: a scenario without it never loads the module

            self._rng = random.Random(self.rules.verification.seed)
        return self._rng.random()

    def _spend(self, steps: int) -> None:
        self.ledger.steps_used += steps

    # -- inspection for reports and tests (not given to executors) --------------
    def fact(self, fact_id: str) -> Fact:
        """The fact as the world holds it now.

        Parameters
        ----------
        fact_id : str
            The fact; an unknown id raises :class:`~cvlib.core.errors.UnknownFactError`.

        Returns
        -------
        Fact
        """
        try:
            return self._facts[fact_id]
        except KeyError:
            raise UnknownFactError(f"no fact {fact_id!r} in this world") from None

    @property
    def facts(self) -> Mapping[str, Fact]:
        """Every fact by id, as now (a copy, so changing it does not change the world)."""
        return dict(self._facts)

    @property
    def broken_facts(self) -> frozenset[str]:
        """Ground truth, for reports after a run. Executors cannot reach this."""
        return frozenset(self._broken)

    @property
    def events(self) -> tuple[Event, ...]:
        """The announced events, in the order they apply."""
        return tuple(p for _, _, kind, p in self._stream if kind in (_REPLACE, _AMBIGUOUS))  # type: ignore[misc]

    @property
    def schedule_size(self) -> int:
        """How many changes (events, silent changes, outages and restorations) are scheduled in all."""
        return len(self._stream)

    @property
    def observation_log(self) -> ObservationLog:
        """When each fact was last observed at its source."""
        return self._log

    def belief_view(self, recorder: Recorder | None = None) -> BeliefView:
        """The only handle an executor gets on this world.

        Parameters
        ----------
        recorder : Recorder, optional
            Hears every step the run spends.

        Returns
        -------
        BeliefView
        """
        return BeliefView(self, recorder)


class BeliefView:
    """Everything an executor may do or see in a world, and nothing more.

    Reading a fact's believed state, or the announced health of the resource
    behind it, is free; ground truth comes out only as the result of
    :meth:`execute` on an action (which facts made it fail) or of a paid
    :meth:`verify`. There is no ledger here: its PFW and stale-decision
    counters are ground-truth judgments, so an executor that could read them
    mid-run could learn what only an action or a verification may reveal.
    """

    __slots__ = ("_world", "_recorder")

    def __init__(self, world: World, recorder: Recorder | None = None) -> None:
        self._world = world
        self._recorder = recorder

    # -- what the executor may read ----------------------------------------------
    @property
    def steps_used(self) -> int:
        """Steps spent so far, every kind counted (the world's clock)."""
        return self._world.ledger.steps_used

    @property
    def replans(self) -> int:
        """Replans paid so far."""
        return self._world.ledger.replans

    @property
    def rules(self) -> ExecutionRules:
        """The rules this world runs under, which an executor may plan around (they are public, not ground truth)."""
        return self._world.rules

    def state_of(self, fact_id: str) -> ValidityState:
        """What is believed about one fact (free to read; says nothing about ground truth).

        Parameters
        ----------
        fact_id : str
            The fact.

        Returns
        -------
        ValidityState
        """
        return self._world.fact(fact_id).state

    def horizon_of(self, fact_id: str) -> int | None:
        """The last tick at which a fact counts as fresh (its ``valid_until``), or None when it has none.

        A horizon is a timestamp rule the holder of a fact knows, not ground
        truth: it is what makes a fact STALE, so a prompt that must carry the
        raw evidence of every state (the agent study's transcript arm) shows it.

        Parameters
        ----------
        fact_id : str
            The fact.

        Returns
        -------
        int or None
        """
        return self._world.fact(fact_id).valid_until

    def believed_states(self, fact_ids: Iterable[str]) -> dict[str, ValidityState]:
        """What is believed about each of ``fact_ids``.

        Parameters
        ----------
        fact_ids : iterable of str
            The facts.

        Returns
        -------
        dict of str to ValidityState
        """
        world = self._world
        return {f: world.fact(f).state for f in fact_ids}

    def facts_in_state(self, fact_ids: Iterable[str], states: frozenset[ValidityState]) -> frozenset[str]:
        """Those of ``fact_ids`` believed to be in one of ``states``.

        Parameters
        ----------
        fact_ids : iterable of str
            The facts to look at (a step's closure).
        states : frozenset of ValidityState
            The states asked about.

        Returns
        -------
        frozenset of str
            Empty when none.
        """
        not_active = self._world._not_active
        if _ACTIVE in states:
            return frozenset(f for f in fact_ids if not_active.get(f, _ACTIVE) in states)
        if not not_active:
            return _EMPTY
        return frozenset(f for f in fact_ids if not_active.get(f, _ACTIVE) in states)

    def resources_down(self, fact_ids: Iterable[str]) -> frozenset[str]:
        """Facts among ``fact_ids`` whose supporting resource is announced down (the health signal).

        Parameters
        ----------
        fact_ids : iterable of str
            The facts to look at.

        Returns
        -------
        frozenset of str
        """
        down = self._world._down_facts
        if not down:
            return _EMPTY
        return frozenset(f for f in fact_ids if f in down)

    # -- what the executor may do -------------------------------------------------
    def sync(self) -> None:
        """Let due events, outages and expiries happen before the next decision."""
        self._world.apply_due_events()

    def decide(self, closure: frozenset[str], position: int) -> None:
        """Record that a decision is being taken on the step at ``position``, resting on ``closure``.

        The world judges, from ground truth the executor cannot see, whether
        the decision is stale.

        Parameters
        ----------
        closure : frozenset of str
            The facts the step rests on.
        position : int
            The step's position in the execution order (for a recorder).
        """
        world = self._world
        world.ledger.decisions_total += 1
        if not world._unusable.isdisjoint(closure):
            world.ledger.decisions_on_stale_deps += 1
        if self._recorder is not None:
            self._recorder.decided(position)

    def execute(self, step: Step, closure: frozenset[str]) -> frozenset[str]:
        """Spend one step carrying out ``step``; return the facts whose failure the step revealed.

        Only an action can reveal anything: one whose closure holds an
        unusable fact fails, and its failure names those facts. Executing a
        non-action step on a broken closure is doomed work: the world counts it
        as pre-failure work but tells the executor nothing.

        Parameters
        ----------
        step : Step
            The step.
        closure : frozenset of str
            The facts it rests on.

        Returns
        -------
        frozenset of str
            Empty unless an action failed.
        """
        world = self._world
        unusable = world._unusable
        doomed = bool(unusable) and not unusable.isdisjoint(closure)
        ledger = world.ledger
        start = ledger.steps_used
        ledger.steps_used = start + 1
        if step.kind is StepKind.ACTION:
            if self._recorder is not None:
                self._heard(start, 1, SpendKind.ACTION_FAILED if doomed else SpendKind.ACTION)
            return frozenset(closure & unusable) if doomed else _EMPTY
        if doomed:
            ledger.pre_failure_work += 1
        if self._recorder is not None:
            self._heard(start, 1, SpendKind.DOOMED if doomed else SpendKind.EXECUTE)
        return _EMPTY

    def execute_run(
        self,
        columns: RunColumns,
        start: int,
        stop: int,
        budget: int,
        *,
        watched: frozenset[ValidityState] = frozenset(),
        watch_health: bool = False,
    ) -> tuple[int, bool]:
        """Take the non-action steps at positions ``start`` to ``stop - 1`` of ``columns``, one tick each, in bulk.

        Exactly what ``sync(); decide(c, k); execute(step, c)`` followed by the
        budget check would do for each step, without a call per step: syncs
        are skipped while nothing can fall due (``World._quiet_until``), and
        ground truth is consulted once per run of steps sharing one closure
        object between changes (:meth:`~cvlib.core.graph.RunColumns.count_touching`).
        This is every executor's fast path; like :meth:`execute`, it tells the
        executor nothing about ground truth. With a recorder attached, the
        steps are taken one at a time so that each is heard.

        Parameters
        ----------
        columns : RunColumns
            The plan in execution order.
        start, stop : int
            Positions to take, ``stop`` excluded.
        budget : int
            The run stops after the first step that takes ``steps_used`` past it.
        watched : frozenset of ValidityState
            Beliefs the executor wants to look at itself: the run stops just
            before deciding a step whose closure holds a fact believed to be in
            one of these states (that step's sync has happened); with ACTIVE
            among them, before every step that rests on a fact.
        watch_health : bool
            Also stop before a step whose closure holds a fact whose resource
            is announced down.

        Returns
        -------
        tuple of (int, bool)
            The position reached, and whether the budget was passed.
        """
        if self._recorder is not None:
            return self._execute_one_by_one(columns, start, stop, budget, watched, watch_health)
        world = self._world
        ledger = world.ledger
        steps = ledger.steps_used
        quiet = world._quiet_until()
        watching = bool(watched) or watch_health
        unusable = world._unusable
        looked_at = _looked_at(world, watched, watch_health) if watching else _EMPTY
        decisions = doomed_steps = 0
        over = False
        position = start
        while position < stop:
            if steps >= quiet:
                ledger.steps_used = steps
                world.apply_due_events()
                quiet = world._quiet_until()
                unusable = world._unusable
                if watching:
                    looked_at = _looked_at(world, watched, watch_health)
            if looked_at:
                # Something is watched: look at this step's closure before taking it.
                if not looked_at.isdisjoint(columns.closures[position]):
                    break
                end = position + 1
            else:
                # A stretch with no sync due and the budget not yet passed.
                end = min(stop, position + max(budget - steps + 1, 1), position + (quiet - steps))
            if unusable:
                doomed_steps += columns.count_touching(unusable, position, end)
            decisions += end - position
            steps += end - position
            position = end
            if steps > budget:
                over = True
                break
        ledger.steps_used = steps
        ledger.decisions_total += decisions
        ledger.decisions_on_stale_deps += doomed_steps
        ledger.pre_failure_work += doomed_steps
        return position, over

    def _execute_one_by_one(
        self,
        columns: RunColumns,
        start: int,
        stop: int,
        budget: int,
        watched: frozenset[ValidityState],
        watch_health: bool,
    ) -> tuple[int, bool]:
        """:meth:`execute_run` taken one step at a time, for a recorder: the statement of what the bulk path does."""
        world = self._world
        watching = bool(watched) or watch_health
        position = start
        while position < stop:
            closure = columns.closures[position]
            world.apply_due_events()
            if watching and not _looked_at(world, watched, watch_health).isdisjoint(closure):
                break
            self.decide(closure, position)
            self.execute(_PLAIN_STEP, closure)
            position += 1
            if world.ledger.steps_used > budget:
                return position, True
        return position, False

    def verify(self, fact_ids: Iterable[str]) -> bool:
        """Spend the verification model's cost resolving every STALE or UNKNOWN fact in ``fact_ids``.

        A fact whose source is up is checked at the source: really broken ->
        rejected (SUPERSEDED) unless the check misses; intact -> confirmed
        (ACTIVE) unless it raises a false alarm. A fact whose source is down
        can only be checked against old evidence: the check is inconclusive
        and the fact stays doubtful (unless the rules' ``launder`` is on, the
        wrong bookkeeping that confirms it as if the evidence were new).

        Parameters
        ----------
        fact_ids : iterable of str
            The facts to check (facts not in doubt are skipped).

        Returns
        -------
        bool
            False if anything was rejected or left unresolved.
        """
        world = self._world
        rules = world.rules
        model = rules.verification
        start = world.ledger.steps_used
        world._spend(model.cost)
        world.ledger.verifications += 1
        tick = world.tick
        ok = True
        for fact_id in sorted(fact_ids):
            fact = world.fact(fact_id)
            if fact.state not in DOUBTFUL_STATES:
                continue
            if world._source_down(fact_id):
                cached = world._log.observed_at(fact_id) or 0
                if not rules.launder:
                    world._log.record(Evidence(fact_id, observed_at=cached, read_at=tick))  # a read: changes nothing
                    ok = False
                    continue
                world._confirm(fact, Evidence(fact_id, observed_at=tick, read_at=tick))
                continue
            if fact_id in world._broken:
                reject = not (model.miss_rate > 0.0 and world._noise() < model.miss_rate)
            else:
                reject = model.false_alarm_rate > 0.0 and world._noise() < model.false_alarm_rate
            if reject:
                world._set(fact.rejected(tick))
                ok = False
            else:
                world._confirm(fact, Evidence(fact_id, observed_at=tick, read_at=tick))
        self._heard(start, model.cost, SpendKind.VERIFY if ok else SpendKind.VERIFY_FAILED)
        return ok

    def replan(self, cost: int) -> None:
        """A flat replan: spend ``cost`` steps (the run ends after it).

        Parameters
        ----------
        cost : int
            Steps the replan costs.
        """
        ledger = self._world.ledger
        start = ledger.steps_used
        ledger.steps_used = start + cost
        ledger.replans += 1
        if self._recorder is not None:
            self._heard(start, cost, SpendKind.REPLAN)

    def recover(self, cost: int, refresh: Iterable[str]) -> None:
        """A replan that carries on: spend ``cost`` and re-observe ``refresh`` at its source.

        A re-observed fact is ACTIVE, no longer broken (the plan now rests on
        its current value) and freshly observed. A fact whose source is down
        cannot be re-observed and stays as it is.

        Parameters
        ----------
        cost : int
            Steps the replan costs.
        refresh : iterable of str
            The facts to re-observe.
        """
        world = self._world
        start = world.ledger.steps_used
        world._spend(cost)
        world.ledger.replans += 1
        tick = world.tick
        ttl = world.rules.ttl
        for fact_id in sorted(refresh):
            if world._source_down(fact_id):
                continue
            world._broken.discard(fact_id)
            if world._unusable is not world._broken:
                world._unusable.discard(fact_id)
            world._log.record(Evidence(fact_id, observed_at=tick, read_at=tick))
            fact = world._facts[fact_id]
            renewed = fact.confirmed(tick) if fact.state is not _ACTIVE else fact
            if ttl is not None:
                renewed = replace(renewed, valid_until=tick + ttl)
                from heapq import heappush

                heappush(world._horizons, (tick + ttl, fact_id))
            world._set(renewed)
        self._heard(start, cost, SpendKind.REPLAN)

    def _heard(self, start: int, steps: int, kind: SpendKind) -> None:
        if self._recorder is not None:
            self._recorder.spent(start, steps, kind)


def _looked_at(world: World, watched: frozenset[ValidityState], watch_health: bool) -> AbstractSet[str]:
    """Facts whose belief (or announced health) an executor watching these wants to see for itself.

    Watching ACTIVE too means watching every fact: such an executor (a language
    model asked before every step) is handed every step that rests on a fact.
    """
    not_active = world._not_active
    believed: AbstractSet[str]
    if _ACTIVE in watched:
        believed = world._facts.keys()
    elif not not_active:
        believed = _EMPTY
    elif watched >= _NOT_ACTIVE:
        believed = not_active.keys()
    else:
        believed = {f for f, s in not_active.items() if s in watched}
    if watch_health and world._down_facts:
        return world._down_facts.union(believed)
    return believed


#: What the bulk path hands to :meth:`BeliefView.execute` for a plain (non-action) step when recording.
_PLAIN_STEP = Step("plain", StepKind.PLAN)
