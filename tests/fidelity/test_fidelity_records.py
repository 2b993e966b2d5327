"""Records, obligations and trajectories refuse malformed input with a clear error."""

import pytest

from cvlib.core.errors import CvlibError, ParameterError
from cvlib.fidelity import (
    Constraint,
    ContentObject,
    Floor,
    Force,
    Obligation,
    SubjectStatus,
    Trajectory,
    migration_fixture,
)
from cvlib.fidelity.trajectories import MIGRATION


def test_elements_cover_every_dimension_of_the_migration():
    dims = {e.dimension.value for e in MIGRATION.elements()}
    assert dims == {"exact_field", "identifier", "constraint_force", "rationale", "status", "provenance", "relation"}


def test_unknown_status_word_is_refused():
    with pytest.raises(ParameterError, match="status 'finished'"):
        ContentObject("x", "t", statuses=(SubjectStatus("a", "finished"),))


def test_importance_out_of_range_is_refused():
    with pytest.raises(ParameterError, match="importance"):
        ContentObject("x", "t", importance=101)


def test_constraint_action_must_name_its_subject():
    with pytest.raises(ParameterError, match="must contain its subject"):
        ContentObject("x", "t", constraints=(Constraint("approach B", Force.PROHIBITION, "retry it"),))


def test_obligation_window_is_half_open():
    ob = Obligation("x", "id:A-1", Floor.MENTION, 2, 5)
    assert [ob.applies(t) for t in range(7)] == [False, False, True, True, True, False, False]
    with pytest.raises(ParameterError, match="end must be > start"):
        Obligation("x", "id:A-1", Floor.MENTION, 3, 3)


def test_negative_budget_is_refused():
    t = migration_fixture()
    with pytest.raises(CvlibError, match="non-negative integer of tokens, got -1"):
        Trajectory(t.name, t.n_turns, t.objects, t.admitted_at, (-1,) + t.budget[1:], t.obligations, t.task_related, t.probes)


def test_obligation_on_unknown_element_is_refused():
    t = migration_fixture()
    bad = t.obligations + (Obligation("migration", "field:nope", Floor.EXACT),)
    with pytest.raises(ParameterError, match="no element 'field:nope'"):
        Trajectory(t.name, t.n_turns, t.objects, t.admitted_at, t.budget, bad, t.task_related, t.probes)


def test_restricted_keeps_only_named_elements():
    r = MIGRATION.restricted(frozenset({"id:PR-4471", "status:approach C"}))
    assert [e.key for e in r.elements()] == ["id:PR-4471", "status:approach C"]
