"""Policies by name, by reference and by object; the timestamp-only executor; the column rule."""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass

import pytest

import cvlib as cv
from cvlib.core import executors, registry
from cvlib.core.errors import ParameterError
from cvlib.core.events import Event, EventKind, ResourceEvent, SilentChange
from cvlib.core.executors import (
    ARTICLE_POLICIES,
    TIMESTAMP_ONLY,
    TimestampOnly,
    ValidityAware,
    law_policies,
    policy_column,
    policy_columns,
    policy_names,
    resolve_policies,
    resolve_policy,
    run_policy,
)
from cvlib.core.facts import Fact
from cvlib.core.rules import ExecutionRules
from cvlib.core.world import World


@dataclass(frozen=True)
class Cautious(ValidityAware):
    """A validity-aware executor under another name, for the tests."""

    name: str = "cautious"


def test_the_default_is_the_articles_two_in_order():
    assert ARTICLE_POLICIES == ("baseline", "validity_aware")
    assert policy_names() == ["baseline", "validity_aware"]
    assert [p.name for p in resolve_policies(None)] == ["baseline", "validity_aware"]


def test_names_objects_and_references_resolve_in_the_order_asked():
    chosen = resolve_policies(["timestamp_only", Cautious(), "baseline", "validity_aware"])
    assert [p.name for p in chosen] == ["timestamp_only", "cautious", "baseline", "validity_aware"]
    assert resolve_policies("timestamp_only") == (TimestampOnly(),)  # one name alone is a list of one


def test_a_module_attribute_reference_names_an_object_or_a_class(tmp_path, monkeypatch):
    (tmp_path / "my_policies_mod.py").write_text(textwrap.dedent("""
        from dataclasses import dataclass
        from cvlib.core.executors import ValidityAware

        @dataclass(frozen=True)
        class Wary(ValidityAware):
            name: str = "wary"

        WARY = Wary()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert resolve_policy("my_policies_mod:WARY").name == "wary"
    assert resolve_policy("my_policies_mod:Wary").name == "wary"  # a class is made with no arguments
    run = cv.run_scenario("A", policies=["baseline", "my_policies_mod:Wary"])
    assert list(run.results) == ["baseline", "wary"]
    assert _without_name(run.results["wary"]) == _without_name(cv.run_scenario("A").validity_aware)
    sys.modules.pop("my_policies_mod", None)


def test_a_policy_that_takes_a_registered_name_is_refused(tmp_path, monkeypatch):
    # a plain subclass's class attribute is hidden by the name field it inherits: without this check its rows
    # would be labelled validity_aware, the article's executor
    (tmp_path / "my_impostor_mod.py").write_text(textwrap.dedent("""
        from cvlib.core.executors import ValidityAware

        class Sly(ValidityAware):
            name = "sly"
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ParameterError, match="named 'validity_aware', the name of the registered executor ValidityAware.*name='sly'"):
        resolve_policy("my_impostor_mod:Sly")
    with pytest.raises(ParameterError, match="^policies: the policy Sly is named 'validity_aware'"):
        resolve_policies(["baseline", sys.modules["my_impostor_mod"].Sly()])
    assert resolve_policy(ValidityAware()).name == "validity_aware"  # the registered class itself is fine
    assert resolve_policy(ValidityAware(name="sly")).name == "sly"
    sys.modules.pop("my_impostor_mod", None)


def _without_name(result):
    out = result.to_dict()
    out.pop("executor")
    return out


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("oracle", r"unknown executor 'oracle'; expected one of baseline, validity_aware, timestamp_only"),
        ("no_such_module_xyz:P", r"cannot import module 'no_such_module_xyz'"),
        ("cvlib:NoSuchPolicy", r"module 'cvlib' has no 'NoSuchPolicy'"),
        ("cvlib:", r"expected module:attribute"),
        (42, r"a policy needs a name"),
        ([], r"at least one executor"),
        (["baseline", "baseline"], r"'baseline' more than once"),
    ],
)
def test_bad_policies_are_one_line_errors(bad, message):
    with pytest.raises(ParameterError, match=message) as caught:
        resolve_policies(bad)
    assert "\n" not in str(caught.value)


def test_an_unknown_name_lists_every_registered_one():
    with pytest.raises(ParameterError) as caught:
        cv.run_scenario("A", policies=["baseline", "oracle"])
    for name in executors.executor_names():
        assert name in str(caught.value)


