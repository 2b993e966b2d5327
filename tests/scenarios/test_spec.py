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
    # what else the world holds: silent changes, resources, rules, every plan family
    ("silent-not-list", variant(silent_changes={"tick": 1}), ["'silent_changes' must be a list"]),
    ("silent-missing-fact", variant(silent_changes=[{"tick": 1}]), ["silent_changes[0] is missing 'fact'"]),
    ("silent-extra-key", variant(silent_changes=[{"tick": 1, "fact": "F1", "value": 2}]),
     ["silent_changes[0] has unknown key(s) 'value'", "expected tick, fact"]),
    ("silent-unknown-fact", variant(silent_changes=[{"tick": 1, "fact": "F9"}]),
     ["silent_changes[0] names fact 'F9'", "defined: F1, F2"]),
    ("silent-negative-tick", variant(silent_changes=[{"tick": -3, "fact": "F1"}]),
     ["silent_changes[0]", "silent change tick must be >= 0, got -3"]),
    ("supports-not-mapping", variant(supports=["F2", "db"]), ["'supports' must map fact ids to resource names"]),
    ("supports-unknown-fact", variant(supports={"F9": "db"}), ["supports names fact 'F9'", "defined: F1, F2"]),
    ("supports-bad-resource", variant(supports={"F2": 3}), ["supports.F2: the resource must be a non-empty name", "3"]),
    ("resource-unknown", variant(supports={"F2": "db"}, resource_events=[{"tick": 2, "resource": "dbb"}]),
     ["resource_events[0] names resource 'dbb', which no fact rests on", "'supports' names: db"]),
    ("resource-without-supports", variant(resource_events=[{"tick": 2, "resource": "db"}]),
     ["resource_events[0] names resource 'db'", "(none)"]),
    ("resource-bad-up", variant(supports={"F2": "db"}, resource_events=[{"tick": 2, "resource": "db", "up": "no"}]),
     ["resource_events[0]", "resource event 'up' must be true or false", "'no'"]),
    ("resource-missing-tick", variant(supports={"F2": "db"}, resource_events=[{"resource": "db"}]),
     ["resource_events[0] is missing 'tick'"]),
    ("rules-not-mapping", variant(rules=["ttl", 3]), ["'rules' must be a mapping of execution rules", "ttl"]),
    ("rules-unknown-key", variant(rules={"tll": 3}), ["rules has unknown key(s) 'tll'", "recovery", "ttl"]),
    ("rules-bad-recovery", variant(rules={"recovery": "retry"}), ["rules: recovery must be one of flat", "'retry'"]),
    ("rules-bad-ttl", variant(rules={"ttl": 2.5}), ["rules: ttl must be an integer", "2.5"]),
    ("rules-negative-ttl", variant(rules={"ttl": -1}), ["rules: ttl must be >= 0", "-1"]),
    ("rules-bad-flag", variant(rules={"ttl_refresh": "yes"}), ["rules: ttl_refresh", "'yes'"]),
    ("rules-bad-prior", variant(rules={"prior_change": 1.5}), ["rules: prior_change", "1.5"]),
    ("rules-bad-checker", variant(rules={"checker": "oracle"}), ["rules: checker must be one of timestamp, dependency"]),
    ("rules-verification-not-mapping", variant(rules={"verification": 0.1}),
     ["rules.verification must be a mapping of miss_rate, false_alarm_rate, cost, seed", "0.1"]),
    ("rules-verification-unknown-key", variant(rules={"verification": {"noise": 0.1}}),
     ["rules.verification has unknown key(s) 'noise'"]),
    ("rules-verification-bad-rate", variant(rules={"verification": {"miss_rate": 2}}), ["rules.verification: miss_rate"]),
    ("plan-extra-key", variant(plan={"generator": "chain", "params": {"depth": 3}, "seed": 1}),
     ["plan has unknown key(s) 'seed'", "generator and params"]),
    ("generator-missing-param", variant(plan={"generator": "layered", "params": {"max_width": 2}}),
     ["generator 'layered'", "num_layers"]),
    ("random-unknown-family", variant(plan={"generator": "random", "params": {"family": "tree"}}),
     ["plan family must be one of chain", "'tree'"]),
    ("chain-too-many-actions", variant(plan={"generator": "chain", "params": {"depth": 2, "num_actions": 3}}),
     ["num_actions must be at most depth (2), got 3"]),
    ("chain-also-requires-out-of-range", variant(plan={"generator": "chain", "params": {"depth": 3, "also_requires": {"x": ["F2"]}}}),
     ["also_requires is keyed by step positions 0 to 2", "'x'"]),
]


