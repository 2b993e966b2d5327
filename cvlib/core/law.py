"""The closed-form law of pre-failure work, predicted from structure alone.

The baseline executes one step per tick until its first action, so the step at
position *i* of the topological order is decided at tick *i* and sees every
event due by then. It does doomed work exactly on the non-action steps before
the first action whose closure holds a fact already broken at their tick:

    PFW = #{ non-action step s before the first action :
             some fact f in closure(s) breaks at a tick <= position(s) }

With one fact breaking at tick *t*, and no non-action step holding the fact
after the first action (:func:`closed_form_applies`), this is the article's
law, :func:`predicted_pfw_single`: the non-action steps holding the fact whose
position is >= t; with t = 0 it is closure size - 1. That premise holds for
the article's chains and isolated branches and for its diamonds up to ten
layers, but not always past them: the order breaks ties by the smallest id as
a string, so in a diamond of eleven layers or more the action ``L10_0`` can be
ready, and run, before steps of layer 9 (``"L10_0" < "L9_5"``); the baseline
stops at the action and those steps never run, so the closed form counts steps
the run never reaches while the general law above stays exact. The prediction
never runs an executor; :func:`~cvlib.experiments.law_check.check_law` runs
them and compares, saying which law each case checks.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet

from cvlib.core.errors import UnknownFactError
from cvlib.core.graph import PlanGraph, RunColumns
from cvlib.core.validation import require_int

TYPE_CHECKING = False
if TYPE_CHECKING:

    from cvlib.core.events import Event


def break_ticks(events: Iterable[Event]) -> dict[str, int]:
    """For each fact some event really breaks, the earliest tick at which it breaks.

    Parameters
    ----------
    events : iterable of Event
        A schedule.

    Returns
    -------
    dict of str to int
    """
    ticks: dict[str, int] = {}
    for event in events:
        if event.breaks_fact:
            ticks[event.fact_id] = min(event.tick, ticks.get(event.fact_id, event.tick))
    return ticks


def predicted_pfw(plan: PlanGraph, breaks: Mapping[str, int], *, through_actions: bool = False) -> int:
    """Baseline PFW predicted from the plan and the tick each fact breaks (see module docstring).

    Counted once per run of steps sharing one closure (see
    :class:`~cvlib.core.graph.RunColumns`): a run's earliest break tick is
    found once, and the steps of the run at or after it are counted by
    subtraction. ``through_actions=True`` predicts it for runs that go on past
    a successful action (the non-flat recovery models of
    :mod:`cvlib.core.recovery`); see :func:`predicted_pfw_through_actions`.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    breaks : dict
        Fact id -> the earliest tick it really breaks (see :func:`break_ticks`).
    through_actions : bool
        Predict for runs that continue past successful actions.

    Returns
    -------
    int
    """
    if through_actions:
        return predicted_pfw_through_actions(plan, breaks)
    return predicted_pfw_columns(plan.run_columns(), breaks)


def predicted_pfw_columns(columns: RunColumns, breaks: Mapping[str, int]) -> int:
    """:func:`predicted_pfw` of a plan given by its run columns, for a caller that has them without the plan.

    A sweep that lays a generator's plans out by construction (the article's
    topology grid) never builds the :class:`~cvlib.core.graph.PlanGraph`,
    and the law reads nothing else.

    Parameters
    ----------
    columns : RunColumns
        The plan in execution order (:meth:`~cvlib.core.graph.PlanGraph.run_columns`).
    breaks : dict
        Fact id -> the earliest tick it really breaks (see :func:`break_ticks`).

    Returns
    -------
    int
    """
    if not breaks:
        return 0
    actions, run_starts, run_closures = columns.actions, columns.run_starts, columns.run_closures
    first_action = actions[0] if actions else len(columns.closures)
    before = bisect_left(run_starts, first_action)  # the runs that start before the first action
    if len(breaks) == 1:  # one fact breaks (every named scenario): each run holding it counts from that tick
        ((fact, when),) = breaks.items()
        count = 0
        for r in range(before):
            if fact in run_closures[r]:
                count += max(0, min(run_starts[r + 1], first_action) - max(run_starts[r], when))
        return count
    broken = frozenset(breaks)
    # Only runs whose closure holds a broken fact can count (isdisjoint walks the smaller set, in C).
    touched = [r for r in range(before) if not broken.isdisjoint(run_closures[r])]
    earliest: dict[int, int | None] = {}  # closure object -> earliest break among its facts
    count = 0
    for r in touched:
        closure = run_closures[r]
        key = id(closure)
        if key in earliest:
            tick = earliest[key]
        else:
            tick = earliest[key] = _earliest_break(closure, breaks, _NONE)
        if tick is not None:
            count += max(0, min(run_starts[r + 1], first_action) - max(run_starts[r], tick))
    return count


def predicted_pfw_masks(closures: Sequence[int], first_action: int, breaks: Iterable[tuple[int, int]]) -> int:
    """:func:`predicted_pfw` of a plan given as closure bit masks in execution order, for a sweep of many small plans.

    The law reads only which facts each step rests on, where the first
    action is and when facts break; a sweep that draws its plans straight as
    bit masks (fact number ``k`` is bit ``1 << k``) never builds a
    :class:`~cvlib.core.graph.PlanGraph` nor a set per closure. Positions are
    walked in stretches between break ticks, so a stretch before the first
    break, when nothing is broken yet, costs nothing.

    Parameters
    ----------
    closures : sequence of int
        Each step's closure mask, in execution order.
    first_action : int
        Position of the first action; ``len(closures)`` when there is none.
    breaks : iterable of (int, int)
        ``(tick, mask)`` of each real break: the facts of ``mask`` break at ``tick``.

    Returns
    -------
    int
    """
    due = sorted(breaks)
    count = broken = i = 0
    position = due[0][0] if due else first_action
    while position < first_action:
        while i < len(due) and due[i][0] <= position:
            broken |= due[i][1]
            i += 1
        stop = min(due[i][0], first_action) if i < len(due) else first_action
        count += sum([1 for closure in closures[position:stop] if closure & broken])
        position = stop
    return count


_NONE: frozenset[str] = frozenset()


def _earliest_break(closure: frozenset[str], breaks: Mapping[str, int], skip: AbstractSet[str]) -> int | None:
    """The earliest tick at which a fact of ``closure`` not in ``skip`` breaks (None: none does)."""
    if len(breaks) < len(closure):
        ticks = [tick for f, tick in breaks.items() if f in closure and f not in skip]
    else:
        ticks = [breaks[f] for f in closure if f in breaks and f not in skip]
    return min(ticks) if ticks else None


def predicted_pfw_through_actions(plan: PlanGraph, breaks: Mapping[str, int]) -> int:
    """Baseline PFW when the run continues past successful actions (multi-action plans).

    The baseline walks the order one step per tick. A non-action step is
    doomed when its closure holds a fact broken by its tick and not yet
    re-observed; an action whose closure holds such a fact fails, and the
    replan re-observes the facts the failure reports as wrong, after which
    the action is retried and succeeds. A successful action changes nothing. So

        PFW = #{ non-action step s : some f in closure(s) broke at a tick <= position(s)
                 and no action a with f in closure(a) failed before s }

    Exact when every break is due by the first failing action: a replan
    moves the clock by a model-dependent cost, so a break scheduled after it
    lands at a position only the executor knows. (With one break, or all
    breaks at tick 0, that condition always holds.) Counted per stretch of a
    run between actions; only an action looks at single facts.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    breaks : dict
        Fact id -> the earliest tick it really breaks.

    Returns
    -------
    int
    """
    if not breaks:
        return 0
    columns = plan.run_columns()
    actions, run_starts, run_closures = columns.actions, columns.run_starts, columns.run_closures
    refreshed: set[str] = set()
    earliest: dict[int, int | None] = {}  # closure object -> earliest break not yet refreshed
    count = 0
    upcoming = 0  # index into ``actions`` of the first action at or after ``lo``
    for r, closure in enumerate(run_closures):
        lo, hi = run_starts[r], run_starts[r + 1]
        while lo < hi:
            while upcoming < len(actions) and actions[upcoming] < lo:
                upcoming += 1
            stop = min(actions[upcoming], hi) if upcoming < len(actions) else hi
            if stop > lo:  # plain steps lo .. stop - 1
                key = id(closure)
                if key in earliest:
                    tick = earliest[key]
                else:
                    tick = earliest[key] = _earliest_break(closure, breaks, refreshed)
                if tick is not None:
                    count += max(0, stop - max(lo, tick))
            if stop == hi:
                break
            # The action at ``stop`` fails if a fact of its closure broke by now and was not re-observed.
            due = [f for f in closure if f in breaks and breaks[f] <= stop] if len(closure) <= len(breaks) else [
                f for f, tick in breaks.items() if tick <= stop and f in closure
            ]
            if any(f not in refreshed for f in due):
                refreshed.update(due)
                earliest.clear()
            lo = stop + 1
    return count


def closed_form_applies(plan: PlanGraph, fact_id: str) -> bool:
    """Whether the article's closed form can be exact for ``fact_id``: no non-action step holding it runs after the first action.

    The baseline stops at its first action (under the article's flat
    recovery), so a non-action step after it is never executed; the closed
    form (:func:`predicted_pfw_single`) would still count it. When this is
    False, only the general law (:func:`predicted_pfw`) predicts the run.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    fact_id : str
        A fact some step requires.

    Returns
    -------
    bool
    """
    plan.require_fact(fact_id)
    columns = plan.run_columns()
    actions, run_starts = columns.actions, columns.run_starts
    if not actions:
        return True
    first = actions[0]
    for r, closure in enumerate(columns.run_closures):
        lo, hi = max(run_starts[r], first + 1), run_starts[r + 1]
        if hi > lo and fact_id in closure and hi - lo > bisect_left(actions, hi) - bisect_left(actions, lo):
            return False
    return True


def predicted_pfw_single(plan: PlanGraph, fact_id: str, change_tick: int) -> int:
    """The article's form: non-action steps holding ``fact_id`` at positions >= ``change_tick``.

    Kept exactly as the article states it, so it is exact only when
    :func:`closed_form_applies`; past ten layers a diamond's string tie-break
    can put steps after the action, which this form still counts.

    Parameters
    ----------
    plan : PlanGraph
        The plan.
    fact_id : str
        The fact that changes; it must be required by some step.
    change_tick : int
        The tick it changes at.

    Returns
    -------
    int
    """
    require_int("change_tick", change_tick, minimum=0)
    if fact_id not in plan.facts:
        raise UnknownFactError(f"fact {fact_id!r} is not required by any step of the plan")
    columns = plan.run_columns()
    actions, run_starts = columns.actions, columns.run_starts
    count = 0
    for r, closure in enumerate(columns.run_closures):
        if fact_id in closure:
            lo, hi = max(run_starts[r], change_tick), run_starts[r + 1]
            if hi > lo:
                count += hi - lo - (bisect_left(actions, hi) - bisect_left(actions, lo))
    return count
