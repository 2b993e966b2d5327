"""Named scenarios: setups, running both executors, the JSON record, parameter errors."""

from __future__ import annotations

import json

import pytest

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.core.events import EventKind
from cvlib.core.facts import Fact

EXPECTED_PARAMS = {
    "C": {"depth": 5, "budget": None},
    "A": {"depth": 4, "change_tick": 1, "budget": None},
    "D1": {"depth": 5, "change_tick": 0, "budget": None},
    "D2": {"depth": 8, "branching_factor": 2, "merge_factor": 2, "seed": 0, "change_tick": 0, "budget": None},
    "D3": {"pre_merge_depth": 6, "num_branches": 8, "post_merge_depth": 2, "change_tick": 0, "budget": None},
    "E1": {"depth": 3, "change_tick": 1, "budget": None},
    "E2": {"depth": 3, "change_tick": 1, "budget": None},
}


def test_the_seven_named_scenarios_exist():
    assert cv.scenario_names() == ["C", "A", "D1", "D2", "D3", "E1", "E2"]


@pytest.mark.parametrize("name", list(EXPECTED_PARAMS))
def test_parameter_names_and_defaults(name):
    assert cv.get_scenario(name).defaults() == EXPECTED_PARAMS[name]


@pytest.mark.parametrize("name", list(EXPECTED_PARAMS))
def test_run_gives_both_executors_and_records_full_params(name):
    run = cv.run_scenario(name)
    assert run.scenario == name
    assert run.baseline.executor == cv.BASELINE
    assert run.validity_aware.executor == cv.VALIDITY_AWARE
    assert dict(run.params) == EXPECTED_PARAMS[name]
    assert run.baseline.budget == run.validity_aware.budget


@pytest.mark.parametrize("name", list(EXPECTED_PARAMS))
def test_to_dict_is_json_safe_and_complete(name):
    record = cv.run_scenario(name).to_dict()
    round_trip = json.loads(json.dumps(record, allow_nan=False))
    assert round_trip == record
    assert round_trip["scenario"] == name
    assert round_trip["params"] == EXPECTED_PARAMS[name]
    assert set(round_trip) >= {"scenario", "params", "structure", "baseline", "validity_aware"}
    assert round_trip["baseline"]["executor"] == "baseline"
    assert round_trip["validity_aware"]["scur"] == cv.run_scenario(name).validity_aware.scur


def test_to_dict_records_overridden_params():
    record = cv.run_scenario("D2", depth=5, branching_factor=3, seed=7, budget=40).to_dict()
    assert record["params"] == {
        "depth": 5, "branching_factor": 3, "merge_factor": 2, "seed": 7, "change_tick": 0, "budget": 40,
    }
    assert record["baseline"]["budget"] == 40


def test_parameters_change_the_result():
    assert cv.run_scenario("D1", depth=6).baseline.pre_failure_work == 5
    assert cv.run_scenario("A", change_tick=3).baseline.pre_failure_work == 0
    assert cv.run_scenario("A", budget=7).baseline.completed is False


def test_params_of_a_run_are_read_only():
    run = cv.run_scenario("A")
    with pytest.raises(TypeError):
        run.params["depth"] = 9  # type: ignore[index]


def test_setups_describe_the_published_worlds():
    a = cv.setup_scenario("A")
    assert a.facts == (Fact("F1", 420),)
    assert [(e.tick, e.fact_id, e.kind, e.new_value) for e in a.events] == [(1, "F1", EventKind.REPLACE, 610)]
    assert (a.at_risk, a.budget) == ("F1", 9)
    assert cv.setup_scenario("C").events == ()
    e1, e2 = cv.setup_scenario("E1").events[0], cv.setup_scenario("E2").events[0]
    assert (e1.kind, e1.ground_truth_changed) == (EventKind.AMBIGUOUS, True)
    assert (e2.kind, e2.ground_truth_changed) == (EventKind.AMBIGUOUS, False)
    d3 = cv.setup_scenario("D3", num_branches=3)
    assert [f.id for f in d3.facts] == ["F1", "F2", "F3"]
    assert [e.fact_id for e in d3.events] == ["F1"]


def test_both_executors_get_fresh_identical_worlds():
    setup = cv.setup_scenario("A")
    w1, w2 = setup.new_world(), setup.new_world()
    assert w1 is not w2
    assert w1.facts == w2.facts and w1.events == w2.events
    run = setup.run()
    # running did not change the setup: a third world starts where the first two did
    w3 = setup.new_world()
    assert w3.facts == w1.facts and w3.events == w1.events and w3.tick == 0
    assert setup.run() == run


