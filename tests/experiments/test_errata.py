"""Errata (X5): the original column is the article; the strict budget rule decides no published number."""

from __future__ import annotations

import pytest

from cvlib import errata
from cvlib.core.errors import ParameterError


@pytest.fixture(scope="module")
def table():
    return errata.errata_table().set_index(["headline", "quantity"])


def test_original_column_is_the_published_numbers(table):
    col = table["original"]
    assert col[("A value change", "steps baseline / validity-aware")] == "9 / 6"
    assert col[("A value change", "PFW baseline / validity-aware")] == "2 / 0"
    assert col[("A value change", "SCUR baseline / validity-aware")] == "0.75 / 0.50"
    assert col[("D1 depth chain", "baseline PFW at depths 1, 2, 3, 5, 10")] == "0, 1, 2, 4, 9"
    assert col[("D2 topologies", "baseline PFW chain / shallow-wide / deep-branching")] == "5 / 24 / 29"
    assert col[("D2 grid", "configs with PFW = nodes - 1 (of 96)")] == 96
    assert col[("D3 isolation", "baseline PFW at 1, 4, 8 branches")] == "7, 7, 7"
    assert col[("E1 ambiguous", "steps baseline / validity-aware (verifications)")] == "7 / 6 (1)"
    assert col[("E2 ambiguous", "steps baseline / validity-aware (verifications)")] == "3 / 4 (1)"
    assert col[("Budget sweep", "budgets where only validity-aware completes (9 down to 4)")] == "6-8"
    assert col[("PFW law", "cases matching (of 15)")] == 15


def test_strict_budget_changes_no_published_number(table):
    assert (table["strict_budget"].astype(str) == table["original"].astype(str)).all()


def test_redo_affected_changes_only_scur_d3_steps_and_where_the_window_sits(table):
    changed = table[table["redo_affected"].astype(str) != table["original"].astype(str)].index.tolist()
    assert changed == [
        ("A value change", "SCUR baseline / validity-aware"),
        ("D3 isolation", "validity-aware steps at 1, 4, 8 branches"),
        ("Budget sweep", "budgets where only validity-aware completes (9 down to 4)"),
    ]
    assert table.loc[("Budget sweep", "budgets where only validity-aware completes (9 down to 4)"), "both"] == "6-8"


def test_sensitivity_marks_the_published_point():
    frame = errata.sensitivity("A baseline PFW")
    published = frame[frame.published_point]
    assert set(published["result"]) == {2}
    assert list(frame[frame.parameter == "change_tick"]["result"]) == [3, 2, 1, 0, 0]


def test_strict_rule_shows_in_the_control_at_tight_budgets():
    frame = errata.sensitivity("C completed (baseline / validity-aware)", "strict_budget").set_index("value")
    # budget 4: the action is the 5th step; the original rule counts it, the strict one does not
    assert frame.loc[4, "result"] == "True / True"
    assert frame.loc[4, "corrected"] == "False / False"
    assert frame.loc[5, "corrected"] == "True / True"
    assert frame.loc[11, "published_point"]


def test_unknown_names():
    with pytest.raises(ParameterError, match="unknown headline"):
        errata.sensitivity("nope")
    with pytest.raises(ParameterError, match="unknown correction 'lenient'"):
        errata.headline_results("lenient")


def test_budget_range_writes_windows_as_prose():
    assert errata.budget_range("6-8") == "6–8"
    assert errata.budget_range("8-8") == "8"
    assert errata.budget_range("none") == "none"


def test_variation_reads_one_cell_and_refuses_a_missing_one():
    frame = errata.sensitivity("A baseline PFW")
    assert errata.variation(frame, "change_tick", 0) == 3
    assert errata.variation(frame, "change_tick", 1) == 2
    with pytest.raises(ParameterError, match="no variation with depth = 99"):
        errata.variation(frame, "depth", 99)
