"""Plan sizes from parameters: exact for the article's generators, upper bounds for random ones, cheap for any input."""

from __future__ import annotations

import random

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError, SizeLimitError
from cvlib.scenarios import generators, sizes
from cvlib.scenarios.random_plans import FAMILIES, isolated_fan_out, layered_dag, random_plan


def links(plan: cv.PlanGraph) -> int:
    return sum(len(plan.step_at(i).predecessors) for i in range(len(plan)))


@pytest.mark.parametrize("depth", range(1, 23))
def test_branching_size_is_exact(depth):
    for bf in range(1, 6):
        for mf in range(1, 5):
            size = sizes.branching_size(depth, bf, mf)
            plan = generators.branching(depth, bf, mf)
            assert size.steps == sum(generators.branching_layer_widths(depth, bf, mf)) == len(plan)
            assert size.links == links(plan), (depth, bf, mf)


def test_chain_and_multi_branch_sizes_are_exact():
    for depth in range(1, 12):
        plan = generators.chain(depth)
        assert (sizes.chain_size(depth).steps, sizes.chain_size(depth).links) == (len(plan), links(plan))
    for p in range(1, 5):
        for b in range(1, 6):
            for q in range(1, 4):
                plan = generators.multi_branch(p, b, q)
                size = sizes.multi_branch_size(p, b, q)
                assert (size.steps, size.links, size.facts) == (len(plan), links(plan), len(plan.facts))


def test_random_sizes_are_upper_bounds():
    rng = random.Random(16)
    for seed in range(150):
        layers, width, facts, preds = rng.randint(1, 9), rng.randint(1, 6), rng.randint(1, 5), rng.randint(1, 4)
        plan = layered_dag(layers, width, facts, seed, max_predecessors=preds)
        bound = sizes.layered_dag_size(layers, width, facts, preds)
        assert len(plan) <= bound.steps and links(plan) <= bound.links and len(plan.facts) <= bound.facts
        b, fan, depth, q = rng.randint(1, 5), rng.randint(1, 4), rng.randint(0, 3), rng.randint(1, 3)
        plan = isolated_fan_out(b, fan, seed, branch_depth=depth, post_merge_depth=q)
        bound = sizes.isolated_fan_out_size(b, fan, depth, q)
        assert len(plan) <= bound.steps and links(plan) <= bound.links
        for family in FAMILIES:
            scale = rng.randint(1, 120)
            plan, _ = random_plan(family, seed, scale)
            for name in (family, "mixed"):
                bound = sizes.random_plan_size(name, scale)
                assert len(plan) <= bound.steps and links(plan) <= bound.links and len(plan.facts) <= bound.facts


def test_sizes_of_absurd_requests_take_no_time_to_compute():
    """Closed forms: a depth of 10^9 or a branching factor of 10^300 is arithmetic, not a loop (no timing: a loop would not finish)."""
    size = sizes.branching_size(10**9, 10**300, 2)
    assert size.steps > 10**900
    assert sizes.branching_size(10**12, 2, 1).steps == 2 + 4 + 8 * (10**12 // 2 - 2) + 8 * (10**12 // 2 - 1) + 1


@pytest.mark.parametrize(
    "call",
    [
        lambda: cv.chain(10_000_001),
        lambda: cv.branching(10**9),
        lambda: cv.branching(3, 2000),
        lambda: cv.multi_branch(1, 10**7, 1),
        lambda: cv.branch_facts(10**7 + 1),
        lambda: cv.generators.branching_layer_widths(10**9, 2, 2),
        lambda: cv.random_plans.fact_ids(10**8),
        lambda: cv.random_plans.random_setup(0, family="chain", max_steps=10**8),
        lambda: cv.builders.operational_setup(depth=10**8),
    ],
)
def test_every_entry_point_refuses_an_oversized_plan(call):
    with pytest.raises(SizeLimitError, match="the limit is"):
        call()


def test_limits_can_be_raised_and_lowered(monkeypatch):
    assert sizes.max_steps() == sizes.DEFAULT_MAX_STEPS
    with cv.size_limits(steps=10):
        assert sizes.max_steps() == 10
        with pytest.raises(SizeLimitError, match="would have 11 steps; the limit is 10"):
            cv.chain(11)
        assert len(cv.chain(10)) == 10
    assert sizes.max_steps() == sizes.DEFAULT_MAX_STEPS
    monkeypatch.setenv("CVLIB_MAX_STEPS", "7")
    with pytest.raises(SizeLimitError, match="the limit is 7"):
        cv.run_scenario("A", depth=8)
    with cv.size_limits(steps=100):  # the context wins over the environment
        cv.run_scenario("A", depth=8)
    monkeypatch.setenv("CVLIB_MAX_STEPS", "٧")
    with pytest.raises(ParameterError, match="CVLIB_MAX_STEPS must be an integer"):
        cv.chain(3)
    monkeypatch.setenv("CVLIB_MAX_RUNS", "5")
    with pytest.raises(SizeLimitError, match="count asks for 6 runs; the limit is 5"):
        cv.RandomFamily(seed=0, count=6)


def test_links_limit_is_twice_the_steps_limit():
    with cv.size_limits(steps=100):
        sizes.PlanSize("p", 100, 200, 1).check()
        with pytest.raises(SizeLimitError, match="201 dependency links; the limit is 200"):
            sizes.PlanSize("p", 100, 201, 1).check()


def test_a_sweep_grid_of_oversized_plans_fails_clearly():
    with pytest.raises(SizeLimitError, match="a chain of depth 20,000,000"):
        cv.sweep(cv.Grid("A", depth=[3, 20_000_000]), progress=False)
