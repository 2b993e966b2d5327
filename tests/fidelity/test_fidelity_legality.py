"""Legality is a predicate; both dominance relations are partial orders."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvlib.core.errors import ParameterError
from cvlib.fidelity import (
    Floor,
    Obligation,
    OperatingPoint,
    check,
    comparable,
    is_legal,
    merge_dominated,
    operating_at_least,
    operating_dominates,
    pareto_front,
    preservation_dominates,
    preserves_at_least,
    render,
    violated,
)
from cvlib.fidelity.trajectories import MIGRATION

UNIVERSE = [(f"k{i}", lv) for i in range(4) for lv in (1, 2)]
vectors = st.frozensets(st.sampled_from(UNIVERSE))


def test_legality_is_a_predicate_over_current_obligations():
    v = frozenset({("id:A", 1), ("id:A", 2)})
    obs = [Obligation("x", "id:A", Floor.EXACT), Obligation("x", "id:B", Floor.MENTION)]
    assert not is_legal(v, obs)
    assert violated(v, obs) == (obs[1],)
    assert is_legal(v, obs[:1])


@settings(max_examples=200, deadline=None)
@given(vectors, vectors, vectors)
def test_preservation_order_is_a_partial_order(a, b, c):
    assert preserves_at_least(a, a)
    if preserves_at_least(a, b) and preserves_at_least(b, a):
        assert a == b
    if preserves_at_least(a, b) and preserves_at_least(b, c):
        assert preserves_at_least(a, c)
    assert not preservation_dominates(a, a)
    if preservation_dominates(a, b) and preservation_dominates(b, c):
        assert preservation_dominates(a, c)
    assert not (preservation_dominates(a, b) and preservation_dominates(b, a))


def test_dense_and_record_are_incomparable_for_the_migration():
    dense = check(render(MIGRATION, "dense"), MIGRATION).vector
    rec = check(render(MIGRATION, "record"), MIGRATION).vector
    assert not comparable(dense, rec)
    full = check(render(MIGRATION, "full"), MIGRATION).vector
    assert preservation_dominates(full, dense) and preservation_dominates(full, rec)


points = st.builds(
    lambda name, checks, r, g: OperatingPoint.make(name, checks, {"resident_tokens": r, "generation_tokens": g}),
    st.sampled_from(["p", "q", "s"]),
    vectors,
    st.integers(0, 5),
    st.integers(0, 5),
)


@settings(max_examples=200, deadline=None)
@given(points, points, points, vectors)
def test_operating_point_order_is_a_preorder_and_dominance_strict(a, b, c, req):
    assert operating_at_least(a, a, req)
    assert not operating_dominates(a, a, req)
    if operating_at_least(a, b, req) and operating_at_least(b, c, req):
        assert operating_at_least(a, c, req)
    if operating_at_least(a, b, req) and operating_at_least(b, a, req):
        # antisymmetric up to what is compared: same required checks met, same costs
        assert a.checks & req == b.checks & req and a.costs == b.costs
    if operating_dominates(a, b, req) and operating_dominates(b, c, req):
        assert operating_dominates(a, c, req)
    assert not (operating_dominates(a, b, req) and operating_dominates(b, a, req))


def test_pareto_front_merges_away_a_dominated_point():
    req = frozenset({("k0", 2), ("k1", 2)})
    big = OperatingPoint.make("big", req, {"resident_tokens": 10})
    mid = OperatingPoint.make("mid", frozenset({("k0", 2)}), {"resident_tokens": 5})
    bad = OperatingPoint.make("bad", frozenset({("k0", 2)}), {"resident_tokens": 7})
    assert [p.name for p in pareto_front([big, mid, bad], req)] == ["big", "mid"]
    kept, dropped = merge_dominated([big, mid, bad], req)
    assert dropped == {"bad": ("mid",)}
    assert all(not operating_dominates(x, y, req) for x, y in itertools.permutations(kept, 2))


def test_negative_cost_is_refused():
    with pytest.raises(ParameterError, match="must be >= 0"):
        OperatingPoint.make("x", frozenset(), {"resident_tokens": -1})
