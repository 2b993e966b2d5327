"""What happens to facts over time: announced events, silent changes, outages, observations.

An :class:`Event` is a change the world announces (a replaced value, or an
ambiguous signal). The rest serve the time-and-operations extension (X4). The
article separates a fact that becomes *false* (a price moved) from one that
stays true but cannot be *used* (a record count from a database that is now
offline), and says a timestamp cannot see the second kind. To run that claim
the world needs three things the original benchmark lacks:

* a :class:`SilentChange`: the fact changes in the world and nothing announces
  it, so only a verification (or a failing action) can find out;
* a :class:`ResourceEvent`: a resource that supports some facts goes down or
  comes back; while it is down those facts are true but unusable;
* an :class:`ObservationLog`: *when the evidence behind each fact was
  observed at its source*. Freshness is measured from that moment, never from
  the moment the evidence was read, so re-reading or re-verifying old evidence
  (a cache, a replica, a log) cannot make an old observation count as fresh.
  That mistake is "freshness laundering"; the log makes it impossible.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum

from cvlib.core.errors import ParameterError
from cvlib.core.validation import require_int
from cvlib.core.values import value_class

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class EventKind(str, Enum):
    """``replace``: the fact got a new value (it is really broken).
    ``ambiguous``: a signal says it may have changed; whether it really did is
    the event's ``ground_truth_changed``."""

    REPLACE = "replace"
    AMBIGUOUS = "ambiguous"

    def __str__(self) -> str:
        return self.value


@value_class
class Event:
    """A scheduled change to one fact, applied before the first decision at or after ``tick``."""

    tick: int
    fact_id: str
    kind: EventKind
    new_value: Any = None
    ground_truth_changed: bool | None = None

    def __post_init__(self) -> None:
        require_int("event tick", self.tick, minimum=0)
        try:
            if type(self.kind) is not EventKind:
                object.__setattr__(self, "kind", EventKind(self.kind))
        except ValueError:
            raise ParameterError(
                f"unknown event kind {self.kind!r} for fact {self.fact_id!r}; "
                f"expected one of {', '.join(k.value for k in EventKind)}"
            ) from None
        if self.kind is EventKind.AMBIGUOUS and not isinstance(self.ground_truth_changed, bool):
            raise ParameterError(
                f"an ambiguous event on {self.fact_id!r} must say ground_truth_changed=true or false, "
                f"got {self.ground_truth_changed!r}"
            )

    @property
    def breaks_fact(self) -> bool:
        """Whether the event really breaks its fact in ground truth."""
        return self.kind is EventKind.REPLACE or bool(self.ground_truth_changed)


@value_class
class SilentChange:
    """At ``tick`` the fact really changes; no signal reaches any executor."""

    tick: int
    fact_id: str

    def __post_init__(self) -> None:
        require_int("silent change tick", self.tick, minimum=0)
        if not isinstance(self.fact_id, str) or not self.fact_id:
            raise ParameterError(f"a silent change names a fact id, got {self.fact_id!r}")


@value_class
class ResourceEvent:
    """At ``tick`` the resource goes down (``up=False``) or comes back (``up=True``).

    Outages are announced: a health signal anyone may read. Whether an
    executor *reads* it is the difference between the two checkers.
    """

    tick: int
    resource: str
    up: bool

    def __post_init__(self) -> None:
        require_int("resource event tick", self.tick, minimum=0)
        if not isinstance(self.resource, str) or not self.resource:
            raise ParameterError(f"a resource event names a resource, got {self.resource!r}")
        if not isinstance(self.up, bool):
            raise ParameterError(f"resource event 'up' must be true or false, got {self.up!r}")


