"""The one table helper: human names, formatted numbers, nothing cut off, long tables folded."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cvlib.core.errors import ParameterError
from cvlib.presentation.tables import COLLAPSE_AFTER, Table, table


@pytest.fixture
def frame():
    return pd.DataFrame(
        {"plans": [1000, 2_000_000], "scur": [0.5, np.nan], "completed": [True, False], "note": ["a<b", None]}
    )


def test_columns_get_human_names_in_the_given_order_and_no_index(frame):
    t = table(frame, {"note": "Note", "plans": "Plans"})
    assert t.header == ("Note", "Plans")
    assert t.rows == (("a<b", "1,000"), ("–", "2,000,000"))


def test_per_column_formats_and_defaults(frame):
    t = table(frame, {"plans": "Plans", "scur": "SCUR", "completed": "Completed"}, {"scur": "share"})
    assert t.rows == (("1,000", "0.50", "yes"), ("2,000,000", "–", "no"))
    assert t.numeric == (True, True, False)


def test_a_function_can_format_a_column(frame):
    t = table(frame, {"plans": "Plans"}, {"plans": lambda v: f"{v // 1000}k"})
    assert [r[0] for r in t.rows] == ["1k", "2000k"]


def test_html_is_escaped_deterministic_and_has_no_index(frame):
    html = table(frame, caption="Two rows")._repr_html_()
    assert html == table(frame, caption="Two rows")._repr_html_()
    assert "a&lt;b" in html and "<caption>Two rows</caption>" in html
    assert 'class="cvtable"' in html and "True" not in html and "NaN" not in html and "…" not in html
    assert "<th></th>" not in html  # no blank index header


def test_plain_text_has_every_row_and_no_object_address(frame):
    text = repr(table(frame))
    assert "0x" not in text and "2,000,000" in text and "Styler" not in text


def test_long_tables_fold_behind_a_summary():
    long = pd.DataFrame({"i": range(COLLAPSE_AFTER + 1)})
    t = table(long, {"i": "Row"}, summary="13 rows, one per case")
    assert t.collapsed
    html = t._repr_html_()
    assert html.startswith('<details class="cvtable-fold">') and "13 rows, one per case" in html
    assert html.count("<tr>") == COLLAPSE_AFTER + 2  # header + every row: folded, never truncated
    assert not table(long.head(COLLAPSE_AFTER)).collapsed
    assert not table(long, collapse_after=None).collapsed


def test_index_can_be_shown_as_a_named_column():
    t = table(pd.DataFrame({"x": [1]}, index=pd.Index(["a"], name="case")), {"x": "X"}, index="Case")
    assert t.header == ("Case", "X") and t.rows == (("a", "1"),)


def test_bad_columns_are_clear_errors(frame):
    with pytest.raises(ParameterError, match="no column 'nope'"):
        table(frame, {"nope": "Nope"})
    with pytest.raises(ParameterError, match="a format for 'scur', which is not a shown column"):
        table(frame, {"plans": "Plans"}, {"scur": "share"})
    with pytest.raises(ParameterError, match="row 0 has 1 cells"):
        Table(("a", "b"), (("x",),))


def test_to_frame_gives_the_shown_texts(frame):
    shown = table(frame, {"plans": "Plans"}).to_frame()
    assert list(shown.columns) == ["Plans"] and shown["Plans"].tolist() == ["1,000", "2,000,000"]


def test_columns_already_written_as_numbers_are_aligned_as_numbers():
    t = table(pd.DataFrame({"a": ["1,000", "12%", "–"], "b": ["x", "1", "2"], "c": ["2.28.0", "3.1.3", "2.2.0"]}))
    assert t.numeric == (True, False, False)  # a version is not a number


def test_shown_keeps_a_rounded_frames_decimals_per_column_and_its_named_index():
    from cvlib.presentation.tables import shown

    frame = pd.DataFrame({"CPU (ms)": [47.6, 576.1, 126.0], "runs": [3, 1000, 2]},
                         index=pd.Index(["a", "b", "c"], name="case"))
    t = shown(frame)
    assert t.header == ("Case", "CPU (ms)", "runs")
    assert [r[1] for r in t.rows] == ["47.6", "576.1", "126.0"]
    assert [r[2] for r in t.rows] == ["3", "1,000", "2"]
    assert shown(frame.reset_index(drop=True)).header == ("CPU (ms)", "runs")
