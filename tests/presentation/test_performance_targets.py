"""The Performance chapter's table of ratio targets, read from a record's verdicts."""

from __future__ import annotations

from cvlib.presentation import performance as perf


def _record(ratio: float | None, met: bool | None) -> dict:
    why = "at least" if ratio is not None else "not measured, busy or not idle"
    return {"verdicts": {"random_family_vs_reference": {"target": 10.0, "ratio": ratio, "met": met, "why": why}}}


def test_a_ratio_just_short_of_its_target_does_not_read_as_reaching_it() -> None:
    row = perf.target_table(_record(9.951, False)).iloc[0]
    assert row["measured"] == "9.95×" and row["verdict"] == "missed" and row["wanted"] == "at least 10×"


def test_an_unmeasured_target_says_why_and_gives_no_verdict() -> None:
    row = perf.target_table(_record(None, None)).iloc[0]
    assert row["measured"] == "not measured, busy or not idle" and row["verdict"] == ""


def test_a_record_without_verdicts_has_no_table() -> None:
    assert perf.target_table({}) is None