@pytest.mark.parametrize(("label", "spec", "fragments"), MALFORMED, ids=[m[0] for m in MALFORMED])
@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_malformed_spec_error_names_file_and_problem(tmp_path, label, spec, fragments, suffix):
    expect_error(write(tmp_path, spec, suffix, name=label), *fragments)


def test_setup_from_spec_uses_the_given_source_name():
    with pytest.raises(SpecError, match=r"^my-source: missing required key 'plan'"):
        cv.setup_from_spec({"name": "x", "facts": [{"id": "F1"}]}, source="my-source")


# -- what else a spec can say: silent changes, resources, rules, every plan family ---------------------------------

WORLD = variant(
    silent_changes=[{"tick": 4, "fact": "F1"}],
    supports={"F2": "warehouse"},
    resource_events=[{"tick": 3, "resource": "warehouse"}, {"tick": 6, "resource": "warehouse", "up": True}],
    rules={"ttl": 4, "ttl_refresh": True, "checker": "dependency", "verification": {"cost": 2}},
)


def test_a_spec_carries_silent_changes_resources_and_rules_into_the_setup(tmp_path):
    setup = cv.load_spec(write(tmp_path, WORLD))
    assert setup.silent_changes == (cv.SilentChange(4, "F1"),)
    assert setup.supports == {"F2": "warehouse"}
    assert setup.resource_events == (cv.ResourceEvent(3, "warehouse", up=False), cv.ResourceEvent(6, "warehouse", up=True))
    assert setup.rules == cv.ExecutionRules(ttl=4, ttl_refresh=True, checker="dependency",
                                            verification=cv.VerificationModel(cost=2))
    run = cv.run_spec(write(tmp_path, WORLD, ".json"))
    assert run.to_dict()["rules"] == setup.rules.to_dict()  # the run says which rules produced it


def test_a_spec_runs_as_the_same_setup_built_in_python(tmp_path):
    from cvlib.core.values import replace

    loaded = cv.load_spec(write(tmp_path, WORLD))
    plain = cv.load_spec(write(tmp_path, VALID, name="plain"))
    by_hand = replace(
        plain,
        silent_changes=(cv.SilentChange(4, "F1"),),
        supports={"F2": "warehouse"},
        resource_events=(cv.ResourceEvent(3, "warehouse", up=False), cv.ResourceEvent(6, "warehouse", up=True)),
        rules=cv.ExecutionRules(ttl=4, ttl_refresh=True, checker="dependency", verification=cv.VerificationModel(cost=2)),
    )
    assert loaded.run().to_dict() == by_hand.run().to_dict()
    assert loaded.run().to_dict() != plain.run().to_dict()  # the extra keys change what happens


@pytest.mark.parametrize(
    ("generator", "params", "expected"),
    [
        ("chain", {"depth": 6, "num_actions": 2}, lambda: cv.chain(6, num_actions=2)),
        ("branching", {"depth": 5, "branching_factor": 3, "seed": 2}, lambda: cv.branching(5, 3, seed=2)),
        ("multi_branch", {"pre_merge_depth": 2, "num_branches": 2, "post_merge_depth": 2},
         lambda: cv.multi_branch(2, 2, 2)),
        ("layered", {"num_layers": 4, "max_width": 3, "num_facts": 2, "seed": 5},
         lambda: cv.random_plans.layered_dag(4, 3, 2, seed=5)),
        ("fan_out", {"num_branches": 2, "fan_out": 2, "seed": 1}, lambda: cv.random_plans.isolated_fan_out(2, 2, seed=1)),
        ("random", {"family": "layered", "seed": 9, "max_steps": 20}, lambda: cv.random_plans.random_plan("layered", 9, 20)[0]),
    ],
)
def test_every_plan_family_is_a_spec_generator(tmp_path, generator, params, expected):
    plan = expected()
    facts = [{"id": f, "value": 1} for f in sorted(plan.facts | {"F1", "F2"})]
    spec = variant(plan={"generator": generator, "params": params}, facts=facts, at_risk=sorted(plan.facts)[0], events=[])
    setup = cv.load_spec(write(tmp_path, spec))
    assert list(setup.plan.ordered_steps()) == list(plan.ordered_steps())
    assert set(cv.spec.PLAN_GENERATORS) >= {"chain", "branching", "multi_branch", "layered", "fan_out", "random"}


def test_a_chain_with_a_further_requirement_from_yaml(tmp_path):
    path = tmp_path / "chain.yaml"
    path.write_text(
        "name: c\nfacts: [{id: F1}, {id: F2}]\nplan: {generator: chain, params: {depth: 4, also_requires: {2: [F2]}}}\n"
        "at_risk: F2\n",
        encoding="utf-8",
    )
    setup = cv.load_spec(path)
    assert setup.plan.step("S2").requires == {"F2"} and setup.plan.closure_size("F2") == 2


