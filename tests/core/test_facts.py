"""Facts: each transition, the append-only history, expiry only from ACTIVE."""

from __future__ import annotations

import pytest

from cvlib.core.facts import DOUBTFUL_STATES, Fact, HistoryEntry, ValidityState

A = ValidityState.ACTIVE
S = ValidityState.STALE
X = ValidityState.SUPERSEDED
U = ValidityState.UNKNOWN


def test_new_fact_starts_active_with_empty_history():
    fact = Fact("F1", 420)
    assert fact.state is A
    assert fact.history == ()
    assert fact.valid_until is None


def test_replace_supersedes_and_takes_the_new_value():
    fact = Fact("F1", 420).replaced(610, tick=3)
    assert fact.state is X
    assert fact.value == 610
    assert fact.history == (HistoryEntry(3, 420, A),)


def test_mark_ambiguous_gives_unknown_and_keeps_the_value():
    fact = Fact("F1", 420).marked_ambiguous(tick=2)
    assert fact.state is U
    assert fact.value == 420
    assert fact.history == (HistoryEntry(2, 420, A),)


def test_expiry_after_horizon_gives_stale():
    fact = Fact("F1", 420, valid_until=4)
    assert not fact.is_due_to_expire(4), "a fact is still fresh at its valid_until tick"
    assert fact.expired(4) is fact
    assert fact.is_due_to_expire(5)
    stale = fact.expired(5)
    assert stale.state is S
    assert stale.value == 420
    assert stale.history == (HistoryEntry(5, 420, A),)


def test_no_horizon_never_expires():
    fact = Fact("F1", 420)
    assert not fact.is_due_to_expire(10**9)
    assert fact.expired(10**9) is fact


@pytest.mark.parametrize("make", [lambda f: f.replaced(1, 1), lambda f: f.marked_ambiguous(1)], ids=["superseded", "unknown"])
def test_expiry_only_from_active(make):
    fact = make(Fact("F1", 0, valid_until=0))
    assert not fact.is_due_to_expire(5)
    assert fact.expired(5) is fact, "expiry must not move a fact that is not ACTIVE"
    stale = Fact("F1", 0, valid_until=0).expired(1)
    assert stale.expired(2) is stale, "a STALE fact does not expire again"


def test_confirm_returns_to_active():
    fact = Fact("F1", 420).marked_ambiguous(1).confirmed(2)
    assert fact.state is A
    assert fact.value == 420
    assert [h.previous_state for h in fact.history] == [A, U]


def test_confirm_does_not_extend_the_horizon():
    stale = Fact("F1", 420, valid_until=3).expired(4)
    confirmed = stale.confirmed(5)
    assert confirmed.state is A
    assert confirmed.valid_until == 3
    assert confirmed.is_due_to_expire(6), "a confirmed fact past its horizon is due to expire again"
    assert confirmed.expired(6).state is S


def test_reject_supersedes_and_keeps_the_value():
    fact = Fact("F1", 420).marked_ambiguous(1).rejected(2)
    assert fact.state is X
    assert fact.value == 420
    assert fact.history[-1] == HistoryEntry(2, 420, U)


def test_history_is_append_only_and_nothing_is_deleted():
    original = Fact("F1", 420, valid_until=1)
    f1 = original.marked_ambiguous(1)
    f2 = f1.confirmed(2)
    f3 = f2.expired(3)
    f4 = f3.replaced(610, 4)
    f5 = f4.marked_ambiguous(5)
    chain = [original, f1, f2, f3, f4, f5]
    for before, after in zip(chain, chain[1:]):
        assert after.history[: len(before.history)] == before.history, "earlier history must be kept verbatim"
        assert len(after.history) == len(before.history) + 1
        assert after.history[-1].previous_state is before.state
        assert after.history[-1].previous_value == before.value
    assert [h.tick for h in f5.history] == [1, 2, 3, 4, 5]
    assert [h.previous_state for h in f5.history] == [A, U, A, S, X]
    assert f5.id == "F1"
    # the facts we started from are untouched (transitions return new facts)
    assert original.state is A and original.history == ()
    assert f4.value == 610 and f4.state is X


def test_facts_are_frozen():
    fact = Fact("F1", 420)
    with pytest.raises(AttributeError, match="frozen"):
        fact.state = S  # type: ignore[misc]


def test_doubtful_states_are_stale_and_unknown():
    assert DOUBTFUL_STATES == frozenset({S, U})


def test_state_strings():
    assert [str(s) for s in ValidityState] == ["ACTIVE", "STALE", "SUPERSEDED", "UNKNOWN"]
