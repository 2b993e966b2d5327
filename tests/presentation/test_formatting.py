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


# -- phrases around numbers ------------------------------------------------------------

POINTS = f.Quantity(0, scale=100.0, signed=True)


def test_plural_follows_the_count_as_written_and_separates_thousands() -> None:
    from cvlib.presentation.formatting import plural

    assert plural(1, "task") == "1 task"
    assert plural(0, "task") == "0 tasks"
    assert plural(12000, "task") == "12,000 tasks"
    assert plural(2, "repeat", "repeats") == "2 repeats"
    assert plural(1, "child", "children") == "1 child"
    assert plural(3, "child", "children") == "3 children"
    assert plural(1.0, "step", kind="tenths") == "1.0 steps"


def test_interval_text_writes_the_ends_as_the_value_and_says_when_there_is_none() -> None:
    from cvlib.presentation.formatting import interval_text

    assert interval_text(0.5, 0.4, 0.6, "share") == "0.50 (0.40 to 0.60)"
    assert interval_text(0.5, math.nan, 0.6, "share") == "0.50 (interval not computable)"
    assert interval_text(None, 0.4, 0.6) == f.MISSING


def test_a_zero_width_interval_at_zero_reads_identical_on_all_tasks_never_as_not_distinguishable() -> None:
    from cvlib.presentation.formatting import effect_phrase, verdict

    assert verdict(0.0, 0.0, 44) == "identical on all 44 tasks"
    assert verdict(0.0, 0.0, 1) == "identical on the one task"
    assert effect_phrase(0.0, 0.0, 0.0, 44, POINTS, unit="point") == "0 points, identical on all 44 tasks"
    assert effect_phrase(0.0, 0.0, 0.0, 16) == "0.00, identical on all 16 tasks"
    assert "distinguishable" not in effect_phrase(0.0, 0.0, 0.0, 12000)
    assert effect_phrase(1.0, 1.0, 1.0, 16, "count", unit="step") == "1 step on each of the 16 tasks"


def test_an_effect_its_interval_and_its_verdict_make_one_phrase() -> None:
    from cvlib.presentation.formatting import NOT_DISTINGUISHABLE, effect_phrase, verdict

    assert effect_phrase(-0.05, -0.11, 0.03, 44, POINTS, unit="point") == "−5 points (−11 to +3), not distinguishable from zero"
    assert effect_phrase(-0.01, -0.06, 0.04, 44, POINTS, unit="point").startswith("−1 point (")
    assert effect_phrase(-0.16, -0.30, -0.05, 44, POINTS, unit="point") == "−16 points (−30 to −5), lower"
    assert effect_phrase(0.2, 0.1, 0.3, 9) == "0.20 (0.10 to 0.30), higher"
    assert effect_phrase(0.2, math.nan, 0.3, 9) == "0.20 (interval not computable)"
    assert effect_phrase(0.2, 0.1, 0.3, 3, min_tasks=5) == "0.20 (0.10 to 0.30), too few tasks (3) to read"
    assert effect_phrase(math.nan, 0.1, 0.3, 9) == f.MISSING
    assert verdict(-0.1, 0.0, 9) == NOT_DISTINGUISHABLE  # an end at zero includes zero
    assert verdict(-0.01, 0.0 + 1e-9, 9) == NOT_DISTINGUISHABLE
    assert verdict(math.nan, 0.1, 9) == "no interval"


def test_a_difference_that_rounds_to_zero_has_no_sign() -> None:
    assert f.fmt(0.3, "difference") == "0"
    assert f.fmt(-0.3, "difference") == "0"
    assert f.fmt(0.6, "difference") == "+1"


def test_glue_markdown_takes_a_paragraph_and_refuses_anything_else() -> None:
    assert f.glue_markdown("k", "Two sentences. Both plain.") is None  # outside a kernel: nothing glued
    with pytest.raises(ParameterError, match="needs a string"):
        f.glue_markdown("k", 3)  # type: ignore[arg-type]


def test_glue_markdown_in_a_kernel_stores_markdown(monkeypatch) -> None:
    stored = {}
    monkeypatch.setattr(f, "_in_kernel", lambda: True)
    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", lambda key, value, display=True: stored.update({key: (value, display)}))
    f.glue_markdown("p", "A paragraph.")
    value, display = stored["p"]
    assert value._repr_markdown_() == "A paragraph." and display is False


def test_grouped_effects_say_each_verdict_once_and_name_every_model_beside_its_number() -> None:
    from cvlib.presentation.formatting import grouped_effects

    made = grouped_effects("the change in pre-failure work from enforcing",
                           [("A", -0.04, -0.06, -0.02, 160), ("B", -0.02, -0.13, 0.10, 160), ("C", 0.0, 0.0, 0.0, 160),
                            ("D", -0.5, -0.64, -0.37, 160), ("E", 0.01, -0.02, 0.03, 160)])
    assert made == ("The change in pre-failure work from enforcing was below zero for A, −0.04 (−0.06 to −0.02), and "
                    "D, −0.50 (−0.64 to −0.37). It was not distinguishable from zero for B, −0.02 (−0.13 to 0.10), and "
                    "E, 0.01 (−0.02 to 0.03). It was 0.00 on all 160 tasks for C.")
    assert made.count("distinguishable") == 1


def test_grouped_effects_write_points_missing_effects_and_missing_intervals() -> None:
    from cvlib.presentation.formatting import grouped_effects

    assert grouped_effects("the label's change", [("A", 0.0, 0.0, 0.0, 44), ("B", 0.0, 0.0, 0.0, 44)], POINTS,
                           unit="point") == "The label's change was 0 points on all 44 tasks for A and B."
    assert grouped_effects("x", [("A", math.nan, math.nan, math.nan, 0)], missing="not recorded yet") == (
        "X was not recorded yet for A.")
    assert grouped_effects("x", [("A", 0.5, math.nan, math.nan, 1)]) == "X was not read (too few tasks for an interval) for A, 0.50."
    assert grouped_effects("x", [("A", 0.5, 0.1, 0.9, 3)], min_tasks=5) == "X was not read (only 3 tasks) for A, 0.50."
    assert grouped_effects("x", []) == ""


def test_glue_all_glues_sentences_of_the_markdown_kind_as_markdown_and_values_as_text(monkeypatch) -> None:
    stored = {}
    monkeypatch.setattr(f, "_in_kernel", lambda: True)
    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", lambda key, value, display=True: stored.update({key: value}))
    f.glue_all({"n": (12000, "count"), "said": ("**A** was below zero.", f.MARKDOWN)})
    assert stored["n"] == "12,000"
    assert type(stored["said"]).__name__ == "Markdown" and stored["said"].data == "**A** was below zero."