@value_class
class Evidence:
    """One piece of evidence for a fact: when it was observed at its source, and when it was read."""

    fact_id: str
    observed_at: int
    read_at: int

    def __post_init__(self) -> None:
        require_int("observed_at", self.observed_at, minimum=0)
        require_int("read_at", self.read_at, minimum=0)
        if self.read_at < self.observed_at:
            raise ParameterError(
                f"evidence for {self.fact_id!r} is read at tick {self.read_at}, before it was observed "
                f"at tick {self.observed_at}"
            )

    @property
    def age(self) -> int:
        """Ticks between observation and read, which a read does *not* reset."""
        return self.read_at - self.observed_at


class ObservationLog:
    """The latest tick at which each fact was observed at its source.

    Only :meth:`record` changes it, and only forwards: evidence observed
    earlier than what the log holds changes nothing, and a read changes
    nothing at all. That is what keeps freshness honest.
    """

    __slots__ = ("_observed",)

    def __init__(self, observed: Mapping[str, int] | None = None) -> None:
        self._observed: dict[str, int] = {}
        for fact_id, tick in (observed or {}).items():
            self._observed[fact_id] = require_int(f"observation tick of {fact_id!r}", tick, minimum=0)

    @classmethod
    def from_start(cls, fact_ids: Iterable[str]) -> ObservationLog:
        """A log in which every one of ``fact_ids`` was observed at tick 0 (a world's start; nothing to check)."""
        log = object.__new__(cls)
        log._observed = dict.fromkeys(fact_ids, 0)
        return log

    def record(self, evidence: Evidence) -> int:
        """Take ``evidence`` into account; only a later observation moves the fact's tick forward.

        Parameters
        ----------
        evidence : Evidence
            When the fact was observed at its source and when it was read.

        Returns
        -------
        int
            The fact's observation tick after this evidence (unchanged if the evidence is older).
        """
        current = self._observed.get(evidence.fact_id)
        if current is None or evidence.observed_at > current:
            self._observed[evidence.fact_id] = evidence.observed_at
        return self._observed[evidence.fact_id]

    def observed_at(self, fact_id: str) -> int | None:
        """Latest tick ``fact_id`` was observed at its source.

        Parameters
        ----------
        fact_id : str
            The fact.

        Returns
        -------
        int or None
            None if it was never observed.
        """
        return self._observed.get(fact_id)

    def age(self, fact_id: str, now: int) -> int | None:
        """Ticks since the fact was last observed at its source.

        Parameters
        ----------
        fact_id : str
            The fact.
        now : int
            The current tick.

        Returns
        -------
        int or None
            None if it was never observed.
        """
        seen = self._observed.get(fact_id)
        return None if seen is None else now - seen

    def horizon(self, fact_id: str, ttl: int) -> int | None:
        """Last tick at which the fact is still fresh under ``ttl``, counted from its observation.

        Parameters
        ----------
        fact_id : str
            The fact.
        ttl : int
            Time-to-live in ticks.

        Returns
        -------
        int or None
            None if it was never observed.
        """
        seen = self._observed.get(fact_id)
        return None if seen is None else seen + ttl


def check_supports(supports: Mapping[str, str] | None, facts: Iterable[str]) -> dict[str, str]:
    """Validate a fact -> supporting resource map against the facts a world holds.

    Parameters
    ----------
    supports : mapping of str to str, optional
        Fact id -> the resource that makes it usable; None for none.
    facts : iterable of str
        The fact ids the world holds.

    Returns
    -------
    dict of str to str
        A checked copy.
    """
    if supports is None:
        return {}
    if not isinstance(supports, Mapping):
        raise ParameterError(f"supports must map fact ids to resource names, got {type(supports).__name__}")
    known = set(facts)
    out = {}
    for fact_id, resource in supports.items():
        if fact_id not in known:
            raise ParameterError(
                f"supports names fact {fact_id!r}, which the world does not hold; known facts: {', '.join(sorted(known))}"
            )
        if not isinstance(resource, str) or not resource:
            raise ParameterError(f"the resource supporting {fact_id!r} must be a non-empty name, got {resource!r}")
        out[fact_id] = resource
    return out
