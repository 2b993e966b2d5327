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
    # even the fair extractive compaction drops the long sentence that says which conflict killed approach B
    assert not lost.passed and lost.form == "compact"
    assert "legality" in lost.classes and "representation" not in lost.classes  # its claim is honest
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


def test_importance_is_independent_of_obligations_by_default_and_coupled_on_request():
    import dataclasses

    free = generate_trajectory(0, n_objects=60)
    tied = generate_trajectory(0, n_objects=60, importance_mode="coupled")
    # only importance differs between the two modes
    strip = lambda t: [dataclasses.replace(o, importance=0) for o in t.objects]  # noqa: E731
    assert strip(free) == strip(tied)
    assert (free.budget, free.obligations, free.probes) == (tied.budget, tied.obligations, tied.probes)
    for o in tied.objects:  # coupled: 30 + 20 * [prohibition] + U(0, 40)
        lifted = any(c.force.name == "PROHIBITION" for c in o.constraints)
        assert (50 <= o.importance <= 89) if lifted else (30 <= o.importance <= 69)
    lifted_free = [o.importance >= 70 for o in free.objects if any(c.force.name == "PROHIBITION" for c in o.constraints)]
    unlifted_free = [o.importance >= 70 for o in free.objects if not any(c.force.name == "PROHIBITION" for c in o.constraints)]
    assert any(unlifted_free) and not all(lifted_free)  # high importance on both sides of the prohibition
    assert all(30 <= o.importance <= 89 for o in free.objects)
    with pytest.raises(ParameterError, match="importance_mode"):
        generate_trajectory(0, importance_mode="random")


def test_fixture_numbers_come_from_the_registry():
    from cvlib.fidelity import params as P

    t = generate_trajectory(0)
    assert (t.n_turns, len(t.objects)) == (P.default("n_turns"), P.default("n_objects"))
    assert max(t.admitted_at) < P.default("admit_window") * t.n_turns
    for p in t.probes:
        assert p.turn - t.admission_turn(p.object_id) >= P.default("probe_min_age")


def test_fixture_shares_change_only_what_they_govern():
    base = generate_trajectory(4, n_objects=40)
    for kw in ({"prohibition_share": 0.5}, {"relation_share": 0.7}, {"second_id_share": 0.5}, {"probe_two_checks": 0.4}):
        assert generate_trajectory(4, n_objects=40, **kw) == base  # the defaults, spelled out
    many = generate_trajectory(4, n_objects=40, prohibition_share=0.75)
    count = lambda t: sum(c.force.name == "PROHIBITION" for o in t.objects for c in o.constraints)  # noqa: E731
    assert count(many) > count(base)
    assert [o.narrative for o in many.objects] == [o.narrative for o in base.objects]
    assert all(o.relations for o in generate_trajectory(4, n_objects=40, relation_share=1.0).objects)
    assert all(len(p.checks) == 1 for p in generate_trajectory(4, n_objects=40, probe_two_checks=0.0).probes)
    with pytest.raises(ParameterError, match="multiple of 0.25"):
        generate_trajectory(0, prohibition_share=0.3)