@pytest.mark.parametrize(("label", "spec", "fragments"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_every_spec_error_is_one_line(tmp_path, label, spec, fragments):
    with pytest.raises(SpecError) as err:
        cv.load_spec(write(tmp_path, spec, name=label))
    assert "\n" not in str(err.value)


EXAMPLE = cv.paths.project_root() / "data" / "scenarios" / "warehouse_outage.yaml"


def test_the_warehouse_outage_example_uses_rules_and_an_outage():
    from cvlib.core.values import replace

    setup = cv.load_spec(EXAMPLE)
    assert setup.rules is not None and setup.rules.checker == "dependency" and setup.rules.ttl == 4
    assert setup.resource_events == (cv.ResourceEvent(3, "warehouse", up=False),) and setup.supports == {"F2": "warehouse"}
    run = setup.run()
    # The count F2 never changes, yet the outage makes the baseline work on it in vain; the dependency checker stops first.
    assert run.baseline.pre_failure_work > 0 and run.baseline.replans == 1
    assert run.validity_aware.pre_failure_work == 0 and run.validity_aware.steps_used < run.baseline.steps_used
    # Without its rules the validity-aware executor reads no resource health and does what the baseline does.
    assert replace(setup, rules=None).run().validity_aware.pre_failure_work == run.baseline.pre_failure_work
    # Without the outage nothing goes wrong for either executor.
    calm = replace(setup, resource_events=()).run()
    assert calm.baseline.pre_failure_work == calm.validity_aware.pre_failure_work == 0


# -- data never runs code ------------------------------------------------------------------------------

#: A policy module that leaves a mark when it is imported, as a hostile one would do anything else.
MARKING_MODULE = '''
import pathlib

pathlib.Path(__file__).with_name("imported.txt").write_text("ran", encoding="utf-8")


class Marked:
    name = "marked"

    def watched_states(self, rules):
        return frozenset()

    def watches_health(self, rules):
        return False

    def check(self, view, run, position, closure):
        return None
'''


@pytest.fixture
def marking_module(tmp_path, monkeypatch):
    """``spec_marker_mod`` in ``tmp_path``, importable; importing it writes ``imported.txt`` beside it."""
    import sys

    (tmp_path / "spec_marker_mod.py").write_text(MARKING_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path / "imported.txt"
    sys.modules.pop("spec_marker_mod", None)


@pytest.mark.parametrize("load", [
    lambda path: cv.load_spec(path),
    lambda path: cv.run_spec(path),
    lambda path: cv.run_spec(path, policies=["baseline"]),  # the file still names code: refused, not ignored
    lambda path: cv.setup_from_spec(yaml.safe_load(path.read_text(encoding="utf-8")), source=str(path)),
])
def test_a_spec_naming_module_attribute_is_refused_before_any_import(tmp_path, marking_module, load):
    import sys

    path = write(tmp_path, variant(policies=["baseline", "spec_marker_mod:Marked"]))
    with pytest.raises(SpecError) as err:
        load(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "'spec_marker_mod:Marked'" in message
    assert "cvlib spec FILE --trust-code" in message and "trust_code=True" in message
    assert "book.sh --spec FILE --trust-code" in message
    assert not marking_module.exists() and "spec_marker_mod" not in sys.modules


def test_spec_policies_refuses_a_reference_too(marking_module):
    from cvlib.scenarios.spec import spec_policies

    with pytest.raises(SpecError, match="module:attribute reference"):
        spec_policies(variant(policies=["spec_marker_mod:Marked"]), "given")
    assert not marking_module.exists()
    assert spec_policies(variant(policies=["baseline", "timestamp_only"]), "given") == ["baseline", "timestamp_only"]


def test_a_trusted_spec_loads_and_runs_the_module(tmp_path, marking_module):
    path = write(tmp_path, variant(policies=["baseline", "spec_marker_mod:Marked"]))
    setup = cv.load_spec(path, trust_code=True)
    assert marking_module.read_text(encoding="utf-8") == "ran"
    assert setup.name == "two-suppliers"
    assert list(cv.run_spec(path, trust_code=True).results) == ["baseline", "marked"]


def test_registered_names_need_no_trust(tmp_path, marking_module):
    path = write(tmp_path, variant(policies=["baseline", "timestamp_only"]))
    assert list(cv.run_spec(path).results) == ["baseline", "timestamp_only"]
    assert not marking_module.exists()


def test_a_reference_written_in_python_keeps_working(tmp_path, marking_module):
    """Where the caller writes the reference, the caller chose the code: no opt-in needed."""
    path = write(tmp_path, VALID)
    assert list(cv.run_spec(path, policies=["baseline", "spec_marker_mod:Marked"]).results) == ["baseline", "marked"]
    assert marking_module.exists()
