"""Exposed size, depth and breadth (X3), the generalized law on random plans, and the fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvlib as cv
from cvlib import random_plans
from cvlib.core.errors import ParameterError
from cvlib.core.world import World
from cvlib.experiments.exposure import Exposure, exposure, exposure_sweep, fit_pfw


def test_chain_exposure():
    assert exposure(cv.chain(5), {"F1": 0}) == Exposure(size=4, depth=4, breadth=1, after_break=4)
    assert exposure(cv.chain(5), {"F1": 2}) == Exposure(size=4, depth=4, breadth=1, after_break=2)
    assert exposure(cv.chain(5), {}) == Exposure(0, 0, 0, 0)


def test_isolated_branches_expose_one_branch_only():
    plan = cv.multi_branch(6, 8, 2)
    e = exposure(plan, {"F1": 0})
    assert (e.size, e.depth, e.breadth) == (7, 7, 1)  # one branch of 6 and M0


def test_shallow_wide_diamond_is_broad():
    e = exposure(cv.branching(4, 4, 4), {"F1": 0})
    assert e.size == 24 and e.depth == 3 and e.breadth == 16


@settings(max_examples=60)
@given(st.integers(0, 10_000), st.sampled_from(random_plans.FAMILIES))
def test_generalized_law_holds_on_random_plans(seed, family):
    setup = random_plans.random_setup(seed, 0, family=family, max_steps=40)
    breaks = cv.break_ticks(setup.events)
    result = cv.run_baseline(setup.plan, World(setup.facts, setup.events), setup.at_risk, setup.budget)
    assert result.pre_failure_work == cv.predicted_pfw(setup.plan, breaks) == exposure(setup.plan, breaks).after_break


def test_fit_recovers_known_coefficients():
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"a": rng.integers(0, 10, 50), "b": rng.integers(0, 5, 50)})
    data["y"] = 2 + 3 * data["a"] - data["b"]
    fit = fit_pfw(data, ["a", "b"], target="y")
    assert np.allclose(fit.coefficients, (2, 3, -1))
    assert fit.rmse < 1e-9 and fit.r_squared == pytest.approx(1.0)


def test_at_start_pfw_is_exposed_size_exactly_and_shape_adds_nothing():
    data = exposure_sweep(300, seed=1)
    assert data["law_holds"].all()
    at_start = data[data.timing == "at_start"]
    fit = fit_pfw(at_start, ["exposed_size", "exposed_depth", "exposed_breadth"])
    assert np.allclose(fit.coefficients, (0, 1, 0, 0), atol=1e-9)
    assert fit.max_abs_residual < 1e-9


def test_with_breaks_after_the_start_size_alone_leaves_a_residual():
    data = exposure_sweep(300, seed=1)
    later = data[data.timing == "random"]
    assert fit_pfw(later, ["exposed_size"]).rmse > 1
    assert fit_pfw(later, ["exposed_after_break"]).max_abs_residual < 1e-9


def test_bad_inputs():
    with pytest.raises(ParameterError, match="no column"):
        fit_pfw(pd.DataFrame({"x": [1, 2, 3]}), ["z"])
    with pytest.raises(ParameterError, match="families must be a non-empty list"):
        exposure_sweep(2, families="layered")
    with pytest.raises(ParameterError, match="n_plans must be >= 1"):
        exposure_sweep(0)
