"""How the book writes numbers: one helper, the same value the same way everywhere."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cvlib.core.errors import ParameterError
from cvlib.presentation import formatting as f


def test_counts_get_thousands_separators():
    assert f.fmt(1_000_000) == "1,000,000"
    assert f.fmt(23024072) == "23,024,072"
    assert f.fmt(7) == "7"
    assert f.fmt(np.int64(4905)) == "4,905"


def test_each_quantity_has_fixed_decimals():
    assert f.fmt(0.5, "share") == "0.50"  # never 0.5 beside 0.50
    assert f.fmt(0.75, "share") == "0.75"
    assert f.fmt(30.769, "percent") == "30.8%"
    assert f.fmt(0.16, "percent_of") == "16.0%"
    assert f.fmt(0.5556, "rate") == "0.556"
    assert [f.fmt(v, "seconds") for v in (1.4, 23, 0.032, 0.27057, 11.185, 1234.5)] == [
        "1.40", "23.0", "0.0320", "0.271", "11.2", "1,234"
    ]
    assert f.fmt(85.04, "ratio") == "85.0×"
    assert f.fmt(1.5073, "ratio_fine") == "1.51×"  # a bound beside a target of 1.5×


def test_zero_is_never_negative_and_minus_is_a_minus_sign():
    assert f.fmt(-0.0001, "share") == "0.00"
    assert f.fmt(-0.0, "coefficient") == "0.00"
    assert f.fmt(-3.5, "mean") == "−3.50"
    assert f.fmt(3, "difference") == "+3"


def test_truth_values_are_words():
    assert f.fmt(True) == "yes" and f.fmt(False) == "no"
    assert f.fmt(np.bool_(True)) == "yes"
    assert f.words(False, yes="met", no="missed") == "missed"
    with pytest.raises(ParameterError, match="needs a truth value"):
        f.words(1)


def test_missing_values_are_an_en_dash():
    assert f.fmt(None) == "–"
    assert f.fmt(float("nan"), "share") == "–"
    assert f.fmt(pd.NA) == "–"
    assert f.is_missing(np.float32("nan")) and not f.is_missing(0)


def test_lists_and_ranges():
    assert f.fmt([0, 1, 2, 4, 9]) == "0, 1, 2, 4, 9"
    assert f.fmt((100.0, 30.77), "percent") == "100.0%, 30.8%"
    assert f.listing([8, 7, 6]) == "8, 7, 6"
    assert f.listing([1, 2, 3], last=" and ") == "1, 2 and 3"
    assert f.listing([]) == "none"
    assert f.span([0.57, 1.144, 0.9], "mean") == "0.57–1.14"
    assert f.span([3, 3]) == "3"


def test_infinity_and_text():
    assert f.fmt(math.inf) == "∞"
    assert f.fmt("as is") == "as is"


def test_unknown_quantity_is_a_clear_error():
    with pytest.raises(ParameterError, match="unknown quantity 'furlongs'"):
        f.fmt(1, "furlongs")
    with pytest.raises(ParameterError, match="non-negative integer"):
        f.Quantity(decimals=-1)
    with pytest.raises(ParameterError, match="cannot format"):
        f.fmt(object())


def test_glue_writes_what_fmt_writes_and_returns_nothing():
    assert f.glue("k", 1234567) is None  # a cell ending with a glue shows no output
    assert f.written({"a": 1000, "b": (0.25, "share"), "c": (True, "count"), "d": ((9, 6), "count")}) == {
        "a": "1,000", "b": "0.25", "c": "yes", "d": "9, 6"
    }
    assert f.glue_all({"a": 1}) is None and f.glue_text("v", "all 3 agree") is None
    with pytest.raises(ParameterError, match="needs a string"):
        f.glue_text("v", 3)


def test_glue_in_a_kernel_stores_text(monkeypatch):
    stored = {}
    monkeypatch.setattr(f, "_in_kernel", lambda: True)
    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", lambda key, value, display=True: stored.update({key: (value, display)}))
    f.glue("n", 23024072)
    f.glue_text("v", "all agree")
    assert stored == {"n": ("23,024,072", False), "v": ("all agree", False)}


def test_plain_words_turns_python_truth_values_in_text_into_words():
    assert f.plain_words("True / False") == "yes / no"
    assert f.plain_words("9 / 6") == "9 / 6"
    assert f.plain_words("Trueish") == "Trueish"
    assert f.plain_words(True) == "yes"


def test_range_text_writes_a_hyphenated_range_as_prose_does() -> None:
    from cvlib.presentation.formatting import range_text

    assert range_text("6-8") == "6–8"
    assert range_text("8-8") == "8"
    assert range_text("none") == "none"
    assert range_text("4,6") == "4,6"
