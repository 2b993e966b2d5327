"""The world's schedule: every change that falls due during a run, in one tick-sorted list.

A :class:`~cvlib.core.world.World` applies announced events, silent changes
and resource outages as the clock passes their ticks. Merging them once into
one sorted stream, each entry tagged with how it is applied, lets the world
take what is due with one comparison a tick instead of three lists' worth;
the checks that every change names a fact the world holds happen here, when
the stream is built.
"""

from __future__ import annotations

from collections.abc import Mapping

from cvlib.core.errors import ParameterError, UnknownFactError
from cvlib.core.events import Event, EventKind, ResourceEvent, SilentChange
from cvlib.core.facts import Fact

#: Kinds of entries in the stream: a replaced value, an ambiguous signal, a silent change, a resource event.
REPLACE, AMBIGUOUS, SILENT, RESOURCE = 0, 1, 2, 3


def schedule(
    facts: Mapping[str, Fact],
    events: tuple[Event, ...],
    silent_changes: tuple[SilentChange, ...],
    resource_events: tuple[ResourceEvent, ...],
) -> list[tuple[int, int, int, Event | SilentChange | ResourceEvent]]:
    """Every scheduled change in one list, by tick; at one tick, events, then silent changes, then outages, each in given order.

    Each entry is ``(tick, rank, kind, change)``: the rank keeps the given
    order among changes of one tick, and the kind (:data:`REPLACE`,
    :data:`AMBIGUOUS`, :data:`SILENT`, :data:`RESOURCE`) says how the world
    applies it without asking the change's type.

    Parameters
    ----------
    facts : mapping of str to Fact
        The world's facts, which every event and silent change must name.
    events : tuple of Event
        Announced changes.
    silent_changes : tuple of SilentChange
        Changes no signal announces.
    resource_events : tuple of ResourceEvent
        Outages and restorations.

    Returns
    -------
    list of tuple
    """
    stream: list[tuple[int, int, int, Event | SilentChange | ResourceEvent]] = []
    if not (events or silent_changes or resource_events):
        return stream
    for event in events:
        if not isinstance(event, Event):
            raise ParameterError(f"a world's events are Event values, got {type(event).__name__}: {event!r}")
        if event.fact_id not in facts:
            raise UnknownFactError(
                f"event at tick {event.tick} names fact {event.fact_id!r}, which the world does not hold; "
                f"known facts: {', '.join(sorted(facts)) or '(none)'}"
            )
        stream.append((event.tick, len(stream), REPLACE if event.kind is EventKind.REPLACE else AMBIGUOUS, event))
    for change in silent_changes:
        if not isinstance(change, SilentChange):
            raise ParameterError(f"silent_changes holds SilentChange values, got {type(change).__name__}")
        if change.fact_id not in facts:
            raise UnknownFactError(f"silent change at tick {change.tick} names unknown fact {change.fact_id!r}")
        stream.append((change.tick, len(stream), SILENT, change))
    for outage in resource_events:
        if not isinstance(outage, ResourceEvent):
            raise ParameterError(f"resource_events holds ResourceEvent values, got {type(outage).__name__}")
        stream.append((outage.tick, len(stream), RESOURCE, outage))
    if len(stream) > 1:
        stream.sort(key=tick_then_rank)
    return stream


def tick_then_rank(item: tuple[int, int, int, object]) -> tuple[int, int]:
    """The sort key of a schedule entry: its tick, then its rank.

    Parameters
    ----------
    item : tuple
        A schedule entry.

    Returns
    -------
    tuple of int
    """
    return item[0], item[1]
