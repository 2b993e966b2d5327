"""Time-to-live, silent change, resources and outages (X4), and freshness laundering."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cvlib.core.errors import ParameterError, UnknownFactError
from cvlib.core.events import Evidence, ObservationLog, ResourceEvent, SilentChange
from cvlib.core.executors import run_baseline, run_validity_aware
from cvlib.core.facts import Fact, ValidityState
from cvlib.core.rules import ExecutionRules
from cvlib.core.world import World
from cvlib.experiments.time_and_operational import operational_comparison, ttl_sweep
from cvlib.scenarios import generators
from cvlib.scenarios.builders import operational_setup

TTL2 = ExecutionRules(ttl=2, ttl_refresh=True)


# -- freshness laundering ------------------------------------------------------------------


def test_reading_old_evidence_does_not_make_it_fresh():
    log = ObservationLog({"F2": 0})
    # a cache read at tick 9 of evidence observed at tick 0: the fact is still 9 ticks old
    assert log.record(Evidence("F2", observed_at=0, read_at=9)) == 0
    assert log.age("F2", 9) == 9
    assert log.horizon("F2", ttl=3) == 3


def test_older_evidence_never_moves_freshness_back_or_forward():
    log = ObservationLog()
    log.record(Evidence("F1", observed_at=5, read_at=5))
    log.record(Evidence("F1", observed_at=2, read_at=12))  # re-verification against a stale replica
    assert log.observed_at("F1") == 5


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=20))
def test_freshness_is_the_latest_observation_whatever_was_read_when(pairs):
    log = ObservationLog()
    for observed, extra in pairs:
        log.record(Evidence("F", observed_at=observed, read_at=observed + extra))
    assert log.observed_at("F") == max(observed for observed, _ in pairs)


def test_evidence_cannot_be_read_before_it_is_observed():
    with pytest.raises(ParameterError, match="read at tick 1, before it was observed at tick 4"):
        Evidence("F1", observed_at=4, read_at=1)


def _world(rules, outage_tick=None, depth=6):
    setup = operational_setup(depth)
    outages = () if outage_tick is None else (ResourceEvent(outage_tick, "db", up=False),)
    return setup.plan, replace(setup, resource_events=outages).new_world(rules)


def test_re_verifying_a_fact_whose_source_is_down_leaves_it_stale():
    plan, world = _world(TTL2, outage_tick=1)
    view = world.belief_view()
    world.ledger.steps_used = 4
    view.sync()
    assert view.state_of("F2") is ValidityState.STALE  # observed at 0, ttl 2: stale at tick 3+
    assert not view.verify(frozenset({"F2"}))  # only cached evidence: inconclusive
    assert view.state_of("F2") is ValidityState.STALE
    assert world.observation_log.observed_at("F2") == 0


def test_laundering_bookkeeping_makes_the_old_observation_look_fresh():
    plan, world = _world(ExecutionRules(ttl=2, ttl_refresh=True, launder=True), outage_tick=1)
    view = world.belief_view()
    world.ledger.steps_used = 4
    view.sync()
    assert view.verify(frozenset({"F2"}))
    assert view.state_of("F2") is ValidityState.ACTIVE
    assert world.fact("F2").valid_until == 5 + 2  # renewed from the (wrong) read time


def test_ttl_refresh_renews_from_the_observation():
    world = World([Fact("F1", 1)], rules=TTL2)
    view = world.belief_view()
    world.ledger.steps_used = 3
    view.sync()
    assert view.state_of("F1") is ValidityState.STALE
    assert view.verify(frozenset({"F1"}))
    assert world.fact("F1").valid_until == 4 + 2


def test_without_refresh_a_confirmed_fact_expires_again_as_in_the_article():
    world = World([Fact("F1", 1)], rules=ExecutionRules(ttl=2))
    view = world.belief_view()
    world.ledger.steps_used = 3
    view.sync()
    view.verify(frozenset({"F1"}))
    assert world.fact("F1").valid_until == 2


# -- silent change and outages in runs -----------------------------------------------------------


def test_a_silent_change_is_invisible_to_belief_but_dooms_the_work():
    plan = generators.chain(5)
    world = World([Fact("F1", 1)], silent_changes=[SilentChange(1, "F1")])
    va = run_validity_aware(plan, world, "F1")
    assert va.pre_failure_work == 3 and va.verifications == 0  # no TTL: nothing to prompt a check


def test_a_short_ttl_catches_a_silent_change():
    plan = generators.chain(5)
    world = World([Fact("F1", 1)], rules=ExecutionRules(ttl=1, ttl_refresh=True),
                              silent_changes=[SilentChange(1, "F1")])
    va = run_validity_aware(plan, world, "F1")
    assert va.pre_failure_work == 1 and va.verifications == 1 and va.replans == 1


def test_timestamp_checker_uses_a_fresh_fact_from_a_dead_database():
    plan, world = _world(ExecutionRules(ttl=10), outage_tick=2)
    va = run_validity_aware(plan, world, "F1")
    assert va.pre_failure_work == 3 and va.replans == 1  # S2-S4 doomed, the action fails


def test_dependency_checker_sees_the_outage_before_acting():
    plan, world = _world(ExecutionRules(ttl=10, checker="dependency"), outage_tick=2)
    va = run_validity_aware(plan, world, "F1")
    assert va.pre_failure_work == 0 and va.replans == 1 and va.steps_used == 2 + 7


def test_restored_resource_makes_the_fact_usable_again():
    setup = operational_setup(6)
    events = (ResourceEvent(1, "db", up=False), ResourceEvent(3, "db", up=True))
    world = replace(setup, resource_events=events).new_world()
    result = run_baseline(setup.plan, world, "F1")
    assert result.completed and result.replans == 0 and result.pre_failure_work == 2


def test_bad_x4_inputs():
    with pytest.raises(UnknownFactError, match="unknown fact 'F9'"):
        World([Fact("F1", 1)], silent_changes=[SilentChange(0, "F9")])
    with pytest.raises(ParameterError, match="supports names fact 'F9'"):
        World([Fact("F1", 1)], supports={"F9": "db"})
    with pytest.raises(ParameterError, match="resource event 'up' must be true or false"):
        ResourceEvent(0, "db", up="no")
    with pytest.raises(ParameterError, match="each rate must be"):
        ttl_sweep([1], [1.5], n_schedules=2)
    with pytest.raises(ParameterError, match="db_step must be a step before the action"):
        operational_setup(3, db_step=2)


# -- the sweeps ----------------------------------------------------------------------------


def test_ttl_longer_than_the_run_is_the_baseline():
    sweep = ttl_sweep([100], [0.1], n_schedules=50, depth=6).set_index("ttl")
    cols = ["mean_steps", "mean_pfw", "completion_rate"]
    assert sweep.loc[100, cols].tolist() == sweep.loc["baseline", cols].tolist()


def test_shorter_ttl_means_more_verifications_and_less_doomed_work():
    sweep = ttl_sweep([0, 2, 6], [0.2], n_schedules=100, depth=8).set_index("ttl")
    assert sweep.loc[0, "mean_verifications"] > sweep.loc[2, "mean_verifications"] > sweep.loc[6, "mean_verifications"]
    assert sweep.loc[0, "mean_pfw"] < sweep.loc[2, "mean_pfw"] < sweep.loc[6, "mean_pfw"]


def test_dependency_aware_checker_never_does_doomed_work_on_outages():
    table = operational_comparison([1, 3, 8], n_schedules=60)
    assert (table[table.checker == "dependency"]["mean_pfw"] == 0).all()
    honest = table[table.checker == "timestamp"].set_index("ttl")
    laundered = table[table.checker == "timestamp_laundering"].set_index("ttl")
    assert (laundered["mean_pfw"] >= honest["mean_pfw"]).all()


def test_sweeps_are_deterministic():
    assert ttl_sweep([1], [0.2], n_schedules=30, seed=4).equals(ttl_sweep([1], [0.2], n_schedules=30, seed=4))
