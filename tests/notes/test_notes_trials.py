"""Published trial counts and Wilson intervals (cvlib/notes/trials.py, data/notes_trials/published_counts.csv).

Each published number of the source gets its own named test.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cvlib.core.errors import ParameterError
from cvlib.core.intervals import proportion_interval as wilson  # the one interval the notes use
from cvlib.notes import NotesError
from cvlib.notes.trials import expected_stale_edits, implied_count, load_trials, policy_rates, with_intervals

COUNTS = Path(__file__).resolve().parents[2] / "data" / "notes_trials" / "published_counts.csv"


@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    return load_trials(COUNTS)


def count(trials, study, model, arm):
    row = trials[(trials.table == "arms") & (trials.study == study) & (trials.model == model) & (trials.arm == arm)]
    assert len(row) == 1
    return int(row["count"].iloc[0]), int(row["total"].iloc[0]), row["status"].iloc[0]


@pytest.mark.parametrize("model", ["GLM 5.2", "Sonnet 4.6"])
def test_stale_labelled_113_of_120_both_models(trials, model):
    assert count(trials, "ungated", model, "stale_labelled") == (113, 120, "published")


def test_verify_first_glm_22_of_60_tasks(trials):
    assert count(trials, "ungated", "GLM 5.2", "stale_verify") == (22, 60, "published")


def test_verify_first_sonnet_5_of_60_tasks(trials):
    assert count(trials, "ungated", "Sonnet 4.6", "stale_verify") == (5, 60, "published")


@pytest.mark.parametrize("model", ["GLM 5.2", "Sonnet 4.6"])
def test_control_no_edit_without_a_note(trials, model):
    assert count(trials, "ungated", model, "control") == (0, 120, "published")


def test_true_note_glm_96_7_percent_implies_116(trials):
    assert count(trials, "ungated", "GLM 5.2", "true_note") == (116, 120, "implied")
    assert implied_count(96.7, 120) == 116


def test_true_note_sonnet_95_0_percent_implies_114(trials):
    assert count(trials, "ungated", "Sonnet 4.6", "true_note") == (114, 120, "implied")
    assert implied_count(95.0, 120) == 114


def test_gated_true_note_115_of_120_is_95_8_percent(trials):
    assert count(trials, "gated", "Sonnet 4.6", "true_note") == (115, 120, "published")
    assert round(100 * 115 / 120, 1) == 95.8


def test_gated_stale_arm_0_of_120(trials):
    assert count(trials, "gated", "Sonnet 4.6", "stale") == (0, 120, "published")


def test_more_than_1300_trials_in_all(trials):
    runs = trials[trials.table == "run_size"]
    assert runs["count"].tolist() == [480, 480, 360]  # 4 arms x 120 per model, and the gated re-run
    assert runs["count"].sum() >= 1300


def test_ungated_arms_are_120_trials_each(trials):
    arms = trials[(trials.table == "arms") & (trials.study == "ungated") & (trials.unit == "trials")]
    assert set(arms["total"]) == {120}
    for model in ("GLM 5.2", "Sonnet 4.6"):
        assert 4 * 120 == trials[(trials.table == "run_size") & (trials.study == "ungated") & (trials.model == model)]["count"].item()


@pytest.mark.parametrize(("model", "total_bad"), [("GLM 5.2", 22), ("Sonnet 4.6", 5)])
def test_rule_kind_breakdown_adds_up(trials, model, total_bad):
    kinds = trials[(trials.table == "rule_kind") & (trials.model == model)]
    assert kinds["total"].sum() == 60
    assert kinds["count"].sum() == total_bad
    assert len(kinds) == 7


def test_rule_kind_api_contract_26_tasks(trials):
    api = trials[(trials.table == "rule_kind") & (trials.rule_kind == "API contract")].set_index("model")
    assert api.loc["GLM 5.2", "total"] == 26 and api.loc["GLM 5.2", "count"] == 10 and api.loc["Sonnet 4.6", "count"] == 1


def test_implied_counts_match_their_percentages(trials):
    implied = trials[trials.status == "implied"]
    for row in implied.itertuples():
        assert implied_count(row.published_percent, row.total) == row.count


def test_wilson_known_values():
    lo, hi = wilson(0, 120)
    assert lo == 0.0 and hi == pytest.approx(0.0310, abs=1e-4)
    lo, hi = wilson(113, 120)
    assert (round(lo, 3), round(hi, 3)) == (0.884, 0.971)
    lo, hi = wilson(5, 60)
    assert lo < 5 / 60 < hi


def test_wilson_refuses_bad_counts():
    for args in ((5, 4), (-1, 10), (1, 0), (1.5, 10)):
        with pytest.raises(ParameterError):  # one contract for every layer (cvlib.core.intervals)
            wilson(*args)
    with pytest.raises(ParameterError):
        wilson(1, 10, confidence=1.5)


def test_with_intervals_brackets_every_share(trials):
    table = with_intervals(trials)
    assert ((table.low <= table.share) & (table.share <= table.high)).all()


def test_policy_rates_bound_verify_per_trial(trials):
    rates = {r.model: r for r in policy_rates(trials)}
    assert rates["GLM 5.2"].verify_low == pytest.approx(22 / 120)
    assert rates["GLM 5.2"].verify_high == pytest.approx(22 / 60)
    assert rates["Sonnet 4.6"].label == pytest.approx(113 / 120)


def test_expected_stale_edits_gate_is_zero_and_pays_in_withheld_notes(trials):
    steps = pd.DataFrame([dict(project="p", notes=1000, steps=10, CHANGED=100, RENAMED=10, AMBIGUOUS=0, MISSING=5, UNPARSABLE=0)])
    out = expected_stale_edits(steps, policy_rates(trials), wrong_share=0.5).set_index(["model", "policy"])
    assert out.loc[("GLM 5.2", "dependency-aware gate"), "stale_edits"] == 0.0
    assert out.loc[("GLM 5.2", "dependency-aware gate"), "true_withheld"] == pytest.approx((10 + 50) * 100 / 1000)
    assert out.loc[("GLM 5.2", "symbol-only gate"), "stale_edits"] == 0.0  # no dependency changes in this table
    assert out.loc[("GLM 5.2", "warn with a label"), "stale_edits"] == pytest.approx(5.0 * 113 / 120)
    with pytest.raises(ParameterError):
        expected_stale_edits(steps, policy_rates(trials), wrong_share=2)


def test_bad_counts_file(tmp_path):
    with pytest.raises(NotesError, match="does not exist"):
        load_trials(tmp_path / "none.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text(COUNTS.read_text().replace(",113,120,", ",130,120,", 1))
    with pytest.raises(NotesError, match="130 of 120"):
        load_trials(bad)


def test_symbol_only_gate_shows_notes_whose_dependencies_changed(trials):
    steps = pd.DataFrame([dict(project="p", notes=1000, steps=10, CHANGED=100, DEPENDENCY_CHANGED=40, RENAMED=10,
                               AMBIGUOUS=0, MISSING=5, UNPARSABLE=0)])
    out = expected_stale_edits(steps, policy_rates(trials), wrong_share=0.5).set_index(["model", "policy"])
    # 40 dependency changes, half of them wrong, shown as fresh and acted on at the true-note rate (116 of 120)
    assert out.loc[("GLM 5.2", "symbol-only gate"), "stale_edits"] == pytest.approx(20 * 100 / 1000 * 116 / 120)
    assert out.loc[("GLM 5.2", "dependency-aware gate"), "stale_edits"] == 0.0
    assert out.loc[("GLM 5.2", "dependency-aware gate"), "true_withheld"] == pytest.approx((10 + 70) * 100 / 1000)
    assert out.loc[("GLM 5.2", "symbol-only gate"), "true_withheld"] == pytest.approx((10 + 50) * 100 / 1000)
    assert out.loc[("GLM 5.2", "warn with a label"), "stale_edits"] == pytest.approx(7.0 * 113 / 120)