def test_register_policy_refuses_a_taken_name_and_a_name_that_cannot_head_a_column():
    with pytest.raises(ParameterError, match="already registered"):
        executors.register_policy(TimestampOnly())
    with pytest.raises(ParameterError, match="letters, digits and underscores"):
        executors.register_policy(Cautious(name="two words"))


def test_a_registered_policy_runs_by_name(monkeypatch):
    monkeypatch.setitem(registry._POLICIES, "cautious", Cautious())
    run = cv.run_scenario("A", policies=["cautious", "baseline"])
    assert list(run.results) == ["cautious", "baseline"]
    assert run.results["cautious"].executor == "cautious"


def test_an_entry_point_announces_a_policy(monkeypatch):
    class Point:
        name, value = "cautious", "tests.core.test_policies:Cautious"

        def load(self):
            return Cautious

    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [Point()] if group == "cvlib.policies" else [])
    monkeypatch.setattr(registry, "_ENTRY_POINTS_LOADED", False)
    monkeypatch.setattr(registry, "_POLICIES", dict(registry._POLICIES))
    assert "cautious" in executors.executor_names()
    assert cv.run_scenario("A", policies=["cautious"]).results["cautious"].steps_used == 6


def test_law_policies_always_start_with_the_baseline():
    assert [p.name for p in law_policies()] == ["baseline"]
    assert [p.name for p in law_policies(["timestamp_only", "baseline"])] == ["baseline", "timestamp_only"]


def test_the_column_rule():
    run = cv.run_scenario("A", policies=["baseline", "timestamp_only"])
    assert policy_column("validity_aware", "pfw") == "validity_aware_pfw"
    assert list(policy_columns(run.results, ["pfw", "steps"])) == [
        "baseline_pfw", "timestamp_only_pfw", "baseline_steps", "timestamp_only_steps",
    ]
    with pytest.raises(ParameterError, match="unknown metric 'doom'"):
        policy_columns(run.results, ["doom"])


# -- timestamp_only ------------------------------------------------------------------------------


def _run(policy, world, depth=8):
    return run_policy(policy, cv.chain(depth), world, "F1")


def test_timestamp_only_misses_a_replaced_value_like_the_baseline():
    run = cv.run_scenario("A", policies=["baseline", "validity_aware", TIMESTAMP_ONLY])
    ts, base, va = run.results["timestamp_only"], run.baseline, run.validity_aware
    assert (ts.steps_used, ts.pre_failure_work, ts.verifications) == (base.steps_used, base.pre_failure_work, 0)
    assert va.pre_failure_work == 0 < ts.pre_failure_work


def test_timestamp_only_ignores_an_ambiguous_signal():
    world = World([Fact("F1", 1)], [Event(1, "F1", EventKind.AMBIGUOUS, ground_truth_changed=False)])
    assert _run(TimestampOnly(), world, 3).verifications == 0


def test_timestamp_only_catches_a_silent_change_once_the_fact_is_old():
    rules = ExecutionRules(ttl=2, ttl_refresh=True)
    silent = [SilentChange(1, "F1")]
    ts = _run(TimestampOnly(), World([Fact("F1", 1)], rules=rules, silent_changes=silent))
    va = _run(ValidityAware(), World([Fact("F1", 1)], rules=rules, silent_changes=silent))
    base = run_policy(cv.core.executors.Baseline(), cv.chain(8), World([Fact("F1", 1)], silent_changes=silent), "F1")
    assert ts.verifications >= 1 and ts.pre_failure_work < base.pre_failure_work
    assert _without_name(ts) == _without_name(va)  # a silent change is only seen through age, by both


def test_timestamp_only_does_not_read_resource_health():
    rules = ExecutionRules(ttl=100, checker="dependency")

    def world():
        return World([Fact("F1", 1)], rules=rules, resource_events=[ResourceEvent(1, "db", up=False)],
                     supports={"F1": "db"})

    ts, va = _run(TimestampOnly(), world()), _run(ValidityAware(), world())
    assert ts.pre_failure_work > 0 and va.pre_failure_work == 0


def test_without_a_ttl_timestamp_only_is_the_baseline():
    setup = cv.setup_scenario("D2", depth=5, branching_factor=2, merge_factor=2)
    run = setup.run(policies=["baseline", "timestamp_only"])
    assert _without_name(run.baseline) == _without_name(run.results["timestamp_only"])
