"""Bad input gets a clear cvlib error naming the bad value and what was expected.

Covers the issue's list (cycle, unknown fact in an event, unknown event kind,
depth < 1, negative budget, change tick < 0) and every wrong type papermill can
hand a parameter (``-r depth 6`` gives "6", ``-p depth 6.0`` gives 6.0, YAML
gives True, None or a list), for named scenarios and for the generators.
"""

from __future__ import annotations

import numpy as np
import pytest

import cvlib as cv
from cvlib.core.errors import CvlibError, CycleError, ParameterError, UnknownFactError
from cvlib.core.events import Event, EventKind
from cvlib.core.graph import PlanGraph, Step, StepKind
from cvlib.core.world import World


def assert_clear(err: pytest.ExceptionInfo, *fragments: str) -> None:
    message = str(err.value)
    assert isinstance(err.value, CvlibError)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from the error message {message!r}"


# -- the list ------------------------------------------------------------------------------------


def test_cycle():
    steps = [
        Step("S0", StepKind.PLAN, frozenset({"F1"}), ("S2",)),
        Step("S1", StepKind.DECISION, predecessors=("S0",)),
        Step("S2", StepKind.ACTION, predecessors=("S1",)),
    ]
    with pytest.raises(CycleError) as err:
        PlanGraph(steps)
    assert_clear(err, "cycle", "S0", "S1", "S2")


def test_unknown_fact_in_an_event():
    with pytest.raises(UnknownFactError) as err:
        World([cv.Fact("F1", 420)], [Event(1, "F2", EventKind.REPLACE, new_value=610)])
    assert_clear(err, "'F2'", "tick 1", "known facts: F1")


@pytest.mark.parametrize("kind", ["vanish", "Replace", "", None, 3])
def test_unknown_event_kind(kind):
    with pytest.raises(ParameterError) as err:
        Event(0, "F1", kind)  # type: ignore[arg-type]
    assert_clear(err, f"unknown event kind {kind!r}", "'F1'", "expected one of replace, ambiguous")


def test_ambiguous_event_must_say_whether_the_change_is_real():
    with pytest.raises(ParameterError) as err:
        Event(0, "F1", EventKind.AMBIGUOUS, ground_truth_changed="yes")
    assert_clear(err, "'yes'", "ground_truth_changed=true or false")


@pytest.mark.parametrize("scenario", ["C", "A", "D1", "D2", "E1", "E2"])
@pytest.mark.parametrize("depth", [0, -3])
def test_depth_below_1(scenario, depth):
    with pytest.raises(ParameterError) as err:
        cv.run_scenario(scenario, depth=depth)
    assert_clear(err, "depth", ">= 1", f"got {depth}")


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: cv.chain(0), "depth"),
        (lambda: cv.branching(0), "depth"),
        (lambda: cv.branching(3, branching_factor=0), "branching_factor"),
        (lambda: cv.branching(3, merge_factor=0), "merge_factor"),
        (lambda: cv.multi_branch(0, 2, 2), "pre_merge_depth"),
        (lambda: cv.multi_branch(2, 0, 2), "num_branches"),
        (lambda: cv.multi_branch(2, 2, 0), "post_merge_depth"),
    ],
)
def test_generator_sizes_below_1(call, name):
    with pytest.raises(ParameterError) as err:
        call()
    assert_clear(err, f"{name} must be >= 1, got 0")


@pytest.mark.parametrize("scenario", list(cv.SCENARIOS))
def test_negative_budget(scenario):
    with pytest.raises(ParameterError) as err:
        cv.run_scenario(scenario, budget=-1)
    assert_clear(err, "budget must be >= 0, got -1")


@pytest.mark.parametrize("runner", [cv.run_baseline, cv.run_validity_aware])
def test_negative_budget_to_an_executor(runner):
    with pytest.raises(ParameterError) as err:
        runner(cv.chain(3), World([cv.Fact("F1")]), "F1", budget=-5)
    assert_clear(err, "budget must be >= 0, got -5")


@pytest.mark.parametrize("scenario", ["A", "D1", "D2", "D3", "E1", "E2"])
def test_change_tick_below_0(scenario):
    with pytest.raises(ParameterError) as err:
        cv.run_scenario(scenario, change_tick=-1)
    assert_clear(err, "change_tick must be >= 0, got -1")


def test_event_tick_below_0():
    with pytest.raises(ParameterError) as err:
        Event(-2, "F1", EventKind.REPLACE)
    assert_clear(err, "event tick must be >= 0, got -2")


# -- wrong types, as papermill would pass them ------------------------------------------------------------------

WRONG_TYPES = [("6", "str '6'"), (6.0, "float 6.0"), (True, "bool True"), (None, "NoneType None"), ([6], "list [6]")]
WRONG_IDS = ["str", "float", "bool", "None", "list"]

INT_PARAMS = [
    (name, p.name)
    for name, definition in cv.SCENARIOS.items()
    for p in definition.params
    if p.kind == "int"
]


@pytest.mark.parametrize(("value", "shown"), WRONG_TYPES, ids=WRONG_IDS)
@pytest.mark.parametrize(("scenario", "param"), INT_PARAMS, ids=[f"{s}-{p}" for s, p in INT_PARAMS])
def test_run_scenario_wrong_type(scenario, param, value, shown):
    with pytest.raises(ParameterError) as err:
        cv.run_scenario(scenario, **{param: value})
    assert_clear(err, f"{param} must be an integer", f"got {shown}")


