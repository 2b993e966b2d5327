"""The ambiguity and control chapters' modules: what they glue is what the runs measured."""

from __future__ import annotations

import cvlib as cv
from cvlib.presentation.chapters import ambiguity, control


def test_ambiguity_values_name_each_scenario() -> None:
    e1 = cv.run_scenario("E1", depth=3, change_tick=1)
    e2 = cv.run_scenario("E2", depth=3, change_tick=1)
    values = ambiguity.values({"E1": e1, "E2": e2})
    assert values["E1_verifications"] == e1.validity_aware.verifications
    assert values["E2_validity_scur"] == (e2.validity_aware.scur, "share")
    assert len(values) == 12
    assert ambiguity.comparison(e1, e2, 3, 1).verdict()
    ex = ambiguity.exercise(3, 1)
    assert (
        ex["E_ex_tick"] == 2
        and ex["E_ex_e2_baseline"] == cv.run_scenario("E2", depth=3, change_tick=2).baseline.steps_used
    )
    assert ambiguity.exercise(3, 2)["E_ex_tick"] == 2  # never past the last step


def test_control_values_and_the_longer_control() -> None:
    setup = cv.setup_scenario("C", depth=4)
    run = setup.run(policies=["baseline", "validity_aware", "timestamp_only"])
    values = control.values(setup, run, 4)
    assert values["C_overhead"] == run.overhead and values["C_budget"] == setup.budget
    assert values["C_timestamp_steps"] == run.result("timestamp_only").steps_used
    ex = control.exercise(4)
    assert ex["C_ex_depth"] == 12 and ex["C_ex_overhead"] == cv.run_scenario("C", depth=12).overhead
    assert control.comparison(run, 4).verdict()
