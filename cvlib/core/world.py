"""The world an executor acts in: ground truth kept apart from belief.

The world holds two things that must never be confused. *Belief* is each
fact's validity state, which executors may read. *Ground truth* is which facts
are really broken, which no executor may read. An executor never receives the
world itself: it gets a :class:`BeliefView`, whose only ways to learn ground
truth are the two revealing moments of the benchmark, executing an action and
paying for a verification. The view also keeps the books (decisions, stale
decisions, doomed work), so the measurement is taken by the world, not
reported by the executor being measured.

Events are consumed through a pointer into a tick-sorted list and expiry is
driven by a heap of horizons, so each step costs time proportional to what
changes at that step, not to the number of facts. What makes a whole run
linear: :meth:`BeliefView.execute_run` takes a stretch of plain steps in one
call, skipping syncs until the next tick at which an event or a horizon falls
due (``World._quiet_until``) and judging each distinct (interned) closure
object once between changes of ground truth.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cvlib.core.errors import ParameterError, UnknownFactError
from cvlib.core.events import Event, EventKind
from cvlib.core.facts import DOUBTFUL_STATES, Fact, ValidityState
from cvlib.core.graph import RunColumns, Step
from cvlib.core.validation import require_int


@dataclass
class Ledger:
    """Counters the world keeps while one executor runs."""

    steps_used: int = 0
    decisions_total: int = 0
    decisions_on_stale_deps: int = 0
    pre_failure_work: int = 0
    verifications: int = 0
    replans: int = 0


class World:
    """Live facts, a schedule of events, and the ground truth of what is broken.

    One world serves one executor run; build a fresh one for each executor so
    both see identical worlds.
    """

    def __init__(self, facts: Iterable[Fact] | Mapping[str, Fact], events: Iterable[Event] = ()) -> None:
        fact_values = list(facts.values()) if isinstance(facts, Mapping) else list(facts)
        self._facts: dict[str, Fact] = {}
        for fact in fact_values:
            if not isinstance(fact, Fact):
                raise ParameterError(f"a world holds Fact values, got {type(fact).__name__}: {fact!r}")
            if fact.id in self._facts:
                raise ParameterError(f"duplicate fact id {fact.id!r} in the world")
            self._facts[fact.id] = fact
        schedule = list(events)
        for event in schedule:
            if not isinstance(event, Event):
                raise ParameterError(f"a world's events are Event values, got {type(event).__name__}: {event!r}")
            if event.fact_id not in self._facts:
                raise UnknownFactError(
                    f"event at tick {event.tick} names fact {event.fact_id!r}, which the world does not hold; "
                    f"known facts: {', '.join(sorted(self._facts)) or '(none)'}"
                )
        self._events = sorted(schedule, key=lambda e: e.tick)  # stable: same-tick events keep their order
        self._next_event = 0
        self._broken: set[str] = set()
        self._not_active: dict[str, ValidityState] = {
            f.id: f.state for f in self._facts.values() if f.state is not ValidityState.ACTIVE
        }
        self._horizons = [(f.valid_until, f.id) for f in self._facts.values() if f.valid_until is not None]
        heapq.heapify(self._horizons)
        self.ledger = Ledger()

    # -- time ------------------------------------------------------------------
    @property
    def tick(self) -> int:
        """The world's clock, always the number of steps spent so far."""
        return self.ledger.steps_used

    def apply_due_events(self) -> None:
        """Apply every event due by now, then expire facts past their horizon."""
        tick = self.tick
        events = self._events
        while self._next_event < len(events) and events[self._next_event].tick <= tick:
            event = events[self._next_event]
            self._next_event += 1
            fact = self._facts[event.fact_id]
            if event.kind is EventKind.REPLACE:
                self._set(fact.replaced(event.new_value, tick))
            else:
                self._set(fact.marked_ambiguous(tick))
            if event.breaks_fact:
                # Ground truth is monotone: a later false alarm does not mend a broken fact.
                self._broken.add(event.fact_id)
        horizons = self._horizons
        while horizons and horizons[0][0] < tick:
            _, fact_id = heapq.heappop(horizons)
            fact = self._facts[fact_id]
            if fact.is_due_to_expire(tick):
                self._set(fact.expired(tick))

    def _quiet_until(self) -> int | float:
        """The first tick at which :meth:`apply_due_events` could change anything.

        An event falls due at its tick; a horizon passes one tick after
        ``valid_until``. Before this tick a sync is a no-op, which is what
        lets :meth:`BeliefView.execute_run` skip it. Anything new that a sync
        reacts to must be reflected here.
        """
        quiet: int | float = math.inf
        if self._next_event < len(self._events):
            quiet = self._events[self._next_event].tick
        if self._horizons:
            quiet = min(quiet, self._horizons[0][0] + 1)
        return quiet

    def _set(self, fact: Fact) -> None:
        self._facts[fact.id] = fact
        if fact.state is ValidityState.ACTIVE:
            self._not_active.pop(fact.id, None)
        else:
            self._not_active[fact.id] = fact.state

    def _spend(self, steps: int) -> None:
        self.ledger.steps_used += steps

    # -- ground truth (only the world and its view's revealing moments use these) --
    def _is_doomed(self, closure: frozenset[str]) -> bool:
        return bool(self._broken) and not self._broken.isdisjoint(closure)

    # -- inspection for reports and tests (not given to executors) --------------
    def fact(self, fact_id: str) -> Fact:
        """The fact as the world holds it now; an unknown id raises :class:`~cvlib.errors.UnknownFactError`."""
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
        """The schedule of events, in the order they apply."""
        return tuple(self._events)

    def belief_view(self) -> BeliefView:
        """The only handle an executor gets on this world."""
        return BeliefView(self)


