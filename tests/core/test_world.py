"""The world: events, expiry, the clock, verification, and the belief view's wall."""

from __future__ import annotations

import inspect

import pytest

from cvlib.core.errors import ParameterError, UnknownFactError
from cvlib.core.events import Event, EventKind
from cvlib.core.facts import Fact, ValidityState
from cvlib.core.graph import Step, StepKind
from cvlib.core.world import BeliefView, World

A = ValidityState.ACTIVE
S = ValidityState.STALE
X = ValidityState.SUPERSEDED
U = ValidityState.UNKNOWN

DECISION = Step("D", StepKind.DECISION, frozenset({"F1"}))
ACTION = Step("A", StepKind.ACTION, frozenset({"F1"}))


def replace(tick, fact="F1", value=610):
    return Event(tick, fact, EventKind.REPLACE, new_value=value)


def ambiguous(tick, real, fact="F1"):
    return Event(tick, fact, EventKind.AMBIGUOUS, ground_truth_changed=real)


def advance(world: World, view: BeliefView, steps: int) -> None:
    """Spend ``steps`` plain steps on a fact-free step (nothing doomed)."""
    free = Step("free", StepKind.DECISION)
    for _ in range(steps):
        view.sync()
        view.execute(free, frozenset())


# -- events ------------------------------------------------------------------------------------


def test_events_apply_only_when_due():
    world = World([Fact("F1", 420)], [replace(2)])
    view = world.belief_view()
    view.sync()
    assert world.fact("F1").state is A and world.tick == 0
    advance(world, view, 1)
    view.sync()
    assert world.fact("F1").state is A, "an event at tick 2 must not apply at tick 1"
    advance(world, view, 1)
    view.sync()
    assert world.tick == 2
    assert world.fact("F1").state is X
    assert world.fact("F1").value == 610
    assert world.broken_facts == {"F1"}


def test_events_are_sorted_by_tick_and_same_tick_keeps_given_order():
    events = [ambiguous(3, False), replace(1), ambiguous(1, True, "F2"), replace(1, "F2", 7)]
    world = World([Fact("F1", 0), Fact("F2", 0)], events)
    assert [e.tick for e in world.events] == [1, 1, 1, 3]
    assert [(e.fact_id, e.kind) for e in world.events[:3]] == [
        ("F1", EventKind.REPLACE),
        ("F2", EventKind.AMBIGUOUS),
        ("F2", EventKind.REPLACE),
    ]
    view = world.belief_view()
    advance(world, view, 1)
    view.sync()
    # F2: ambiguous first, then replaced -> SUPERSEDED with the new value; history shows the order
    f2 = world.fact("F2")
    assert f2.state is X and f2.value == 7
    assert [h.previous_state for h in f2.history] == [A, U]


def test_late_events_all_apply_at_the_first_sync_after_they_are_due():
    world = World([Fact("F1", 0), Fact("F2", 0)], [replace(0), ambiguous(1, False, "F2")])
    view = world.belief_view()
    advance(world, view, 3)  # first sync at tick 0 applies only the tick-0 event
    assert world.fact("F1").state is X
    assert world.fact("F2").state is U
    assert len(world.fact("F2").history) == 1, "an event is applied once"


def test_replace_breaks_ground_truth_ambiguous_only_if_real():
    world = World([Fact("F1", 0), Fact("F2", 0), Fact("F3", 0)], [replace(0), ambiguous(0, True, "F2"), ambiguous(0, False, "F3")])
    world.apply_due_events()
    assert world.broken_facts == {"F1", "F2"}
    assert [world.fact(f).state for f in ("F1", "F2", "F3")] == [X, U, U]


def test_ground_truth_is_monotone():
    world = World([Fact("F1", 0)], [ambiguous(0, True), ambiguous(1, False), ambiguous(2, False)])
    view = world.belief_view()
    seen = []
    for _ in range(4):
        view.sync()
        seen.append(world.broken_facts)
        view.execute(Step("free", StepKind.DECISION), frozenset())
    assert all(s == {"F1"} for s in seen), "a later false alarm must not mend a broken fact"


# -- expiry ----------------------------------------------------------------------------------------


def test_expiry_by_horizon():
    world = World([Fact("F1", 0, valid_until=2), Fact("F2", 0, valid_until=0), Fact("F3", 0)])
    view = world.belief_view()
    states = []
    for _ in range(4):
        view.sync()
        states.append((world.fact("F1").state, world.fact("F2").state, world.fact("F3").state))
        view.execute(Step("free", StepKind.DECISION), frozenset())
    assert states == [(A, A, A), (A, S, A), (A, S, A), (S, S, A)]
    assert world.broken_facts == set(), "expiry is a belief change, not a break"
    assert world.fact("F1").history[-1].tick == 3