def test_structure_summary():
    s = cv.setup_scenario("D3", num_branches=4).structure()
    assert (s.total_steps, s.closure_size, s.invalidation_depth, s.predicted_baseline_pfw) == (26, 8, 8, 7)
    assert s.exposed_pct == pytest.approx(800 / 26)


def test_overhead_is_validity_minus_baseline_steps():
    run = cv.run_scenario("E2")
    assert run.overhead == 1
    assert cv.run_scenario("A").overhead == -3


def test_to_frame_has_one_row_per_executor():
    frame = cv.run_scenario("A").to_frame()
    assert list(frame.index) == ["baseline", "validity_aware"]
    assert frame.loc["baseline", "steps_used"] == 9


# -- errors -------------------------------------------------------------------------------------------


def test_unknown_scenario_lists_the_valid_ones():
    with pytest.raises(ParameterError) as err:
        cv.run_scenario("B")
    message = str(err.value)
    assert "'B'" in message
    for name in cv.scenario_names():
        assert name in message


def test_unknown_parameter_lists_the_valid_ones_with_defaults():
    with pytest.raises(ParameterError) as err:
        cv.run_scenario("A", dpeth=6)
    message = str(err.value)
    assert "'dpeth'" in message
    assert "depth (default 4)" in message and "change_tick (default 1)" in message and "budget (default None)" in message


def test_parameter_of_another_scenario_is_unknown():
    with pytest.raises(ParameterError, match=r"'num_branches'.*valid parameters: depth"):
        cv.run_scenario("C", num_branches=2)


@pytest.mark.parametrize(
    ("name", "params", "pattern"),
    [
        ("A", {"depth": 0}, r"depth must be >= 1, got 0"),
        ("A", {"change_tick": -1}, r"change_tick must be >= 0, got -1"),
        ("A", {"budget": -3}, r"budget must be >= 0, got -3"),
        ("D2", {"branching_factor": 0}, r"branching_factor must be >= 1, got 0"),
        ("D3", {"num_branches": 0}, r"num_branches must be >= 1, got 0"),
    ],
)
def test_out_of_range_parameters(name, params, pattern):
    with pytest.raises(ParameterError, match=pattern):
        cv.run_scenario(name, **params)


def test_cli_parse_of_each_param_kind():
    a = cv.get_scenario("A")
    depth, _, budget = a.params
    assert depth.parse(" 6 ") == 6
    assert budget.parse("none") is None and budget.parse("12") == 12
    with pytest.raises(ParameterError, match=r"depth must be an integer, got 'six'"):
        depth.parse("six")


# -- hand-built setups are checked when built, not deep inside a run ---------------------------------------


def _setup(**overrides):
    from cvlib.core.events import Event
    from cvlib.core.graph import PlanGraph, Step, StepKind

    fields = dict(
        name="hand-built",
        plan=PlanGraph([Step("S0", StepKind.PLAN, frozenset({"F1", "F2"})), Step("S1", StepKind.ACTION, predecessors=("S0",))]),
        facts=(Fact("F1", 1), Fact("F2", 2)),
        events=(Event(0, "F1", EventKind.AMBIGUOUS, ground_truth_changed=False),),
        at_risk="F1",
        budget=5,
    )
    fields.update(overrides)
    return cv.ScenarioSetup(**fields)


def test_hand_built_setup_runs():
    run = _setup().run()
    assert (run.validity_aware.verifications, run.validity_aware.steps_used) == (1, 3)


def test_setup_whose_plan_needs_an_undefined_fact_is_an_error():
    with pytest.raises(cv.UnknownFactError, match=r"'hand-built'.*requires fact\(s\) 'F2'.*defined: F1"):
        _setup(facts=(Fact("F1", 1),))


def test_setup_with_an_unknown_fact_at_risk_is_an_error():
    with pytest.raises(cv.UnknownFactError, match=r"fact at risk 'F3'.*F1, F2"):
        _setup(at_risk="F3")


def test_setup_with_a_negative_budget_is_an_error():
    with pytest.raises(ParameterError, match=r"budget must be >= 0, got -1"):
        _setup(budget=-1)


def test_setup_with_an_event_on_an_unknown_fact_is_an_error():
    from cvlib.core.events import Event

    with pytest.raises(cv.UnknownFactError, match=r"'F9'.*known facts: F1, F2"):
        _setup(events=(Event(0, "F9", EventKind.REPLACE, new_value=0),))