class BeliefView:
    """Everything an executor may do or see in a world, and nothing more.

    Reading a fact's believed state is free; ground truth comes out only as the
    result of :meth:`execute` on an action (did it fail?) or of a paid
    :meth:`verify`.
    """

    __slots__ = ("_world",)

    def __init__(self, world: World) -> None:
        self._world = world

    @property
    def steps_used(self) -> int:
        """Steps spent so far, every kind counted (the world's clock)."""
        return self._world.ledger.steps_used

    def sync(self) -> None:
        """Let due events and expiries happen before the next decision."""
        self._world.apply_due_events()

    def state_of(self, fact_id: str) -> ValidityState:
        """What is believed about one fact (free to read; says nothing about ground truth)."""
        return self._world.fact(fact_id).state

    def believed_states(self, fact_ids: Iterable[str]) -> dict[str, ValidityState]:
        """What is believed about each of ``fact_ids``, by id."""
        return {f: self._world.fact(f).state for f in fact_ids}

    def any_in_state(self, fact_ids: frozenset[str], states: frozenset[ValidityState]) -> bool:
        """Whether any of ``fact_ids`` is believed to be in one of ``states``."""
        not_active = self._world._not_active
        if not not_active and ValidityState.ACTIVE not in states:
            return False
        active = ValidityState.ACTIVE
        return any(not_active.get(f, active) in states for f in fact_ids)

    def decide(self, closure: frozenset[str]) -> None:
        """Record that a decision is being taken on ``closure`` (the world judges if it was stale)."""
        world = self._world
        world.ledger.decisions_total += 1
        if world._is_doomed(closure):
            world.ledger.decisions_on_stale_deps += 1

    def execute(self, step: Step, closure: frozenset[str]) -> bool:
        """Spend one step carrying out ``step``; False only when an action fails against the world.

        Executing a non-action step on a broken closure is doomed work: the
        world counts it as pre-failure work but does not tell the executor.
        """
        world = self._world
        doomed = world._is_doomed(closure)
        world._spend(1)
        if step.is_action:
            return not doomed
        if doomed:
            world.ledger.pre_failure_work += 1
        return True

    def execute_run(
        self,
        columns: RunColumns,
        start: int,
        stop: int,
        budget: int,
        *,
        stop_on_doubt: bool = False,
    ) -> tuple[int, bool]:
        """Take the non-action steps at positions ``start`` to ``stop - 1`` of ``columns``, one tick each, in bulk.

        Exactly what ``sync(); decide(c); execute(step, c)`` followed by the
        budget check would do for each step, without a call per step: syncs
        are skipped while nothing can fall due (``World._quiet_until``),
        and ground truth is consulted once per distinct closure object between
        changes (:meth:`~cvlib.graph.RunColumns.count_touching`). This is the executors' fast path; like :meth:`execute`, it
        tells the executor nothing about ground truth.

        Returns ``(position, over_budget)``: it stops after the first step that
        takes ``steps_used`` past ``budget`` (``over_budget`` True), or, with
        ``stop_on_doubt``, just before deciding a step whose closure holds a
        fact not believed ACTIVE (that step's sync has happened; it is left to
        the caller), or at ``stop``.
        """
        world = self._world
        ledger = world.ledger
        steps = ledger.steps_used
        quiet = world._quiet_until()
        broken, not_active = world._broken, world._not_active
        decisions = doomed_steps = 0
        over = False
        position = start
        while position < stop:
            if steps >= quiet:
                ledger.steps_used = steps
                world.apply_due_events()
                quiet = world._quiet_until()
                broken, not_active = world._broken, world._not_active
            if stop_on_doubt and not_active:
                # Something is doubted: look at this step's closure before taking it.
                if not not_active.keys().isdisjoint(columns.closures[position]):
                    break
                end = position + 1
            else:
                # A stretch with no sync due and the budget not yet passed.
                end = min(stop, position + max(budget - steps + 1, 1), position + (quiet - steps))
            if broken:
                doomed_steps += columns.count_touching(broken, position, end)
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

    def verify(self, fact_ids: Iterable[str]) -> bool:
        """Spend one step resolving every STALE or UNKNOWN fact in ``fact_ids``.

        Each such fact that is really broken is rejected (SUPERSEDED), the rest
        are confirmed (ACTIVE). Returns False if anything was rejected.
        """
        world = self._world
        world._spend(1)
        world.ledger.verifications += 1
        tick = world.tick
        ok = True
        for fact_id in sorted(fact_ids):
            fact = world.fact(fact_id)
            if fact.state not in DOUBTFUL_STATES:
                continue
            if fact_id in world._broken:
                world._set(fact.rejected(tick))
                ok = False
            else:
                world._set(fact.confirmed(tick))
                if fact.valid_until is not None:
                    heapq.heappush(world._horizons, (fact.valid_until, fact_id))
        return ok

    def replan(self, cost: int) -> None:
        """Spend ``cost`` steps replanning."""
        self._world._spend(cost)
        self._world.ledger.replans += 1

    # No ledger here: its PFW and stale-decision counters are ground-truth
    # judgments, so an executor that could read them mid-run could learn
    # what only an action or a verification may reveal. The harness reads
    # ``World.ledger`` after the run instead.
