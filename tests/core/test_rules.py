"""ExecutionRules: validation, the default is the article, and the ruled engine reproduces it."""

from __future__ import annotations

import json

import pytest
from _strategies import fact_sets, plans, schedules
from hypothesis import given
from hypothesis import strategies as st

import cvlib as cv
from cvlib.core.errors import ParameterError
from cvlib.core.executors import run_baseline, run_validity_aware
from cvlib.core.rules import ORIGINAL, ExecutionRules, VerificationModel
from cvlib.core.world import World
from tests.reference_executor import reference_run


def test_default_rules_are_the_original():
    assert ExecutionRules().is_original
    assert ORIGINAL.recovery == "flat" and ORIGINAL.budget_rule == "original"
    assert not ExecutionRules(budget_rule="strict").is_original


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"recovery": "lazy"}, "recovery must be one of flat, redo_affected, subplan"),
        ({"budget_rule": "loose"}, "budget_rule must be one of original, strict"),
        ({"verify_policy": "sometimes"}, "verify_policy must be one of"),
        ({"checker": "oracle"}, "checker must be one of timestamp, dependency"),
        ({"prior_change": 1.5}, "prior_change must be in [0, 1]"),
        ({"prior_change": "0.5"}, "prior_change must be a probability"),
        ({"ttl": -1}, "ttl must be >= 0"),
        ({"ttl": 2.0}, "ttl must be an integer"),
        ({"ttl_refresh": "yes"}, "ttl_refresh must be true or false"),
        ({"verification": 0.1}, "verification must be a VerificationModel"),
    ],
)
def test_bad_rules_name_the_value(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        ExecutionRules(**kwargs)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"miss_rate": -0.1}, "miss_rate must be in"),
        ({"false_alarm_rate": 2}, "false_alarm_rate must be in"),
        ({"cost": -1}, "verification cost must be >= 0"),
        ({"seed": 1.5}, "verification seed must be an integer"),
    ],
)
def test_bad_verification_model(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment):
        VerificationModel(**kwargs)


def test_rules_of_the_wrong_type_are_refused():
    with pytest.raises(ParameterError, match="rules must be an ExecutionRules"):
        cv.run_scenario("A", rules={"recovery": "flat"})


def test_default_rules_leave_published_outputs_byte_identical():
    plain = json.dumps(cv.run_scenario("A").to_dict(), sort_keys=True)
    with_default = json.dumps(cv.run_scenario("A", rules=ExecutionRules()).to_dict(), sort_keys=True)
    assert plain == with_default
    assert "rules" not in cv.run_scenario("A").to_dict()


def test_non_default_rules_are_recorded():
    record = cv.run_scenario("A", rules=ExecutionRules(budget_rule="strict")).to_dict()
    assert record["rules"]["budget_rule"] == "strict"
    json.dumps(record)


@pytest.mark.parametrize("name", cv.scenario_names())
def test_the_step_by_step_rules_reproduce_every_named_scenario(name):
    setup = cv.setup_scenario(name)
    run = setup.run()
    b = reference_run("baseline", setup.plan, setup.new_world(), setup.at_risk, setup.budget)
    v = reference_run("validity_aware", setup.plan, setup.new_world(), setup.at_risk, setup.budget)
    assert (b, v) == (run.baseline, run.validity_aware)


@given(plans(), fact_sets(), schedules(), st.one_of(st.none(), st.integers(0, 25)), st.data())
def test_explicit_article_rules_are_the_default_world(plan, facts, events, budget, data):
    at_risk = data.draw(st.sampled_from(sorted(plan.facts)))
    for runner in (run_baseline, run_validity_aware):
        expected = runner(plan, World(facts, events), at_risk, budget)
        assert runner(plan, World(facts, events, rules=ORIGINAL), at_risk, budget) == expected
        assert runner(plan, World(facts, events), at_risk, budget, rules=ExecutionRules()) == expected


@given(plans(), fact_sets(), schedules(), st.data())
def test_strict_budget_never_completes_past_the_budget(plan, facts, events, data):
    at_risk = data.draw(st.sampled_from(sorted(plan.facts)))
    budget = data.draw(st.integers(0, 20))
    strict = ExecutionRules(budget_rule="strict")
    for runner in (run_baseline, run_validity_aware):
        original = runner(plan, World(facts, events), at_risk, budget)
        corrected = runner(plan, World(facts, events), at_risk, budget, rules=strict)
        assert not corrected.completed or corrected.steps_used <= budget
        # the corrected rule only ever takes completions away, and only those past the budget
        assert corrected.completed == (original.completed and original.steps_used <= budget)
        assert corrected.steps_used == original.steps_used


def test_strict_budget_changes_an_action_that_ends_past_the_budget():
    # C at budget 4: the action is the 5th step; the original rule still counts it.
    assert cv.run_scenario("C", budget=4).baseline.completed
    assert not cv.run_scenario("C", budget=4, rules=ExecutionRules(budget_rule="strict")).baseline.completed


def test_ruled_runs_are_deterministic():
    rules = ExecutionRules(verification=VerificationModel(0.3, 0.3, 1, seed=7), recovery="redo_affected")
    first = cv.run_scenario("E1", rules=rules).to_dict()
    assert all(cv.run_scenario("E1", rules=rules).to_dict() == first for _ in range(3))
