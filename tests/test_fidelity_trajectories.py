"""Seeded trajectories are reproducible; the chapter's fixtures show what the chapter says."""

import pytest

from cvlib.core.errors import ParameterError
from cvlib.fidelity import four_quadrants_fixture, generate_trajectory, make_policy, migration_fixture, run_schedule
from cvlib.fidelity.trajectories import fixture


def test_same_seed_same_trajectory():
    assert generate_trajectory(11) == generate_trajectory(11)
    assert generate_trajectory(11) != generate_trajectory(12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"budget_tokens": -1}, "budget_tokens must be >= 0"),
        ({"budget_fraction": -0.5}, "budget_fraction"),
        ({"declared_fraction": 1.5}, "declared_fraction"),
        ({"n_turns": 1}, "n_turns must be >= 2"),
        ({"budget_jitter": 1.0}, "budget_jitter"),
        ({"n_objects": 2.0}, "n_objects must be an integer"),
    ],
)
def test_bad_generator_parameters(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        generate_trajectory(0, **kwargs)


def test_unknown_fixture_is_refused():
    with pytest.raises(ParameterError, match="unknown fixture"):
        fixture("nope")


def _probe(run, turn, obj):
    return next(p for p in run.probes if p.turn == turn and p.object_id == obj)


def test_migration_compactor_loses_the_conflict_and_obligation_aware_keeps_it():
    traj = migration_fixture()
    fw = run_schedule(traj, make_policy("full_while_feasible"))
    oa = run_schedule(traj, make_policy("obligation_aware"))
    lost = _probe(fw, 9, "migration")
    assert not lost.passed and lost.form == "summary"
    assert {"representation", "legality"} <= set(lost.classes)
    assert _probe(oa, 9, "migration").passed


def test_four_quadrants_age_only_keeps_the_recent_complete_full_and_cannot_fit():
    traj = four_quadrants_fixture()
    ao = run_schedule(traj, make_policy("age_only"))
    oa = run_schedule(traj, make_policy("obligation_aware"))
    assert dict(ao.turns[12].applied)["recent_complete"] == "full"
    assert ao.turns[12].infeasible
    assert not _probe(ao, 12, "old_needed").passed
    assert "selection" in _probe(ao, 12, "old_needed").classes
    assert _probe(oa, 12, "old_needed").passed and _probe(oa, 12, "recent_needed").passed
    # the recent-and-complete episode is not kept full by the obligation-aware schedule under pressure
    assert dict(oa.turns[12].applied)["recent_complete"] != "full"
