"""The value-change and law-at-scale chapters' modules: what they glue is what was run or recorded."""

from __future__ import annotations

import cvlib as cv
from cvlib.presentation.chapters import law_at_scale, value_change
from cvlib.presentation.formatting import fmt


def test_value_change_texts_are_the_runs_numbers() -> None:
    setup = cv.setup_scenario("A", depth=4, change_tick=1)
    run = setup.run(policies=["baseline", "validity_aware", "timestamp_only"])
    texts = value_change.texts(setup, run, 4, 1)
    assert texts["A_baseline_pfw"] == str(run.baseline.pre_failure_work)
    assert texts["A_steps_saved"] == str(run.baseline.steps_used - run.validity_aware.steps_used)
    assert texts["A_baseline_scur"] == fmt(run.baseline.scur, "share")
    assert texts["A_validity_completed"] in ("completed", "did not complete")
    assert list(texts)[-2:] == ["A_baseline_completed", "A_validity_completed"]
    assert value_change.markers(setup, 1) == [(1, f"price ${setup.facts[0].value} → ${setup.events[0].new_value}")]
    ex = value_change.exercises(4, 1)
    later = cv.run_scenario("A", depth=4, change_tick=2)
    assert ex["A_ex1_tick"] == 2 and ex["A_ex1_pfw"] == later.baseline.pre_failure_work
    assert value_change.comparison(run, 4, 1).verdict()


def test_law_at_scale_writes_numbers_by_their_kind_and_text_as_it_is() -> None:
    texts = law_at_scale.texts(
        {"law_scale_big_minutes": 0.8216, "law_scale_plans": 12000, "law_scale_families": "layered"}
    )
    assert texts == {
        "law_scale_big_minutes": fmt(0.8216, "tenths"),
        "law_scale_plans": "12,000",
        "law_scale_families": "layered",
    }
