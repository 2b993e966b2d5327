"""The D2 topologies chapter's module: named plans, the grid by depth, and the numbers it glues."""

from __future__ import annotations

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.presentation.chapters import topologies as chapter
from cvlib.presentation.tables import Table


@pytest.fixture(scope="module")
def grid():
    return cv.topology_grid([3, 4, 6], [1, 3], [1, 2], seed=0)


def test_named_rows_label_each_topology_and_run_it() -> None:
    named = chapter.named_rows([[6, 1, 1], [4, 4, 4]], seed=0)
    assert list(named["label"]) == ["(6, 1, 1)", "(4, 4, 4)"]
    run = cv.run_scenario("D2", depth=4, branching_factor=4, merge_factor=4, seed=0)
    assert named.loc[1, "baseline_pfw"] == run.baseline.pre_failure_work
    assert isinstance(chapter.named_table(named), Table)
    with pytest.raises(ParameterError, match=r"got \[\[4, 4\]\]"):
        chapter.named_rows([[6, 1, 1], [4, 4]], seed=0)


def test_by_depth_counts_each_depths_configurations_and_those_off_the_law(grid) -> None:
    summary = chapter.by_depth(grid)
    assert list(summary["depth"]) == [3, 4, 6]
    assert summary["configs"].sum() == len(grid)
    for _, row in summary.iterrows():
        part = grid[grid["depth"] == row["depth"]]
        assert row["smallest"] == part["closure_size"].min() and row["largest"] == part["closure_size"].max()
        assert row["off_law"] == (part["baseline_pfw"] != part["closure_size"] - 1).sum()
    assert "off_law" not in grid.columns  # the caller's grid is left as it was


def test_the_glued_numbers_and_lists_come_from_the_runs(grid) -> None:
    numbers = chapter.numbers(grid)
    assert numbers["D2_grid_configs"] == len(grid) == 12
    assert numbers["D2_grid_min_size"] == grid["closure_size"].min()
    named = chapter.named_rows([[6, 1, 1], [8, 2, 2]], seed=0)
    texts = chapter.texts(named)
    assert texts["D2_topology_labels"] == "(6, 1, 1) and (8, 2, 2)"
    counts, words = chapter.exercise([3, 4, 6], [1, 3], seed=0)
    assert words == {"D2_ex_label": "7, 4, 1"} and counts["D2_ex_predicted"] == counts["D2_ex_closure"] - 1
