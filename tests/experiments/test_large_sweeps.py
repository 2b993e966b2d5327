"""Sweep specifications (cvlib.experiments.large_sweeps.Grid and RandomFamily): tasks, rows and identities."""

from __future__ import annotations

import json

import pytest

import cvlib as cv
from cvlib.experiments.article import run_row
from cvlib.experiments.large_sweeps import BACKENDS, Grid, RandomFamily, sweep
from cvlib.scenarios.named import run_scenario


def test_grid_tasks_are_mixed_radix_with_the_last_parameter_fastest() -> None:
    grid = Grid("D2", depth=[3, 4], branching_factor=[1, 2, 3])
    assert len(grid) == 6
    assert [grid.task(i) for i in range(6)] == [
        {"depth": d, "branching_factor": b} for d in (3, 4) for b in (1, 2, 3)
    ]


def test_grid_rows_are_the_named_scenarios_run_rows() -> None:
    grid = Grid("D1", depth=[2, 5])
    rows = grid.rows(0, 2)
    assert [r["task"] for r in rows] == [0, 1]
    for row, depth in zip(rows, (2, 5)):
        expected = run_row(run_scenario("D1", depth=depth))
        assert {k: row[k] for k in expected} == expected
        assert row["scenario"] == "D1" and row["depth"] == depth


def test_grid_describes_itself_as_json_and_equal_grids_describe_alike() -> None:
    a, b = Grid("D1", depth=[2, 3]), Grid("D1", depth=[2, 3])
    assert json.loads(json.dumps(a.describe())) == a.describe() == b.describe()
    assert Grid("D1", depth=[2, 4]).describe() != a.describe()


def test_random_family_rows_check_the_law_on_each_plan() -> None:
    family = RandomFamily(seed=5, count=20, max_steps=15)
    rows = family.rows(0, 20)
    assert [r["task"] for r in rows] == list(range(20))
    assert all(r["total_steps"] <= 15 for r in rows)
    assert all(r["law_holds"] == (r["predicted_pfw"] == r["baseline_pfw"]) for r in rows)
    assert all(r["validity_aware_pfw"] == 0 for r in rows)
    assert rows[7:9] == family.rows(7, 9)  # a task is the same whichever chunk runs it


def test_random_family_validates_its_fields() -> None:
    with pytest.raises(cv.ParameterError):
        RandomFamily(seed=1, count=-1)
    with pytest.raises(cv.ParameterError):
        RandomFamily(seed=1, count=5, family="spirals")
    with pytest.raises(cv.ParameterError):
        RandomFamily(seed=1, count=5, max_steps=0)


def test_a_serial_sweep_is_the_rows_in_task_order() -> None:
    family = RandomFamily(seed=2, count=12, max_steps=10)
    frame = sweep(family, chunk_size=5, progress=False)
    assert list(frame["task"]) == list(range(12))
    assert frame.to_dict("records") == family.rows(0, 12)
    assert "serial" in BACKENDS
