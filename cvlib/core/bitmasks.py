"""The bit-mask path: the article's two executors under the article's rules, stated on integers.

For the article's two executors (:func:`is_article_pair`) under the article's
rules, in a world whose facts all start ACTIVE and that holds nothing but
announced events (:func:`masked_world` says when), a run needs no world and no
object per step: fact number ``k`` is bit ``1 << k``, a step's closure is the
OR of its facts' bits, and belief and ground truth are one mask each.
:func:`article_pair_small` walks such a plan step by step;
:func:`article_pair_runs` takes it as runs of one closure and counts a
stretch of plain steps at once, for plans of few closures (the article's
diamonds and chains). Both compute what :func:`~cvlib.core.loop.run_policy`
computes for :class:`~cvlib.core.policies.Baseline` and
:class:`~cvlib.core.policies.ValidityAware`, which the property tests check
on random plans and schedules.

No caller chooses this path: :func:`~cvlib.core.runs.run_policies`, the one
entry that runs a set of policies on a set of runs, takes it whenever it
applies and runs any other choice through the loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from cvlib.core._typing import NamedTuple
from cvlib.core.events import Event, EventKind
from cvlib.core.facts import Fact, ValidityState
from cvlib.core.graph import RunColumns
from cvlib.core.loop import Policy
from cvlib.core.policies import ARTICLE_POLICIES, Baseline, ValidityAware
from cvlib.core.rules import ORIGINAL, ExecutionRules

__all__ = [
    "MAX_MASKED_FACTS",
    "BitMaskRun",
    "MaskedWorld",
    "article_pair",
    "article_pair_runs",
    "article_pair_small",
    "is_article_pair",
    "mask_plan",
    "masked_world",
]

#: One executor's counts, ``(completed, steps_used, replans, verifications, pre_failure_work, decisions_total,
#: decisions_on_stale_deps)``.
Counts = tuple[bool, int, int, int, int, int, int]

#: Most facts a world may hold for its runs to take the bit-mask path. A closure of more facts is an integer
#: of more machine words, and every mask operation would cost in proportion (a world of 166,666 facts, the
#: largest isolated-branches scenario, runs faster through the loop).
MAX_MASKED_FACTS = 60

_ACTIVE = ValidityState.ACTIVE
#: Later than any step count a run reaches.
_NEVER = 1 << 62


class MaskedWorld(NamedTuple):
    """A world's start on bits: which bit each fact is, each fact's horizon, and the schedule in the world's order.

    A named tuple rather than a value class because a sweep makes one per
    plan, by the million (the random families).
    """

    #: Fact id -> its bit number.
    bits: Mapping[str, int]
    #: Each fact's ``valid_until`` by bit number (None when it has no horizon).
    horizons: list[int | None]
    #: ``(tick, bit number, replaces, breaks)`` by tick, then as given (the world's schedule order).
    schedule: list[tuple[int, int, bool, bool]]


class BitMaskRun(NamedTuple):
    """One plan of a masked world, as the engines read it (see :func:`article_pair`).

    A named tuple for the reason :class:`MaskedWorld` is one.
    """

    #: Where each run of one closure starts, then the plan's length (``range(n + 1)`` for one run a step).
    run_starts: Sequence[int]
    #: Each run's closure mask.
    run_masks: Sequence[int]
    #: Position of the first action; the plan's length when there is none.
    first_action: int
    #: Each fact's ``valid_until`` by bit number.
    horizons: list[int | None]
    #: ``(tick, bit number, replaces, breaks)`` in the world's schedule order.
    schedule: list[tuple[int, int, bool, bool]]
    #: What a replan costs (:func:`~cvlib.core.recovery.recovery_cost`).
    flat_cost: int
    #: Steps each executor may spend.
    budget: int


def masked_world(
    facts: Sequence[Fact],
    events: Sequence[Event],
    *,
    rules: ExecutionRules | None = None,
    silent_changes: Sequence[object] = (),
    resource_events: Sequence[object] = (),
    supports: Mapping[str, str] | None = None,
) -> MaskedWorld | None:
    """The start of the world these make, on bits; None when it holds what the bit-mask path does not state.

    The path states the article's rules (None stands for them), facts that
    all start ACTIVE, and announced events; silent changes, resources and
    their outages, other rules or more than :data:`MAX_MASKED_FACTS` facts
    take the loop. The arguments are those of a :class:`~cvlib.core.world.World`
    that was already built from them, so they are not checked again.

    Parameters
    ----------
    facts : sequence of Fact
        The facts the world starts with, in order (fact ``k`` is bit ``k``).
    events : sequence of Event
        Announced changes.
    rules : ExecutionRules, optional
        The run's rules.
    silent_changes, resource_events : sequence
        What else the world holds (any makes the answer None).
    supports : mapping of str to str, optional
        Fact id -> resource (any makes the answer None).

    Returns
    -------
    MaskedWorld or None
    """
    if (
        (rules is not None and rules is not ORIGINAL and not rules.is_original)
        or silent_changes
        or resource_events
        or supports
        or len(facts) > MAX_MASKED_FACTS
    ):
        return None
    bits = {}
    for k, fact in enumerate(facts):
        if fact.state is not _ACTIVE:
            return None
        bits[fact.id] = k
    ordered = sorted(events, key=_tick) if len(events) > 1 else events  # stable: as given within a tick
    schedule = [(e.tick, bits[e.fact_id], e.kind is EventKind.REPLACE, e.breaks_fact) for e in ordered]
    return MaskedWorld(bits, [f.valid_until for f in facts], schedule)


def _tick(event: Event) -> int:
    return event.tick


def mask_plan(
    world: MaskedWorld,
    columns: RunColumns,
    at_risk: str,
    budget: int,
    masks: dict[frozenset[str], int] | None = None,
    closure_size: int | None = None,
) -> BitMaskRun:
    """A plan given by its run columns, in ``world``, as the engines read it.

    Parameters
    ----------
    world : MaskedWorld
        The world's start on bits; it holds every fact of the plan.
    columns : RunColumns
        The plan in execution order under the article's rules.
    at_risk : str
        The fact whose closure sizes the flat recovery cost.
    budget : int
        Steps each executor may spend.
    masks : dict, optional
        Closure -> mask already computed, shared by the plans of one sweep.
    closure_size : int, optional
        The closure size of ``at_risk``, when the caller has it; None counts it.

    Returns
    -------
    BitMaskRun
    """
    bits = world.bits
    known = {} if masks is None else masks
    starts, closures = columns.run_starts, columns.run_closures
    run_masks = []
    for closure in closures:
        mask = known.get(closure)
        if mask is None:
            mask = known[closure] = sum([1 << bits[f] for f in closure])
        run_masks.append(mask)
    size = closure_size
    if size is None:
        size = sum([starts[r + 1] - starts[r] for r, closure in enumerate(closures) if at_risk in closure])
    first_action = columns.actions[0] if columns.actions else starts[-1]
    return BitMaskRun(starts, run_masks, first_action, world.horizons, world.schedule, size + 1, budget)


def is_article_pair(policies: Iterable[Policy]) -> bool:
    """Whether ``policies`` are exactly the article's baseline and validity-aware executor, in that order.

    The bit-mask paths (:func:`article_pair_small`, :func:`article_pair_runs`)
    state these two and no others, so :func:`~cvlib.core.runs.run_policies` takes them only when this holds
    and runs any other choice (another executor, a subclass, another order)
    through :func:`~cvlib.core.loop.run_policy`.

    Parameters
    ----------
    policies : iterable of Policy
        Resolved policies (:func:`~cvlib.core.registry.resolve_policies`).

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