def test_expiry_does_not_touch_a_fact_that_is_not_active():
    world = World([Fact("F1", 0, valid_until=0)], [replace(0)])
    view = world.belief_view()
    advance(world, view, 3)
    view.sync()
    assert world.fact("F1").state is X
    assert len(world.fact("F1").history) == 1


def test_confirmed_stale_fact_expires_again_at_the_next_sync():
    world = World([Fact("F1", 0, valid_until=0)])
    view = world.belief_view()
    advance(world, view, 1)
    view.sync()
    assert world.fact("F1").state is S
    assert view.verify({"F1"}) is True
    assert world.fact("F1").state is A
    view.sync()
    assert world.fact("F1").state is S, "confirmation does not extend the validity horizon"


# -- the clock ---------------------------------------------------------------------------------------


def test_tick_equals_steps_used_after_every_kind_of_step():
    world = World([Fact("F1", 0)], [ambiguous(1, False)])
    view = world.belief_view()
    assert world.tick == view.steps_used == 0
    view.sync()
    view.execute(DECISION, frozenset({"F1"}))
    assert world.tick == view.steps_used == 1
    view.sync()
    view.verify({"F1"})
    assert world.tick == view.steps_used == 2
    view.replan(4)
    assert world.tick == view.steps_used == 6
    view.decide(frozenset({"F1"}), 0)
    view.sync()
    assert world.tick == 6, "deciding and syncing spend no steps"


# -- verification ----------------------------------------------------------------------------------------


def test_verify_rejects_real_changes_and_confirms_false_alarms():
    world = World([Fact("F1", 0), Fact("F2", 0), Fact("F3", 0)], [ambiguous(0, True), ambiguous(0, False, "F2")])
    view = world.belief_view()
    view.sync()
    assert view.verify({"F1", "F2", "F3"}) is False
    assert world.fact("F1").state is X
    assert world.fact("F2").state is A
    assert world.fact("F3").state is A and world.fact("F3").history == (), "ACTIVE facts are left alone"
    assert world.ledger.verifications == 1


def test_verify_passes_when_every_doubt_is_a_false_alarm():
    world = World([Fact("F1", 0)], [ambiguous(0, False)])
    view = world.belief_view()
    view.sync()
    assert view.verify({"F1"}) is True
    assert world.fact("F1").state is A


def test_verify_resolves_stale_facts_by_ground_truth():
    world = World([Fact("F1", 0, valid_until=0), Fact("F2", 0, valid_until=0)], [ambiguous(1, True, "F2")])
    view = world.belief_view()
    advance(world, view, 1)
    view.sync()
    # F1 expired to STALE (not broken); on F2 the event applies before expiry, so F2 is UNKNOWN
    assert world.fact("F1").state is S and world.fact("F2").state is U
    assert view.verify({"F1"}) is True
    assert view.verify({"F2"}) is False
    assert world.fact("F2").state is X


# -- executing -------------------------------------------------------------------------------------------------


def test_execute_counts_doomed_non_action_as_pre_failure_work_without_telling():
    world = World([Fact("F1", 0)], [replace(0)])
    view = world.belief_view()
    view.sync()
    assert view.execute(DECISION, frozenset({"F1"})) == frozenset(), "a doomed decision does not reveal itself"
    assert world.ledger.pre_failure_work == 1
    assert view.execute(ACTION, frozenset({"F1"})) == {"F1"}, "a doomed action fails against the world, naming the cause"
    assert world.ledger.pre_failure_work == 1, "the action itself is not pre-failure work"


def test_decide_counts_stale_decisions_by_ground_truth():
    world = World([Fact("F1", 0), Fact("F2", 0)], [ambiguous(0, False), replace(0, "F2")])
    view = world.belief_view()
    view.sync()
    view.decide(frozenset({"F1"}), 0)  # believed UNKNOWN, really fine: not stale
    view.decide(frozenset({"F2"}), 1)  # really broken
    assert (world.ledger.decisions_total, world.ledger.decisions_on_stale_deps) == (2, 1)


# -- the wall between belief and ground truth ----------------------------------------------------------------------

FORBIDDEN = ("broken", "ground", "truth", "doomed", "world", "event")


def public_names(cls) -> list[str]:
    return sorted(n for n in dir(cls) if not n.startswith("_"))


def test_belief_view_has_no_ledger():
    """The ledger holds PFW and stale-decision counts, judged by ground truth: not for executors."""
    assert not hasattr(BeliefView, "ledger")


def test_belief_view_has_no_public_name_about_ground_truth():
    for name in public_names(BeliefView):
        assert not any(word in name.lower() for word in FORBIDDEN), f"BeliefView.{name} looks like a ground-truth leak"


def test_belief_view_is_not_a_world_and_has_no_dict():
    assert not issubclass(BeliefView, World)
    view = World([Fact("F1", 0)]).belief_view()
    assert not hasattr(view, "__dict__"), "a view with a __dict__ could be handed extra attributes"