@pytest.mark.parametrize(("value", "shown"), [v for v in WRONG_TYPES if v[0] is not None], ids=[i for i in WRONG_IDS if i != "None"])
def test_run_scenario_wrong_budget_type(value, shown):
    # None is a valid budget (compute it), everything else must be an integer
    with pytest.raises(ParameterError) as err:
        cv.run_scenario("A", budget=value)
    assert_clear(err, "budget must be an integer", f"got {shown}")


GENERATOR_PARAMS = [
    (cv.chain, {"depth": 4}, "depth"),
    (cv.branching, {"depth": 4, "branching_factor": 2, "merge_factor": 2, "seed": 0}, "depth"),
    (cv.branching, {"depth": 4, "branching_factor": 2, "merge_factor": 2, "seed": 0}, "branching_factor"),
    (cv.branching, {"depth": 4, "branching_factor": 2, "merge_factor": 2, "seed": 0}, "merge_factor"),
    (cv.branching, {"depth": 4, "branching_factor": 2, "merge_factor": 2, "seed": 0}, "seed"),
    (cv.multi_branch, {"pre_merge_depth": 2, "num_branches": 2, "post_merge_depth": 2}, "pre_merge_depth"),
    (cv.multi_branch, {"pre_merge_depth": 2, "num_branches": 2, "post_merge_depth": 2}, "num_branches"),
    (cv.multi_branch, {"pre_merge_depth": 2, "num_branches": 2, "post_merge_depth": 2}, "post_merge_depth"),
    (cv.branch_facts, {"num_branches": 2}, "num_branches"),
]


@pytest.mark.parametrize(("value", "shown"), WRONG_TYPES, ids=WRONG_IDS)
@pytest.mark.parametrize(
    ("generator", "params", "param"), GENERATOR_PARAMS, ids=[f"{g.__name__}-{p}" for g, _, p in GENERATOR_PARAMS]
)
def test_generator_wrong_type(generator, params, param, value, shown):
    with pytest.raises(ParameterError) as err:
        generator(**{**params, param: value})
    assert_clear(err, f"{param} must be an integer", f"got {shown}")


@pytest.mark.parametrize("value", [["F1"], "", 7, None])
@pytest.mark.parametrize("generator", [cv.chain, cv.branching])
def test_generator_root_fact_must_be_a_name(generator, value):
    with pytest.raises(ParameterError) as err:
        generator(3, root_fact=value)
    assert_clear(err, "root_fact must be a non-empty string", repr(value))


def test_numpy_integers_are_integers():
    """Not an error: an ``np.arange`` value is a whole number, taken as a plain int."""
    run = cv.run_scenario("D1", depth=np.int64(5))
    assert run.baseline.pre_failure_work == 4
    assert type(run.to_dict()["params"]["depth"]) is int
    assert len(cv.chain(np.int32(3))) == 3
    with pytest.raises(ParameterError) as err:
        cv.run_scenario("D1", depth=np.float64(5.0))
    assert_clear(err, "depth must be an integer", "float64")


@pytest.mark.parametrize("name", [None, 3, ["A"], "a", ""])
def test_unknown_scenario_name(name):
    with pytest.raises(ParameterError) as err:
        cv.run_scenario(name)  # type: ignore[arg-type]
    assert_clear(err, f"unknown scenario {name!r}", "expected one of C, A, D1, D2, D3, E1, E2")


def test_unknown_parameter_name():
    with pytest.raises(ParameterError) as err:
        cv.run_scenario("D3", branches=4)
    assert_clear(err, "no parameter 'branches'", "num_branches (default 8)")


# -- malformed facts and worlds ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "shown"), [("3", "str '3'"), (2.5, "float 2.5"), (True, "bool True")])
def test_fact_horizon_must_be_an_integer_tick(value, shown):
    with pytest.raises(ParameterError) as err:
        cv.Fact("F1", 420, valid_until=value)
    assert_clear(err, "'F1'", "valid_until must be an integer tick or None", f"got {shown}")


@pytest.mark.parametrize("fact_id", ["", 3, None])
def test_fact_id_must_be_a_name(fact_id):
    with pytest.raises(ParameterError) as err:
        cv.Fact(fact_id)  # type: ignore[arg-type]
    assert_clear(err, "fact id must be a non-empty string", repr(fact_id))


def test_fact_state_must_be_a_validity_state():
    with pytest.raises(ParameterError) as err:
        cv.Fact("F1", state="old")  # type: ignore[arg-type]
    assert_clear(err, "unknown state 'old'", "ACTIVE, STALE, SUPERSEDED, UNKNOWN")
    assert cv.Fact("F1", state="STALE").state is cv.ValidityState.STALE  # type: ignore[arg-type]


def test_world_of_non_facts():
    with pytest.raises(ParameterError) as err:
        World([("F1", 420)])  # type: ignore[list-item]
    assert_clear(err, "Fact values", "tuple")


def test_world_with_non_event():
    with pytest.raises(ParameterError) as err:
        World([cv.Fact("F1")], [(0, "F1", "replace")])  # type: ignore[list-item]
    assert_clear(err, "Event values", "tuple")