def article_pair(run: BitMaskRun) -> tuple[Counts, Counts]:
    """The baseline's and the validity-aware executor's counts on ``run``: step by step, or stretch by stretch.

    A plan whose every run is one step takes :func:`article_pair_small`
    (no run bookkeeping); any other :func:`article_pair_runs`. Both give the same counts.

    Parameters
    ----------
    run : BitMaskRun
        The plan on bit masks.

    Returns
    -------
    tuple
        For the baseline, then the validity-aware executor: ``(completed,
        steps_used, replans, verifications, pre_failure_work,
        decisions_total, decisions_on_stale_deps)``.
    """
    starts, masks, first_action, horizons, schedule, flat_cost, budget = run
    masks = masks if type(masks) is list else list(masks)
    if len(masks) == starts[-1]:
        return article_pair_small(masks, first_action, horizons, schedule, flat_cost, budget)
    starts = starts if type(starts) is list else list(starts)
    return (
        _baseline_on_runs(starts, masks, first_action, schedule, flat_cost, budget),
        _aware_on_runs(starts, masks, first_action, horizons, schedule, flat_cost, budget),
    )


def article_pair_small(
    closures: list[int],
    first_action: int,
    horizons: list[int | None],
    events: list[tuple[int, int, bool, bool]],
    flat_cost: int,
    budget: int,
) -> tuple[Counts, Counts]:
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
    if not events and horizons.count(None) == len(horizons):
        # Nothing changes and nothing expires: belief is ground truth and every fact stays ACTIVE, so
        # both executors walk the order to the first action (or until the budget runs out) without a
        # doubt, a verification, a replan or doomed work (about a fifth of a random family's plans).
        walked = _walked(len(closures), first_action, budget)
        return walked, walked
    return (
        _baseline_on_steps(closures, first_action, events, flat_cost, budget),
        _aware_on_steps(closures, first_action, horizons, events, flat_cost, budget),
    )


