"""ScenarioSetup: one object carries everything a world holds, and every builder returns one."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from _strategies import FACT_IDS, fact_sets, plans, schedules
from hypothesis import given, settings
from hypothesis import strategies as st

import cvlib as cv
from cvlib.core.errors import ParameterError, UnknownFactError
from cvlib.core.events import ResourceEvent, SilentChange
from cvlib.core.executors import compute_budget, run_baseline, run_validity_aware
from cvlib.core.facts import Fact
from cvlib.core.rules import ExecutionRules, VerificationModel
from cvlib.core.world import World
from cvlib.scenarios.builders import operational_setup, silent_change_setup, staged_setup
from cvlib.scenarios.setup import ScenarioSetup
from tests.reference_executor import reference_run

TTL = ExecutionRules(ttl=2, ttl_refresh=True, checker="dependency")


def _setup(events=(), **extra):
    plan = cv.chain(6, also_requires={2: ["F2"]})
    return ScenarioSetup(
        name="held", plan=plan, facts=(Fact("F1", 1), Fact("F2", 2)), events=events, at_risk="F2",
        budget=compute_budget(plan, "F2"), **extra,
    )


def test_new_world_holds_silent_changes_outages_supports_and_rules():
    setup = _setup(
        silent_changes=(SilentChange(4, "F1"),),
        resource_events=(ResourceEvent(1, "db", up=False), ResourceEvent(3, "db", up=True)),
        supports={"F2": "db"},
        rules=TTL,
    )
    world = setup.new_world()
    assert world.rules == TTL
    direct = World(setup.facts, rules=TTL, silent_changes=setup.silent_changes,
                   resource_events=setup.resource_events, supports={"F2": "db"})
    for runner in (run_baseline, run_validity_aware):
        assert runner(setup.plan, setup.new_world(), "F2") == runner(setup.plan, direct.with_rules(TTL), "F2")
    # Each thing the setup carries changes a run: leaving any one out gives another result.
    full = setup.run().to_dict()
    for key, empty in (("silent_changes", ()), ("resource_events", ()), ("rules", None)):
        assert replace(setup, **{key: empty}).run().to_dict() != full, key


def test_rules_given_to_a_run_override_the_setup_and_are_recorded():
    setup = _setup(rules=TTL)
    assert setup.effective_rules() == TTL
    assert setup.effective_rules(ExecutionRules()) == ExecutionRules()
    assert setup.run().rules == TTL and setup.run().to_dict()["rules"] == TTL.to_dict()
    article = setup.run(rules=ExecutionRules())
    assert article.rules is None and "rules" not in article.to_dict()
    assert article.to_dict() == replace(setup, rules=None).run().to_dict()
    json.dumps(setup.run().to_dict())


def test_a_setup_without_extras_is_the_article_world():
    setup = cv.setup_scenario("A")
    assert setup.silent_changes == () and setup.resource_events == () and setup.rules is None
    assert setup.effective_rules() == ExecutionRules()
    assert run_baseline(setup.plan, setup.new_world(), "F1") == run_baseline(setup.plan, World(setup.facts, setup.events), "F1")


def test_lists_are_held_as_tuples_and_wrong_values_refused_in_one_line():
    setup = _setup(silent_changes=[SilentChange(1, "F1")])
    assert setup.silent_changes == (SilentChange(1, "F1"),)
    cases = [
        ({"silent_changes": ("F1",)}, ParameterError, "silent_changes must be a tuple of SilentChange values"),
        ({"resource_events": (SilentChange(1, "F1"),)}, ParameterError, "resource_events must be a tuple of ResourceEvent"),
        ({"rules": {"ttl": 2}}, ParameterError, "rules must be an ExecutionRules value or None"),
        ({"supports": {"F9": "db"}}, ParameterError, "supports names fact 'F9'"),
        ({"silent_changes": (SilentChange(1, "F9"),)}, UnknownFactError, "F9"),
    ]
    for extra, error, fragment in cases:
        with pytest.raises(error, match=fragment) as err:
            _setup(**extra)
        assert "\n" not in str(err.value)


def test_break_ticks_count_silent_changes_but_not_outages():
    setup = _setup(
        events=(cv.Event(5, "F1", cv.EventKind.REPLACE, new_value=0),),
        silent_changes=(SilentChange(3, "F1"), SilentChange(4, "F2")),
        resource_events=(ResourceEvent(0, "db", up=False),),
        supports={"F2": "db"},
    )
    assert setup.break_ticks() == {"F1": 3, "F2": 4}


@settings(max_examples=60, deadline=None)
@given(plans(), fact_sets(), schedules(), st.data())
def test_the_law_holds_with_silent_changes(plan, facts, events, data):
    silent = tuple(
        SilentChange(data.draw(st.integers(0, 12)), data.draw(st.sampled_from(FACT_IDS)))
        for _ in range(data.draw(st.integers(0, 2)))
    )
    at_risk = data.draw(st.sampled_from(sorted(plan.facts)))
    setup = ScenarioSetup("law", plan, facts, events, at_risk, compute_budget(plan, at_risk), silent_changes=silent)
    run = setup.run()
    assert run.structure.predicted_baseline_pfw == run.baseline.pre_failure_work


@settings(max_examples=60, deadline=None)
@given(plans(), fact_sets(), schedules(), st.data())
def test_a_setup_with_every_extra_runs_as_the_reference_executor(plan, facts, events, data):
    silent = tuple(
        SilentChange(data.draw(st.integers(0, 12)), data.draw(st.sampled_from(FACT_IDS)))
        for _ in range(data.draw(st.integers(0, 2)))
    )
    supports = {fid: "db" for fid in data.draw(st.lists(st.sampled_from(FACT_IDS), unique=True, max_size=2))}
    outages = tuple(
        ResourceEvent(data.draw(st.integers(0, 10)), "db", up=data.draw(st.booleans()))
        for _ in range(data.draw(st.integers(0, 2)) if supports else 0)
    )
    rules = data.draw(st.sampled_from([
        None,
        ExecutionRules(ttl=2, ttl_refresh=True, checker="dependency"),
        ExecutionRules(ttl=3, checker="timestamp", launder=True),
        ExecutionRules(recovery="subplan", verification=VerificationModel(0.2, 0.1, cost=2, seed=4)),
    ]))
    at_risk = data.draw(st.sampled_from(sorted(plan.facts)))
    setup = ScenarioSetup(
        "ref", plan, facts, events, at_risk, compute_budget(plan, at_risk),
        silent_changes=silent, resource_events=outages, supports=supports, rules=rules,
    )
    run = setup.run()
    expected = tuple(reference_run(name, plan, setup.new_world(), at_risk, setup.budget) for name in ("baseline", "validity_aware"))
    assert (run.baseline, run.validity_aware) == expected


# -- the builders return setups -----------------------------------------------------------------------


def test_operational_setup_is_a_chain_whose_record_count_rests_on_the_database():
    setup = operational_setup(8, db_step=3)
    assert setup.supports == {"F2": "db"} and setup.resource_events == () and setup.at_risk == "F1"
    assert [s.id for s in setup.plan] == [f"S{i}" for i in range(8)]
    assert setup.plan.step("S0").requires == {"F1"} and setup.plan.step("S3").requires == {"F2"}
    assert setup.plan.closure_size("F2") == 5 and setup.budget == compute_budget(setup.plan, "F1")
    down = replace(setup, resource_events=(ResourceEvent(2, "db", up=False),))
    checked = down.run(rules=ExecutionRules(ttl=2, ttl_refresh=True, checker="dependency"))
    assert checked.baseline.pre_failure_work > 0 and checked.validity_aware.pre_failure_work == 0
    with pytest.raises(ParameterError, match="db_step must be a step before the action"):
        operational_setup(3, db_step=2)


def test_silent_change_setup_finds_a_silent_change_only_under_a_time_to_live():
    setup = replace(silent_change_setup(6), silent_changes=(SilentChange(1, "F1"),))
    blind = setup.run()
    assert blind.validity_aware.pre_failure_work == blind.baseline.pre_failure_work == 4  # S1 to S4, found only when the action fails
    expiring = setup.run(rules=ExecutionRules(ttl=1, ttl_refresh=True))
    assert expiring.validity_aware.pre_failure_work == 1 and expiring.validity_aware.verifications == 1


def test_staged_setup_uses_the_one_chain_builder():
    setup = staged_setup(6, 2, 4)
    assert list(setup.plan.ordered_steps()) == list(cv.chain(6, num_actions=2).ordered_steps())
    assert setup.plan.action_count() == 2


def test_the_noisy_verification_sweep_runs_the_named_ambiguous_scenarios():
    from cvlib.experiments.noisy_verification import verification_sweep

    # With no noise and a prior of 1 (every signal real) or 0 (every one a false alarm), always-verify runs E1 or E2.
    sweep = verification_sweep([0.0, 1.0], [0.0], policies=["always"], n_schedules=3)
    steps = dict(zip(sweep["prior"], sweep["mean_steps"]))
    assert steps[1.0] == cv.run_scenario("E1").validity_aware.steps_used
    assert steps[0.0] == cv.run_scenario("E2").validity_aware.steps_used


def test_no_world_is_built_outside_the_core_but_by_a_setup():
    import re

    root = cv.paths.project_root() / "cvlib"
    outside = sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if path.parent.name != "core" and re.search(r"\bWorld\(", path.read_text(encoding="utf-8"))
    )
    assert outside == ["scenarios/setup.py", "scenarios/spec.py"], outside
