"""The fair flat compaction keeps verbatim lines, claims honestly and never does worse with more room."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvlib.core.errors import ParameterError
from cvlib.fidelity import check, make_object, render, render_compact
from cvlib.fidelity.trajectories import MIGRATION


def test_the_migrations_compaction_at_thirty_percent_drops_the_conflict():
    c = render_compact(MIGRATION, 0.3)
    full = render(MIGRATION, "full")
    assert c.tokens <= round(0.3 * full.tokens)
    assert c.text.splitlines()[0] == full.text.splitlines()[0]  # identity kept
    vec = check(c, MIGRATION).vector
    assert ("constraint:approach B", 2) in vec and ("status:approach B", 2) in vec
    assert ("rationale:approach B", 2) not in vec  # the long reason is the first fact to go
    assert ("rationale:approach B", 2) in check(render_compact(MIGRATION, 0.5), MIGRATION).vector


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000), st.floats(0.05, 0.95), st.floats(0.0, 0.5))
def test_compaction_is_verbatim_honest_and_monotone(seed, ratio, more):
    obj = make_object(np.random.default_rng(seed), "x")
    full_lines = set(render(obj, "full").text.splitlines())
    small = render_compact(obj, ratio)
    big = render_compact(obj, min(1.0, ratio + more))
    for c in (small, big):
        assert set(c.text.splitlines()) <= full_lines  # every kept line is a line of the source
        res = check(c, obj)
        assert res.honest and res.vector == c.claimed  # it claims exactly what it keeps
        assert res.unsupported == ()
    exact = lambda c: sum(lv == 2 for _, lv in check(c, obj).vector)  # noqa: E731
    assert exact(big) >= exact(small)  # more room never keeps fewer exact elements


def test_at_full_size_every_exact_check_survives():
    c = render_compact(MIGRATION, 1.0)
    assert {k for k, lv in check(c, MIGRATION).vector if lv == 2} == {e.key for e in MIGRATION.elements()}


@pytest.mark.parametrize("ratio", [0, -0.1, 1.5, True, "half"])
def test_bad_ratio_is_refused(ratio):
    with pytest.raises(ParameterError, match="compaction ratio must be a number in"):
        render_compact(MIGRATION, ratio)