def _observe(view: BeliefView) -> list:
    """Everything a view shows without a revealing moment, after a typical sequence of calls."""
    seen = []
    for name in public_names(BeliefView):
        attr = inspect.getattr_static(BeliefView, name)
        if isinstance(attr, property):
            seen.append((name, getattr(view, name)))
    view.sync()
    closure = frozenset({"F1", "F2"})
    view.decide(closure, 0)
    seen.append(("state_of", view.state_of("F1")))
    seen.append(("believed_states", view.believed_states(closure)))
    seen.append(("unknown", view.facts_in_state(closure, frozenset({U}))))
    seen.append(("resources_down", view.resources_down(closure)))
    seen.append(("execute decision", view.execute(Step("D", StepKind.DECISION, closure), closure)))
    view.replan(3)
    seen.append(("steps_used", view.steps_used))
    for name in public_names(BeliefView):
        attr = inspect.getattr_static(BeliefView, name)
        if isinstance(attr, property):
            seen.append((name, getattr(view, name)))
    return seen


def test_belief_view_shows_the_same_to_a_real_change_and_a_false_alarm():
    """Only an executed action or a paid verification may tell the two worlds apart."""
    real = World([Fact("F1", 0), Fact("F2", 0)], [ambiguous(0, True)]).belief_view()
    false_alarm = World([Fact("F1", 0), Fact("F2", 0)], [ambiguous(0, False)]).belief_view()
    assert _observe(real) == _observe(false_alarm)
    # ... and the revealing moments do tell them apart
    assert real.verify({"F1"}) is False
    assert false_alarm.verify({"F1"}) is True


def test_belief_view_shows_nothing_of_a_silent_change_under_any_rules():
    """The one view serves every rule set: a silent change stays hidden until a revealing moment."""
    from cvlib.core.events import SilentChange
    from cvlib.core.rules import ExecutionRules, VerificationModel

    rules = ExecutionRules(recovery="subplan", ttl=3, ttl_refresh=True, verification=VerificationModel(0.2, 0.1, 2))
    changed = World([Fact("F1", 0), Fact("F2", 0)], rules=rules, silent_changes=[SilentChange(0, "F1")]).belief_view()
    intact = World([Fact("F1", 0), Fact("F2", 0)], rules=rules).belief_view()
    assert _observe(changed) == _observe(intact)
    action = Step("A", StepKind.ACTION, frozenset({"F1"}))
    assert changed.execute(action, frozenset({"F1"})) == {"F1"}
    assert intact.execute(action, frozenset({"F1"})) == frozenset()


def test_belief_view_public_values_never_hold_the_world_or_broken_set():
    world = World([Fact("F1", 0)], [replace(0)])
    world.apply_due_events()
    view = world.belief_view()
    for name in public_names(BeliefView):
        attr = inspect.getattr_static(BeliefView, name)
        if isinstance(attr, property):
            value = getattr(view, name)
            assert not isinstance(value, World), name
            assert value != world.broken_facts, name


# -- bad worlds -------------------------------------------------------------------------------------------------------


def test_event_on_unknown_fact_lists_known_facts():
    with pytest.raises(UnknownFactError, match=r"'F9'.*known facts: F1, F2"):
        World([Fact("F1", 0), Fact("F2", 0)], [replace(0, "F9")])


def test_duplicate_fact_is_an_error():
    with pytest.raises(ParameterError, match="duplicate fact id 'F1'"):
        World([Fact("F1", 0), Fact("F1", 1)])


def test_world_accepts_a_mapping_of_facts():
    world = World({"F1": Fact("F1", 0)})
    assert set(world.facts) == {"F1"}


def test_unknown_fact_lookup_is_an_error():
    with pytest.raises(UnknownFactError, match="'F7'"):
        World([Fact("F1", 0)]).fact("F7")


#: The view's whole public surface, reviewed for leaks. A new public name fails this test on
#: purpose: check that it reveals nothing of ground truth, then add it here.
REVIEWED_VIEW_API = {
    "believed_states", "decide", "execute", "execute_run", "facts_in_state", "horizon_of", "recover", "replan",
    "replans", "resources_down", "rules", "state_of", "steps_used", "sync", "verify",
}
# execute_run is the bulk fast path: it stops on budget or on believed doubt only, never on ground truth.
# horizon_of gives a fact's valid_until, the timestamp rule belief expires by: no event or break moves it.


def test_belief_view_public_api_is_the_reviewed_one():
    assert set(public_names(BeliefView)) <= REVIEWED_VIEW_API, (
        f"new public BeliefView names {sorted(set(public_names(BeliefView)) - REVIEWED_VIEW_API)}: "
        "review them for ground-truth leaks, then add them to REVIEWED_VIEW_API"
    )
