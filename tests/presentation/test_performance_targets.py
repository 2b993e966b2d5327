"""The Performance chapter's targets in one table, and its breakdowns in parts that add up."""

from __future__ import annotations

import pytest

from cvlib.presentation import performance as perf
from cvlib.presentation.chapters import performance as chapter


def _record(ratio: float | None, met: bool | None) -> dict:
    why = "at least" if ratio is not None else "not measured, busy or not idle"
    return {"verdicts": {"random_family_vs_reference": {"target": 10.0, "ratio": ratio, "met": met, "why": why}}}


def test_a_ratio_just_short_of_its_target_does_not_read_as_reaching_it() -> None:
    row = chapter.target_table(_record(9.951, False)).iloc[0]
    assert row["measured"] == "9.95×" and row["verdict"] == "missed" and row["wanted"] == "at least 10×"


def test_an_unmeasured_target_says_why_and_gives_no_verdict() -> None:
    row = chapter.target_table(_record(None, None)).iloc[0]
    assert row["measured"] == "not measured, busy or not idle" and row["verdict"] == ""


def test_a_record_without_targets_has_no_table() -> None:
    assert chapter.target_table({}) is None


def _start(cpu_s: float, target_s: float | None, met: bool | None, busy: bool = False) -> dict:
    return {"cpu_median_s": cpu_s, "target_s": target_s, "target_met": met, "busy": busy}


def test_the_command_lines_start_target_is_a_row_met_or_missed_and_counted() -> None:
    record = {
        "machine": {"cores": 2},
        "startup": {"cold_start": _start(0.08, 0.15, True), "cli_cold_start": _start(0.165, 0.15, False)},
    }
    table = chapter.target_table(record)
    assert list(table.index) == [
        "cold start, import cvlib; cvlib.run_scenario('A'), CPU time",
        "the command line's start, cvlib run A, CPU time",
    ]
    assert table.iloc[1].tolist() == ["at most 0.15 s", "0.165 s", "missed"]
    values = chapter._target_values(record)
    assert values == {
        "perf_targets": 2,
        "perf_targets_judged": 2,
        "perf_targets_met": 1,
        "perf_targets_missed": "the command line's start, cvlib run A, CPU time",
    }
    record["startup"]["cli_cold_start"]["busy"] = True
    assert chapter.target_table(record).iloc[1].tolist() == ["at most 0.15 s", perf.BUSY_TEXT, ""]
    assert chapter._target_values(record)["perf_targets_judged"] == 1


def _breakdown(whole_ms: float, phases: dict[str, float]) -> dict:
    rows = [
        {"phase": k, "what": k, "cpu_median_s": v / 1000, "part_of": None, "share_of_whole": v / whole_ms}
        for k, v in phases.items()
    ]
    rest = whole_ms - sum(phases.values())
    rows.append(
        {
            "phase": "remainder",
            "what": "rest",
            "cpu_median_s": rest / 1000,
            "part_of": None,
            "share_of_whole": rest / whole_ms,
        }
    )
    return {"breakdowns": {"chain": {"steps": 10, "runs": 5, "whole_cpu_median_s": whole_ms / 1000, "phases": rows}}}


def test_a_breakdown_whose_phases_fit_in_the_whole_shows_the_rest_and_adds_up() -> None:
    parts = chapter.breakdown_parts(_breakdown(30.0, {"plans": 10.0, "setup": 10.0, "executors": 9.0}), "chain")
    assert [p.phase for p in parts] == ["plans", "setup", "executors", "remainder", "total"]
    assert [p.ms for p in parts] == [10.0, 10.0, 9.0, 1.0, 30.0]
    assert [p.share for p in parts] == [33.3, 33.3, 30.0, 3.4, 100.0]
    assert sum(p.share for p in parts[:-1]) == pytest.approx(100.0)
    assert parts[-1].name == "the whole job"


def test_phases_that_overrun_the_whole_are_shares_of_their_sum_and_the_overrun_is_named() -> None:
    parts = chapter.breakdown_parts(_breakdown(187.0, {"plans": 196.1, "setup": 0.3, "executors": 0.2}), "chain")
    assert [p.phase for p in parts] == ["plans", "setup", "executors", "total"]  # no negative rest
    assert parts[-1].ms == 196.6 and parts[-1].name == "the phases together"
    assert "took 187.0 ms, 9.6 ms less" in parts[-1].what
    assert sum(p.share for p in parts[:-1]) == pytest.approx(100.0) and all(p.share >= 0 for p in parts)
    balance = chapter._balance(parts, 187.0)
    assert "add up to 9.6 ms more" in balance and "since building plans is nearly all of the job" in balance
    fits = chapter.breakdown_parts(_breakdown(30.0, {"plans": 10.0, "setup": 10.0, "executors": 9.0}), "chain")
    assert chapter._balance(fits, 30.0) == "the calls between phases are the remaining 3.4 %"


def test_shares_are_rounded_to_add_up_to_exactly_a_hundred() -> None:
    assert sum(chapter._tenths_adding_to_1000([1.0, 1.0, 1.0], 3.0)) == 1000
    assert chapter._tenths_adding_to_1000([2.0, 1.0], 3.0) == [667, 333]