def _walked(n: int, first_action: int, budget: int) -> Counts:
    """Either executor's counts when nothing changes: to the first action, or until the budget runs out."""
    if first_action < n and (first_action == 0 or first_action <= budget):
        return (True, first_action + 1, 0, 0, 0, first_action + 1, 0)
    steps = min(max(budget, 0), n - 1) + 1 if n else 0
    return (False, steps, 0, 0, 0, steps, 0)


def _baseline_on_steps(
    closures: list[int], first_action: int, events: list[tuple[int, int, bool, bool]], flat_cost: int, budget: int
) -> Counts:
    """The baseline step by step: it acts on belief and learns of a break when its action fails.

    It spends one step per position and nothing else before its action, so it
    walks ``passed`` positions that are not the action: up to the action, or
    until its step count passes the budget.
    """
    n = len(closures)
    ne = len(events)
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
            return (steps <= budget, steps, 1, 0, pfw, passed + 1, pfw + 1)
        return (True, passed + 1, 0, 0, pfw, passed + 1, pfw)
    return (False, passed, 0, 0, pfw, passed, pfw)


def _apply_events(
    events: list[tuple[int, int, bool, bool]], e: int, steps: int, superseded: int, unknown: int, expired: int, broken: int
) -> tuple[int, int, int, int, int]:
    """Every event due by ``steps`` from number ``e`` on, applied to the validity-aware executor's masks.

    A replacement makes its fact SUPERSEDED, an ambiguous signal UNKNOWN
    (either clears the other and an expiry); a real change also breaks it.

    Returns
    -------
    tuple of int
        ``(e, superseded, unknown, expired, broken)`` after them.
    """
    ne = len(events)
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
    return e, superseded, unknown, expired, broken


def _expire(pending: list[tuple[int, int]], steps: int, doubt: int) -> tuple[list[tuple[int, int]], int]:
    """The horizons still pending after ``steps``, and the bits of the facts that expire now.

    A fact past its horizon expires unless it is already doubted (superseded,
    unknown or expired): ``doubt`` holds those bits.
    """
    keep = []
    expired = 0
    for entry in pending:
        if entry[0] < steps:
            if not doubt & entry[1]:
                expired |= entry[1]
        else:
            keep.append(entry)
    return keep, expired


