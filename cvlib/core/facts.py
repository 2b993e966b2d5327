"""Facts and their four validity states.

A fact is never deleted when it stops being valid: its state changes and the
value and state it had before are appended to its history. The failure this
benchmark studies is not forgetting; it is a remembered fact that is still
there, looking current, after the world moved on. Facts are immutable values;
each transition returns a new fact, so a world's history can be replayed and a
test can hold on to the fact it started from.
"""

from __future__ import annotations

from enum import Enum

from cvlib.core.errors import ParameterError
from cvlib.core.values import value_class

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ValidityState(str, Enum):
    """What the holder of a fact currently believes about it.

    ACTIVE: current evidence supports it. STALE: it was true once and its
    validity horizon has passed. SUPERSEDED: a newer observation replaced it.
    UNKNOWN: a signal cast doubt on it without saying what changed.
    """

    ACTIVE = "ACTIVE"
    STALE = "STALE"
    SUPERSEDED = "SUPERSEDED"
    UNKNOWN = "UNKNOWN"

    def __str__(self) -> str:
        return self.value


#: States that call for a verification before a validity-aware executor acts.
DOUBTFUL_STATES = frozenset({ValidityState.STALE, ValidityState.UNKNOWN})


@value_class
class HistoryEntry:
    """What a fact was just before one transition, and when that transition happened."""

    tick: int
    previous_value: Any
    previous_state: ValidityState


@value_class
class Fact:
    """One remembered fact, with everything it used to be.

    Parameters
    ----------
    id:
        Name the plan's steps use to require this fact.
    value:
        The value currently held (after a replacement, the new value).
    state:
        The believed validity state; new facts start ACTIVE.
    valid_until:
        Last tick at which the fact is still fresh, or None for no horizon.
        At any tick strictly greater, an ACTIVE fact expires to STALE.
    history:
        Append-only record of every transition, oldest first.
    """

    id: str
    value: Any = None
    state: ValidityState = ValidityState.ACTIVE
    valid_until: int | None = None
    history: tuple[HistoryEntry, ...] = ()

    def __post_init__(self) -> None:
        # A malformed fact would otherwise fail far from its cause (a str horizon
        # breaks the world's expiry heap several steps into a run).
        if not isinstance(self.id, str) or not self.id:
            raise ParameterError(f"a fact id must be a non-empty string, got {type(self.id).__name__} {self.id!r}")
        if self.valid_until is not None and (isinstance(self.valid_until, bool) or not isinstance(self.valid_until, int)):
            raise ParameterError(
                f"fact {self.id!r}: valid_until must be an integer tick or None, "
                f"got {type(self.valid_until).__name__} {self.valid_until!r}"
            )
        if not isinstance(self.state, ValidityState):
            try:
                object.__setattr__(self, "state", ValidityState(self.state))
            except ValueError:
                raise ParameterError(
                    f"fact {self.id!r}: unknown state {self.state!r}; expected one of "
                    f"{', '.join(s.value for s in ValidityState)}"
                ) from None

    def _moved(self, tick: int, state: ValidityState, value: Any = None, *, keep_value: bool = True) -> Fact:
        entry = HistoryEntry(tick=tick, previous_value=self.value, previous_state=self.state)
        # The fields are valid already (this fact's own, a known state): set them without
        # dataclasses.replace, which re-runs every check and costs more than the transition.
        moved = object.__new__(Fact)
        object.__setattr__(moved, "id", self.id)
        object.__setattr__(moved, "value", self.value if keep_value else value)
        object.__setattr__(moved, "state", state)
        object.__setattr__(moved, "valid_until", self.valid_until)
        object.__setattr__(moved, "history", (*self.history, entry))
        return moved

    def replaced(self, new_value: Any, tick: int) -> Fact:
        """A newer observation replaced the value: the old belief is SUPERSEDED.

        Parameters
        ----------
        new_value : object
            The value observed now.
        tick : int
            When it was observed.

        Returns
        -------
        Fact
            The new fact, holding ``new_value``, with the transition in its history.
        """
        return self._moved(tick, ValidityState.SUPERSEDED, new_value, keep_value=False)

    def marked_ambiguous(self, tick: int) -> Fact:
        """A signal says the fact may have changed, without a new value: UNKNOWN.

        Parameters
        ----------
        tick : int
            When the signal arrived.

        Returns
        -------
        Fact
        """
        return self._moved(tick, ValidityState.UNKNOWN)

    def is_due_to_expire(self, tick: int) -> bool:
        """Whether an ACTIVE fact has outlived its validity horizon at ``tick``.

        Parameters
        ----------
        tick : int
            The current tick.

        Returns
        -------
        bool
        """
        return self.valid_until is not None and tick > self.valid_until and self.state is ValidityState.ACTIVE

    def expired(self, tick: int) -> Fact:
        """The validity horizon passed with no contradiction: STALE (only from ACTIVE).

        Parameters
        ----------
        tick : int
            The current tick.

        Returns
        -------
        Fact
            The fact itself when it is not due to expire.
        """
        if not self.is_due_to_expire(tick):
            return self
        return self._moved(tick, ValidityState.STALE)

    def confirmed(self, tick: int) -> Fact:
        """A verification found the fact still holds: ACTIVE again.

        The validity horizon is not extended, so a fact confirmed after expiry
        is STALE again at the next tick it is looked at, as in the original
        benchmark.

        Parameters
        ----------
        tick : int
            When it was confirmed.

        Returns
        -------
        Fact
        """
        return self._moved(tick, ValidityState.ACTIVE)

    def rejected(self, tick: int) -> Fact:
        """A verification found the fact no longer holds: SUPERSEDED.

        Parameters
        ----------
        tick : int
            When it was rejected.

        Returns
        -------
        Fact
        """
        return self._moved(tick, ValidityState.SUPERSEDED)
