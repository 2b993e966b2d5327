"""The reference column: published numbers beside ours, compared honestly, and a verdict that says how."""

from __future__ import annotations

from decimal import Decimal

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.presentation.published import (
    PUBLISHED,
    Comparison,
    agrees,
    at_published_params,
    compare,
    comparison,
    decimals_of,
    published,
    verdict,
)


def test_counts_are_compared_exactly():
    assert agrees(9, 9) and not agrees(10, 9)
    assert agrees(9.0, 9)  # a count that went through a float is still 9
    assert not agrees(9.2, 9)  # no tolerance for counts


def test_a_scur_of_0_71_does_not_pass_for_the_published_0_75():
    assert not agrees(0.71, Decimal("0.75"))
    assert not agrees(0.744, Decimal("0.75"))
    assert agrees(0.75, Decimal("0.75"))
    assert agrees(0.7504, Decimal("0.75"))  # equal at the two decimals the article prints


def test_decimals_are_compared_at_the_precision_the_article_prints():
    assert agrees(30.77, Decimal("30.8"))  # the article rounds 8/26 to one decimal
    assert not agrees(30.7, Decimal("30.8"))
    assert agrees(0.5, Decimal("0.50"))
    assert decimals_of(Decimal("0.50")) == 2 and decimals_of(Decimal("100.0")) == 1 and decimals_of(7) is None
    assert decimals_of([Decimal("100.0"), Decimal("30.8")]) == 1


def test_a_float_reference_is_refused_not_given_a_tolerance():
    with pytest.raises(ParameterError, match="store it as Decimal"):
        agrees(0.75, 0.75)


def test_truth_values_are_compared_exactly_and_never_with_numbers():
    assert agrees(True, True) and not agrees(False, True)
    assert not agrees(1, True) and not agrees(True, 1)


def test_lists_agree_element_by_element_and_in_length():
    assert agrees([0, 1, 2], [0, 1, 2])
    assert not agrees([0, 1, 2], [0, 1, 2, 3])
    assert not agrees(3, [3])


def test_every_published_decimal_is_stored_as_printed():
    for name, entry in PUBLISHED.items():
        for key, value in entry["values"].items():
            for v in value if isinstance(value, list) else [value]:
                assert not isinstance(v, float), f"{name}.{key} = {v!r}: a float, not the printed Decimal"


def test_comparison_marks_agreement_and_disagreement_and_how():
    table = comparison(
        [("steps", 9, 9), ("pfw", 2, 3), ("scur", Decimal("0.75"), 0.75), ("pct", [Decimal("100.0"), Decimal("30.8")], [100.0, 30.77])]
    )
    frame = table.to_frame()
    assert list(frame["agrees"]) == ["yes", "no", "yes", "yes"]
    assert list(frame["compared"]) == ["exactly", "exactly", "to 2 decimals, as printed", "to 1 decimal, as printed"]
    assert list(frame["ours"]) == ["9", "3", "0.75", "100.0, 30.8"]
    assert verdict(table) == "1 of 4 published numbers differ (pfw); 2 compared exactly and 2 at the decimals the article prints"


def test_all_agree_verdict_says_what_was_compared():
    assert verdict(comparison([("a", 1, 1), ("b", [1, 2], (1, 2))])) == "all 2 published numbers agree: 2 compared exactly"
    mixed = comparison([("a", 9, 9), ("s", Decimal("0.50"), 0.5)])
    assert verdict(mixed) == "all 2 published numbers agree: 1 compared exactly and 1 at the 2 decimals the article prints"
    assert "reproduced exactly" not in verdict(mixed)


def test_a_single_differing_number_is_named():
    assert verdict(comparison([("scur", Decimal("0.75"), 0.71)])) == (
        "the published number differs (scur), compared at the 2 decimals the article prints"
    )


def test_comparison_with_other_parameters_claims_nothing():
    table = comparison([("steps", 9, 11)], applies=False)
    assert list(table.to_frame()["agrees"]) == ["n/a: other parameters"]
    assert "no numbers for these parameters" in verdict(table)


def test_comparison_displays_as_the_book_table():
    html = comparison([("steps", 9, 9)])._repr_html_()
    assert 'class="cvtable"' in html and "<th>Quantity</th>" in html and "True" not in html
    assert "yes" in repr(comparison([("done", True, True)]))


def test_compare_names_quantities_and_checks_parameters():
    run = cv.run_scenario("A")
    b, v = run.baseline, run.validity_aware
    ours = {"baseline_steps": b.steps_used, "baseline_scur": b.scur, "validity_aware_scur": v.scur, "baseline_completed": b.completed}
    table = compare("A", ours, {"depth": 4, "change_tick": 1})
    assert isinstance(table, Comparison)
    assert list(table.to_frame()["quantity"]) == ["baseline steps", "baseline SCUR", "validity-aware SCUR", "baseline completed"]
    assert table.differ == []
    assert verdict(table) == "all 4 published numbers agree: 2 compared exactly and 2 at the 2 decimals the article prints"
    other = compare("A", ours, {"depth": 6, "change_tick": 1})
    assert not other.applies


def test_compare_refuses_a_quantity_the_article_did_not_publish():
    with pytest.raises(ParameterError, match="A published no 'speed'"):
        compare("A", {"speed": 1})


def test_combined_prefixes_each_part_and_applies_only_if_all_do():
    a = comparison([("steps", 7, 7)])
    b = comparison([("steps", 3, 4)], applies=False)
    both = cv.published.combined({"E1": a, "E2": b})
    assert list(both.to_frame()["quantity"]) == ["E1: steps", "E2: steps"]
    assert not both.applies
    assert cv.published.combined({"E1": a}).verdict() == "the published number agrees, compared exactly"


def test_verdict_needs_a_comparison():
    with pytest.raises(ParameterError, match="needs a Comparison"):
        verdict({"agrees": ["yes"]})


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


@pytest.mark.parametrize(
    "experiment, scenario",
    [("C", "C"), ("A", "A"), ("E1", "E1"), ("E2", "E2")],
)
def test_reference_agrees_with_the_library_at_published_parameters(experiment, scenario):
    """At the published parameters every published number of the scenario is ours too."""
    run = cv.run_scenario(scenario)
    b, v = run.baseline, run.validity_aware
    measured = {
        "baseline_steps": b.steps_used, "validity_aware_steps": v.steps_used, "overhead": run.overhead,
        "baseline_pfw": b.pre_failure_work, "validity_aware_pfw": v.pre_failure_work,
        "baseline_replans": b.replans, "validity_aware_replans": v.replans,
        "baseline_scur": b.scur, "validity_aware_scur": v.scur,
        "baseline_completed": b.completed, "validity_aware_completed": v.completed,
        "validity_aware_verifications": v.verifications,
    }
    table = compare(experiment, {k: measured[k] for k in published(experiment)})
    assert table.differ == [], verdict(table)
