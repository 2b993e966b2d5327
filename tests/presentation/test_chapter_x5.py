"""The X5 errata chapter's module: which values each correction changes, and what the chapter quotes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from cvlib.core.errors import ParameterError  # noqa: E402
from cvlib.experiments import errata  # noqa: E402
from cvlib.presentation.chapters import x5_errata as chapter  # noqa: E402


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return errata.errata_table()


def test_changed_marks_each_value_a_correction_alters(table: pd.DataFrame) -> None:
    flags = chapter.changed(table)
    assert list(flags.columns) == list(errata.CORRECTIONS)[1:]
    assert list(flags.index) == list(table["headline"] + ": " + table["quantity"])
    for name in flags.columns:
        for i in range(len(table)):
            assert flags[name].iloc[i] == (str(table[name].iloc[i]) != str(table["original"].iloc[i]))
    with pytest.raises(ParameterError, match=r"lacks the rule set\(s\) \['both'\]"):
        chapter.changed(table.drop(columns=["both"]))


def test_the_table_texts_count_the_changes_in_the_chapters_order(table: pd.DataFrame) -> None:
    texts = chapter.table_texts(table)
    assert list(texts)[:4] == ["X5_quantities", "X5_changed_strict", "X5_changed_redo", "X5_changed_both"]
    assert texts["X5_quantities"] == str(len(table))
    assert texts["X5_changed_both"] == str(int(chapter.changed(table)["both"].sum()))
    assert all(isinstance(v, str) for v in texts.values())


def test_moved_keeps_the_variations_the_correction_changes() -> None:
    sensitivity = {
        "A": pd.DataFrame(
            {"parameter": ["budget", "depth"], "value": [3, 4], "result": ["x", "y"], "corrected": ["x", "z"]}
        ),
        "B": pd.DataFrame({"parameter": ["budget"], "value": [5], "result": ["1 / 2"], "corrected": ["1 / 3"]}),
    }
    moved = chapter.moved(sensitivity)
    assert list(moved["headline"]) == ["A", "B"] and list(moved["parameter"]) == ["depth", "budget"]
    uncorrected = {name: frame.drop(columns=["corrected"]) for name, frame in sensitivity.items()}
    assert chapter.moved(uncorrected).empty
    assert len(chapter.detail(sensitivity)) == 3


def test_a_rule_set_is_named_as_the_tables_name_it() -> None:
    assert chapter.rule_name("redo_affected") == "Redo affected"
    assert chapter.rule_name("mine") == "mine"
