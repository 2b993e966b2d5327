"""Every sweep takes ``policies=``: columns follow ``{policy}_{metric}``, defaults stay the article's two."""

from __future__ import annotations

import pytest

import cvlib as cv
from cvlib.core.errors import SweepError
from cvlib.experiments import time_and_operational as x4

THREE = ["baseline", "validity_aware", "timestamp_only"]


def test_budget_sweep_has_a_column_pair_per_policy_in_order():
    frame = cv.budget_sweep(policies=THREE)
    assert list(frame.columns) == [
        "budget",
        "baseline_completed", "validity_aware_completed", "timestamp_only_completed",
        "baseline_steps", "validity_aware_steps", "timestamp_only_steps",
    ]
    default = cv.budget_sweep()
    assert list(default.columns) == ["budget", "baseline_completed", "validity_aware_completed",
                                     "baseline_steps", "validity_aware_steps"]
    assert frame[default.columns].equals(default)  # adding a policy changes nobody else's numbers
    # timestamp_only cannot see the replaced price, so it needs what the baseline needs
    assert frame["timestamp_only_steps"].tolist() == frame["baseline_steps"].tolist()


def test_topology_grid_and_the_article_sweeps_take_policies():
    grid = cv.topology_grid(depths=[3, 4], branching_factors=[1, 2], merge_factors=[1], policies=["timestamp_only"])
    assert "timestamp_only_pfw" in grid and "baseline_pfw" not in grid
    assert (grid["timestamp_only_pfw"] == grid["total_steps"] - 1).all()  # acts on belief, like the baseline
    assert "timestamp_only_scur" in cv.depth_sweep([2, 3], policies=THREE)
    assert "timestamp_only_steps" in cv.isolation_sweep([1, 2], policies=THREE)


def test_check_law_adds_a_pfw_column_per_extra_policy():
    default = cv.check_law()
    extra = cv.check_law(policies=["timestamp_only"])
    assert list(extra.columns) == [*default.columns, "timestamp_only_pfw"]
    assert extra["match"].all() and extra["timestamp_only_pfw"].equals(extra["actual_pfw"])


@pytest.mark.parametrize("backend", ["serial", "processes"])
def test_random_family_sweep_has_each_policys_columns(backend):
    spec = cv.RandomFamily(seed=3, count=12, policies=THREE)
    rows = cv.sweep(spec, backend=backend, workers=2, chunk_size=5, progress=False)
    for name in THREE:
        for metric in ("pfw", "steps", "completed", "verifications"):
            assert f"{name}_{metric}" in rows
    assert rows["law_holds"].all()
    default = cv.sweep(cv.RandomFamily(seed=3, count=12), chunk_size=5, progress=False)
    shared = [c for c in default.columns]
    assert rows[shared].equals(default)


def test_grid_sweep_takes_policies():
    spec = cv.Grid("A", policies=["baseline", "timestamp_only"], change_tick=[0, 1])
    rows = cv.sweep(spec, progress=False)
    assert {"baseline_pfw", "timestamp_only_pfw"} <= set(rows.columns) and "validity_aware_pfw" not in rows


def test_the_policy_list_is_part_of_a_sweeps_identity(tmp_path):
    folder = tmp_path / "ck"
    cv.sweep(cv.RandomFamily(seed=0, count=6), checkpoint=folder, chunk_size=3, progress=False)
    assert cv.RandomFamily(seed=0, count=6).describe()["policies"] == ["baseline", "validity_aware"]
    with pytest.raises(SweepError):
        cv.sweep(cv.RandomFamily(seed=0, count=6, policies=THREE), checkpoint=folder, chunk_size=3, progress=False)


def test_x4_experiments_take_policies():
    ttl = x4.ttl_sweep([2, 4], [0.2], n_schedules=20, policies=THREE)
    assert ttl["executor"].tolist() == ["baseline", "validity_aware", "validity_aware", "timestamp_only", "timestamp_only"]
    va = ttl[ttl.executor == "validity_aware"].drop(columns="executor").reset_index(drop=True)
    ts = ttl[ttl.executor == "timestamp_only"].drop(columns="executor").reset_index(drop=True)
    assert va.equals(ts)  # a silent change is seen through age alone, by both
    ops = x4.operational_comparison([4], n_schedules=20, policies=THREE)
    assert ops["checker"].tolist() == ["baseline", "timestamp", "timestamp_laundering", "dependency", "timestamp_only"]
    row = ops.set_index("checker")
    assert row.loc["timestamp_only", "mean_pfw"] == row.loc["timestamp", "mean_pfw"] > row.loc["dependency", "mean_pfw"]
    default = x4.operational_comparison([4], n_schedules=20)
    assert default["checker"].tolist() == list(x4.OPERATIONAL_CHECKERS)
