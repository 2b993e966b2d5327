"""Scenario spec files: valid YAML and JSON, and an error naming file and problem for every malformation."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

import cvlib as cv
from cvlib.core.errors import SpecError

VALID = {
    "name": "two-suppliers",
    "description": "one supplier's price changes while the other's stock is doubted",
    "facts": [{"id": "F1", "value": 420}, {"id": "F2", "value": "in stock", "valid_until": 5}],
    "plan": {"generator": "multi_branch", "params": {"pre_merge_depth": 3, "num_branches": 2, "post_merge_depth": 2}},
    "events": [
        {"tick": 2, "fact": "F1", "kind": "replace", "new_value": 610},
        {"tick": 1, "fact": "F2", "kind": "ambiguous", "ground_truth_changed": False},
    ],
    "at_risk": "F1",
    "budget": None,
}

STEPS_PLAN = {
    "steps": [
        {"id": "S0", "kind": "plan", "requires": ["F1"]},
        {"id": "S1", "kind": "decision", "after": ["S0"]},
        {"id": "S2", "kind": "action", "after": ["S1"]},
    ]
}


def write(tmp_path, spec, suffix=".yaml", name="spec"):
    path = tmp_path / f"{name}{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(spec), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def variant(**changes):
    spec = copy.deepcopy(VALID)
    for key, value in changes.items():
        if value is ...:
            spec.pop(key)
        else:
            spec[key] = value
    return spec


# -- valid specs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_valid_spec_loads_and_runs(tmp_path, suffix):
    path = write(tmp_path, VALID, suffix)
    setup = cv.load_spec(path)
    assert setup.name == "two-suppliers"
    assert len(setup.plan) == 8
    assert setup.at_risk == "F1"
    assert setup.budget == 8 + (3 + 2) + 1  # steps + closure of F1 (its branch and the merge) + 1
    assert [(e.tick, e.fact_id) for e in setup.events] == [(2, "F1"), (1, "F2")]
    run = cv.run_spec(path)
    assert run.scenario == "two-suppliers"
    json.dumps(run.to_dict())


def test_yaml_and_json_specs_give_the_same_run(tmp_path):
    a = cv.run_spec(write(tmp_path, VALID, ".yaml"))
    b = cv.run_spec(write(tmp_path, VALID, ".json"))
    assert a.baseline == b.baseline and a.validity_aware == b.validity_aware


def test_explicit_steps_spec_reproduces_scenario_a(tmp_path):
    spec = {
        "name": "A by hand",
        "facts": [{"id": "F1", "value": 420}],
        "plan": {"steps": [*STEPS_PLAN["steps"][:2], {"id": "S2", "kind": "decision", "after": ["S1"]},
                           {"id": "S3", "kind": "action", "after": ["S2"]}]},
        "events": [{"tick": 1, "fact": "F1", "kind": "replace", "new_value": 610}],
    }
    run = cv.run_spec(write(tmp_path, spec))
    published = cv.run_scenario("A")
    assert run.baseline == published.baseline
    assert run.validity_aware == published.validity_aware


def test_at_risk_defaults_to_the_first_event_fact_and_budget_can_be_fixed(tmp_path):
    setup = cv.load_spec(write(tmp_path, variant(at_risk=..., budget=7)))
    assert setup.at_risk == "F1"
    assert setup.budget == 7


# -- malformed specs: every error names the file and the problem ----------------------------------------


def expect_error(path, *fragments):
    with pytest.raises(SpecError) as err:
        cv.load_spec(path)
    message = str(err.value)
    assert str(path) in message, f"the error does not name the file: {message}"
    for fragment in fragments:
        assert fragment in message, f"the error does not say {fragment!r}: {message}"


def test_missing_file(tmp_path):
    expect_error(tmp_path / "nope.yaml", "does not exist")


def test_wrong_suffix(tmp_path):
    path = tmp_path / "spec.txt"
    path.write_text("name: x\n")
    expect_error(path, ".yaml, .yml or .json")


def test_unparseable_yaml(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("name: [unclosed\nfacts: {\n")
    expect_error(path, "could not be parsed")


def test_unparseable_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"name": "x",')
    expect_error(path, "could not be parsed")


def test_top_level_not_a_mapping(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n")
    expect_error(path, "must be a mapping", "list")


MALFORMED = [
    ("unknown-top-key", variant(extra=1), ["unknown key(s) 'extra'"]),
    ("missing-name", variant(name=...), ["missing required key 'name'"]),
    ("missing-facts", variant(facts=...), ["missing required key 'facts'"]),
    ("missing-plan", variant(plan=...), ["missing required key 'plan'"]),
    ("empty-name", variant(name=""), ["'name' must be a non-empty string"]),
    ("facts-not-list", variant(facts={"F1": 420}), ["'facts' must be a non-empty list"]),
    ("fact-without-id", variant(facts=[{"value": 1}]), ["facts[0] must be a mapping with an 'id'"]),
    ("fact-extra-key", variant(facts=[{"id": "F1", "colour": "red"}]), ["facts[0] has unknown key(s)", "colour"]),
    ("fact-bad-horizon", variant(facts=[{"id": "F1", "valid_until": "soon"}, {"id": "F2"}]),
     ["facts[0].valid_until must be an integer tick", "soon"]),
    ("fact-bad-id", variant(facts=[{"id": 7}]), ["facts[0].id must be a non-empty string", "7"]),
    ("duplicate-facts", variant(facts=[{"id": "F1"}, {"id": "F2"}, {"id": "F1"}]), ["defined more than once", "F1"]),
    ("plan-both", variant(plan={"generator": "chain", "steps": []}), ["either 'generator'", "'steps'"]),
    ("plan-neither", variant(plan={"params": {}}), ["either 'generator'"]),
    ("unknown-generator", variant(plan={"generator": "tree", "params": {}}), ["unknown plan generator 'tree'", "chain"]),
    ("generator-bad-param-type", variant(plan={"generator": "chain", "params": {"depth": "6"}}),
     ["depth must be an integer", "'6'"]),
    ("generator-unknown-param", variant(plan={"generator": "chain", "params": {"width": 2}}), ["width"]),
    ("generator-params-not-mapping", variant(plan={"generator": "chain", "params": [3]}), ["plan.params must be a mapping"]),
    ("steps-empty", variant(plan={"steps": []}), ["plan.steps must be a non-empty list"]),
    ("step-missing-kind", variant(plan={"steps": [{"id": "S0"}]}), ["plan.steps[0] must be a mapping with 'id' and 'kind'"]),
    ("step-unknown-kind", variant(plan={"steps": [{"id": "S0", "kind": "wait", "requires": ["F1"]}]}),
     ["'wait'", "plan, decision, action"]),
    ("step-extra-key", variant(plan={"steps": [{"id": "S0", "kind": "action", "needs": ["F1"]}]}),
     ["plan.steps[0] has unknown key(s)", "needs"]),
    ("step-requires-not-list", variant(plan={"steps": [{"id": "S0", "kind": "action", "requires": "F1"}]}),
     ["'requires' and 'after' must be lists"]),
    ("step-requires-not-names", variant(plan={"steps": [{"id": "S0", "kind": "action", "requires": [{"F1": 1}]}]}),
     ["plan.steps[0].requires must list fact ids", "{'F1': 1}"]),
    ("step-after-not-names", variant(plan={"steps": [{"id": "S0", "kind": "action", "requires": ["F1"], "after": [["S1"]]}]}),
     ["plan.steps[0].after must list step ids", "['S1']"]),
    ("step-cycle", variant(plan={"steps": [{"id": "S0", "kind": "plan", "requires": ["F1"], "after": ["S1"]},
                                           {"id": "S1", "kind": "action", "after": ["S0"]}]}), ["cycle", "S0", "S1"]),
    ("step-unknown-predecessor", variant(plan={"steps": [{"id": "S0", "kind": "action", "requires": ["F1"], "after": ["S9"]}]}),
     ["'S9'", "not a step of the plan"]),
    ("step-duplicate-id", variant(plan={"steps": [{"id": "S0", "kind": "plan", "requires": ["F1"]}, {"id": "S0", "kind": "action"}]}),
     ["duplicate step id 'S0'"]),
    ("plan-needs-undefined-fact", variant(plan={"steps": [{"id": "S0", "kind": "action", "requires": ["F1", "F7"]}]}),
     ["'F7'", "'facts' does not define"]),
    ("plan-needs-undefined-mixed-ids", variant(plan={"steps": [{"id": "S0", "kind": "action", "requires": ["F1", "F7", 8]}]}),
     ["plan.steps[0].requires must list fact ids", "8"]),
    ("events-not-list", variant(events={"tick": 0}), ["'events' must be a list"]),
    ("event-not-mapping", variant(events=["replace F1"]), ["events[0] must be a mapping"]),
    ("event-missing-tick", variant(events=[{"fact": "F1", "kind": "replace"}]), ["events[0] is missing 'tick'"]),
    ("event-extra-key", variant(events=[{"tick": 0, "fact": "F1", "kind": "replace", "when": 3}]),
     ["events[0] has unknown key(s)", "when"]),
    ("event-unknown-kind", variant(events=[{"tick": 0, "fact": "F1", "kind": "vanish"}]),
     ["events[0]", "unknown event kind 'vanish'", "replace, ambiguous"]),
    ("event-negative-tick", variant(events=[{"tick": -1, "fact": "F1", "kind": "replace"}]),
     ["events[0]", "event tick must be >= 0, got -1"]),
    ("event-string-tick", variant(events=[{"tick": "2", "fact": "F1", "kind": "replace"}]),
     ["events[0]", "event tick must be an integer, got str '2'"]),
    ("event-unknown-fact", variant(events=[{"tick": 0, "fact": "F9", "kind": "replace"}]), ["'F9'", "known facts: F1, F2"]),
    ("ambiguous-without-truth", variant(events=[{"tick": 0, "fact": "F1", "kind": "ambiguous"}]),
     ["events[0]", "ground_truth_changed"]),
    ("at-risk-not-required", variant(at_risk="F9"), ["'at_risk' fact 'F9'"]),
    ("at-risk-needed", variant(at_risk=..., events=[]), ["'at_risk' is required"]),
    ("budget-negative", variant(budget=-2), ["'budget' must be a non-negative integer", "-2"]),
    ("budget-bool", variant(budget=True), ["'budget' must be a non-negative integer", "True"]),
    ("budget-float", variant(budget=7.5), ["'budget' must be a non-negative integer", "7.5"]),
]


@pytest.mark.parametrize(("label", "spec", "fragments"), MALFORMED, ids=[m[0] for m in MALFORMED])
@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_malformed_spec_error_names_file_and_problem(tmp_path, label, spec, fragments, suffix):
    expect_error(write(tmp_path, spec, suffix, name=label), *fragments)


def test_setup_from_spec_uses_the_given_source_name():
    with pytest.raises(SpecError, match=r"^my-source: missing required key 'plan'"):
        cv.setup_from_spec({"name": "x", "facts": [{"id": "F1"}]}, source="my-source")
