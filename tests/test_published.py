"""The reference column: published numbers beside ours, and an honest verdict."""

from __future__ import annotations

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.presentation.published import PUBLISHED, at_published_params, comparison, published, verdict


def test_comparison_marks_agreement_and_disagreement():
    table = comparison([("steps", 9, 9), ("pfw", 2, 3), ("scur", 0.75, 0.75), ("pct", [100.0, 30.8], [100.0, 30.77])])
    assert list(table["agrees"]) == ["yes", "no", "yes", "yes"]
    assert verdict(table) == "1 of 4 published numbers differ (pfw)"


def test_comparison_with_other_parameters_claims_nothing():
    table = comparison([("steps", 9, 11)], applies=False)
    assert list(table["agrees"]) == ["n/a (other parameters)"]
    assert "no numbers for these parameters" in verdict(table)


def test_all_agree_verdict():
    assert verdict(comparison([("a", 1, 1), ("b", [1, 2], (1, 2))])) == "all 2 published numbers are reproduced exactly"


def test_list_length_mismatch_disagrees():
    assert list(comparison([("a", [1, 2], [1, 2, 3])])["agrees"]) == ["no"]


def test_at_published_params():
    assert at_published_params("A", {"depth": 4, "change_tick": 1, "budget": None})
    assert not at_published_params("A", {"depth": 6, "change_tick": 1})
    assert at_published_params("D1", {"depths": (1, 2, 3, 5, 10), "change_tick": 0})


def test_unknown_experiment_is_a_clear_error():
    with pytest.raises(ParameterError, match="no published numbers for 'Z'"):
        published("Z")
    with pytest.raises(ParameterError, match="expected one of"):
        at_published_params("Z", {})


def test_published_values_are_copies():
    values = published("A")
    values["baseline_steps"] = 0
    assert PUBLISHED["A"]["values"]["baseline_steps"] == 9


def test_reference_agrees_with_the_library_at_published_parameters():
    """The reference column and cvlib agree, so a chapter's table reads 'yes' throughout at its defaults."""
    run = cv.run_scenario("A")
    P = published("A")
    table = comparison(
        [("baseline steps", P["baseline_steps"], run.baseline.steps_used), ("validity PFW", P["validity_pfw"], 0)]
    )
    assert set(table["agrees"]) == {"yes"}
