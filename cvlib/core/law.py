"""The closed-form law of pre-failure work, predicted from structure alone.

The baseline executes one step per tick until its first action, so the step at
position *i* of the topological order is decided at tick *i* and sees every
event due by then. It does doomed work exactly on the non-action steps before
the first action whose closure holds a fact already broken at their tick:

    PFW = #{ non-action step s before the first action :
             some fact f in closure(s) breaks at a tick <= position(s) }

With one fact breaking at tick *t* and the action last (all the article's
generators), this is the article's law: the non-action steps holding the fact
whose position is >= t; with t = 0 it is closure size - 1. The prediction
never runs an executor; :func:`~cvlib.experiments.law_check.check_law` runs them and compares.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from cvlib.core.errors import UnknownFactError
from cvlib.core.graph import PlanGraph
from cvlib.core.validation import require_int

if TYPE_CHECKING:

    from cvlib.core.events import Event


def break_ticks(events: Iterable[Event]) -> dict[str, int]:
    """For each fact some event really breaks, the earliest tick at which it breaks."""
    ticks: dict[str, int] = {}
    for event in events:
        if event.breaks_fact:
            ticks[event.fact_id] = min(event.tick, ticks.get(event.fact_id, event.tick))
    return ticks


def predicted_pfw(plan: PlanGraph, breaks: Mapping[str, int], *, through_actions: bool = False) -> int:
    """Baseline PFW predicted from the plan and the tick each fact breaks (see module docstring).

    ``through_actions=True`` predicts it for runs that go on past a successful
    action (the non-flat recovery models of :mod:`cvlib.core.recovery`); see
    :func:`predicted_pfw_through_actions`.
    """
    if through_actions:
        return predicted_pfw_through_actions(plan, breaks)
    if not breaks:
        return 0
    closures, actions = plan.run_columns()[:2]  # closures in execution order, action positions
    first_action = actions[0] if actions else len(closures)
    # Closures are interned: find each distinct closure's earliest break once.
    earliest: dict[int, float] = {}
    count = 0
    for position in range(first_action):
        closure = closures[position]
        tick = earliest.get(id(closure))
        if tick is None:
            tick = earliest[id(closure)] = min((breaks[f] for f in closure if f in breaks), default=math.inf)
        if tick <= position:
            count += 1
    return count


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
    breaks at tick 0, that condition always holds.)
    """
    if not breaks:
        return 0
    refreshed: set[str] = set()
    count = 0
    for position, (step, closure) in enumerate(plan.ordered_steps()):
        broken = {f for f in closure if f in breaks and breaks[f] <= position and f not in refreshed}
        if not broken:
            continue
        if step.is_action:
            refreshed |= {f for f in closure if f in breaks and breaks[f] <= position}
        else:
            count += 1
    return count


def predicted_pfw_single(plan: PlanGraph, fact_id: str, change_tick: int) -> int:
    """The article's form: non-action steps holding ``fact_id`` at positions >= ``change_tick``."""
    require_int("change_tick", change_tick, minimum=0)
    if fact_id not in plan.facts:
        raise UnknownFactError(f"fact {fact_id!r} is not required by any step of the plan")
    count = 0
    for position, (step, closure) in enumerate(plan.ordered_steps()):
        if fact_id in closure and not step.is_action and position >= change_tick:
            count += 1
    return count