def _renew(confirmed: int, horizons: list[int | None], pending: list[tuple[int, int]]) -> int:
    """Put the horizon of every fact a verification confirmed back among the pending ones; the earliest of them.

    Returns
    -------
    int
        The earliest horizon added (:data:`_NEVER` when none).
    """
    soonest = _NEVER
    k = 0
    while confirmed >> k:
        if confirmed >> k & 1 and horizons[k] is not None:
            valid_until: int = horizons[k]  # type: ignore[assignment]
            pending.append((valid_until, 1 << k))
            if valid_until < soonest:
                soonest = valid_until
        k += 1
    return soonest


def _aware_on_steps(
    closures: list[int],
    first_action: int,
    horizons: list[int | None],
    events: list[tuple[int, int, bool, bool]],
    flat_cost: int,
    budget: int,
) -> Counts:
    """The validity-aware executor step by step: it looks at belief before each step it doubts."""
    n = len(closures)
    ne = len(events)
    superseded = unknown = expired = broken = 0
    doubt = 0  # superseded | unknown | expired: a step whose closure meets it is looked at
    pending = [(v, 1 << k) for k, v in enumerate(horizons) if v is not None]
    soonest = min(pending)[0] if pending else _NEVER  # the earliest horizon still pending
    e = steps = pfw = stale = replans = verifications = 0
    due = events[0][0] if ne else _NEVER
    completed = False
    position = -1
    for position in range(n):
        if due <= steps:
            e, superseded, unknown, expired, broken = _apply_events(events, e, steps, superseded, unknown, expired, broken)
            due = events[e][0] if e < ne else _NEVER
            doubt = superseded | unknown | expired
        if soonest < steps:
            pending, now_expired = _expire(pending, steps, doubt)
            expired |= now_expired
            soonest = min(pending)[0] if pending else _NEVER
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
                superseded |= rejected
                unknown &= ~doubtful
                expired &= ~doubtful
                doubt = superseded | unknown | expired
                soonest = min(soonest, _renew(doubtful & ~broken, horizons, pending))
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
    return (completed, steps, replans, verifications, pfw, position + 1, stale)


def article_pair_runs(
    run_starts: list[int],
    run_masks: list[int],
    first_action: int,
    horizons: list[int | None],
    events: list[tuple[int, int, bool, bool]],
    flat_cost: int,
    budget: int,
) -> tuple[Counts, Counts]:
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
    return (
        _baseline_on_runs(run_starts, run_masks, first_action, events, flat_cost, budget),
        _aware_on_runs(run_starts, run_masks, first_action, horizons, events, flat_cost, budget),
    )


def _baseline_on_runs(
    run_starts: list[int],
    run_masks: list[int],
    first_action: int,
    events: list[tuple[int, int, bool, bool]],
    flat_cost: int,
    budget: int,
) -> Counts:
    """The baseline on runs: plain steps counted a stretch at a time, the action on its own."""
    n = run_starts[-1]
    ne = len(events)
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
    return (completed, steps, replans, 0, pfw, decisions, stale)


def _aware_on_runs(
    run_starts: list[int],
    run_masks: list[int],
    first_action: int,
    horizons: list[int | None],
    events: list[tuple[int, int, bool, bool]],
    flat_cost: int,
    budget: int,
) -> Counts:
    """The validity-aware executor on runs: a doubted step and the action one at a time, plain stretches at once."""
    n = run_starts[-1]
    ne = len(events)
    superseded = unknown = expired = broken = 0
    pending = [(v, 1 << k) for k, v in enumerate(horizons) if v is not None]
    e = steps = pfw = decisions = stale = replans = verifications = 0
    completed = False
    position = r = 0
    while position < n:
        if e < ne and events[e][0] <= steps:
            e, superseded, unknown, expired, broken = _apply_events(events, e, steps, superseded, unknown, expired, broken)
        if pending:
            pending, now_expired = _expire(pending, steps, superseded | unknown | expired)
            expired |= now_expired
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
                superseded |= rejected
                unknown &= ~doubtful
                expired &= ~doubtful
                _renew(doubtful & ~broken, horizons, pending)
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
    return (completed, steps, replans, verifications, pfw, decisions, stale)
