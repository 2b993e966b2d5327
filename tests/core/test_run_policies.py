"""Registering and unregistering an executor, and the one entry that chooses the bit-mask path for a set of runs."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import cvlib as cv
from cvlib.core import runs as core_runs
from cvlib.core.errors import ParameterError
from cvlib.core.events import SilentChange
from cvlib.core.executors import (
    ARTICLE_POLICIES,
    BUILT_IN_POLICIES,
    MAX_MASKED_FACTS,
    ValidityAware,
    article_pair,
    executor_names,
    get_policy,
    register_policy,
    run_policies,
    run_policy,
    unregister_policy,
)
from cvlib.core.facts import Fact, ValidityState
from cvlib.core.rules import ExecutionRules
from cvlib.core.values import replace
from cvlib.scenarios.random_plans import random_setups


@dataclass(frozen=True)
class Trial(ValidityAware):
    """A validity-aware executor under a name of its own, registered and unregistered by the tests."""

    name: str = "trial_policy"


def test_register_use_unregister_then_the_name_is_unknown() -> None:
    register_policy(Trial())
    try:
        assert "trial_policy" in executor_names()
        run = cv.run_scenario("A", policies=["baseline", "trial_policy"])
        assert run.results["trial_policy"].steps_used == cv.run_scenario("A").validity_aware.steps_used
    finally:
        unregister_policy("trial_policy")
    assert "trial_policy" not in executor_names()
    with pytest.raises(ParameterError) as caught:
        get_policy("trial_policy")
    assert "'trial_policy'" in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(ParameterError):
        cv.run_scenario("A", policies=["trial_policy"])
    register_policy(Trial())  # the name is free again
    unregister_policy("trial_policy")


def test_unregistering_an_unknown_name_says_which_in_one_line() -> None:
    with pytest.raises(ParameterError) as caught:
        unregister_policy("never_registered")
    message = str(caught.value)
    assert "'never_registered'" in message and "baseline" in message and "\n" not in message
    with pytest.raises(ParameterError, match="no executor called 5"):
        unregister_policy(5)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(BUILT_IN_POLICIES))
def test_the_built_in_executors_cannot_be_unregistered(name: str) -> None:
    with pytest.raises(ParameterError, match="built in") as caught:
        unregister_policy(name)
    assert "\n" not in str(caught.value)
    assert name in executor_names()


def test_policy_register_and_unregister_are_public() -> None:
    for name in ("Policy", "register_policy", "unregister_policy"):
        assert name in cv.__all__
        assert getattr(cv, name) is getattr(cv.executors, name)


def _counts(result: cv.ExecutorResult) -> tuple:
    return (result.completed, result.steps_used, result.replans, result.verifications, result.pre_failure_work,
            result.decisions_total, result.decisions_on_stale_deps)


def _harsh(setup, rng_seed: int):
    """The setup with a schedule harsher than its family's and facts with horizons."""
    import random

    from cvlib.scenarios.random_plans import random_events

    rng = random.Random(rng_seed)
    names = [f.id for f in setup.facts]
    horizon = len(setup.plan) + 2
    probs = {"break_prob": rng.random(), "ambiguous_prob": rng.random(), "false_alarm_prob": rng.random()}
    events = random_events(names, rng.getrandbits(32), horizon=horizon, **probs)
    facts = tuple(Fact(f, 0, valid_until=rng.randint(0, horizon) if rng.random() < 0.6 else None) for f in names)
    return replace(setup, events=events, facts=facts)


def test_run_policies_takes_the_bit_mask_path_for_the_article_pair_and_gives_the_loops_counts(monkeypatch) -> None:
    calls = []

    def counting(masks):
        calls.append(masks)
        return article_pair(masks)

    monkeypatch.setattr(core_runs, "article_pair", counting)
    setups = [_harsh(s, k) for k, s in enumerate(random_setups(91, 150))]
    runs = run_policies(None, setups)
    assert len(calls) == len(setups)
    for k, setup in enumerate(setups):
        for name in ARTICLE_POLICIES:
            expected = run_policy(get_policy(name), setup.plan, setup.new_world(), setup.at_risk, setup.budget)
            assert runs.results(k)[name] == expected, (name, setup.params)


def test_run_policies_runs_anything_else_through_the_loop(monkeypatch) -> None:
    monkeypatch.setattr(core_runs, "article_pair", lambda masks: pytest.fail("the bit-mask path ran"))
    setup = cv.setup_scenario("A")
    silent = replace(setup, silent_changes=(SilentChange(1, "F1"),))
    stale = replace(setup, facts=(Fact("F1", 420, state=ValidityState.STALE),))
    many_facts = cv.setup_scenario("D3", num_branches=MAX_MASKED_FACTS + 1)
    # Other executors, another order, a look-alike: every run through the loop.
    for policies in (["validity_aware", "baseline"], ["baseline", "timestamp_only"], [Trial()]):
        runs = run_policies(policies, [setup])
        for name, result in runs.results(0).items():
            policy = next(p for p in cv.executors.resolve_policies(policies) if p.name == name)
            assert result == run_policy(policy, setup.plan, setup.new_world(), setup.at_risk, setup.budget)
    # The article's two, on worlds or under rules the masks do not state.
    for case, rules in ((silent, None), (stale, None), (setup, ExecutionRules(ttl=2)), (many_facts, None)):
        assert case.bit_masks(rules) is None
        runs = run_policies(None, [case], rules=rules)
        for name in ARTICLE_POLICIES:
            world = case.new_world(rules)
            assert runs.results(0)[name] == run_policy(get_policy(name), case.plan, world, case.at_risk, case.budget)


def test_a_single_run_and_a_column_read_the_same_counts() -> None:
    setups = [cv.setup_scenario("D2", depth=d, branching_factor=2, merge_factor=2) for d in (3, 8, 12)]
    runs = run_policies(None, setups)
    assert len(runs) == 3 and runs.names == ARTICLE_POLICIES
    for k, setup in enumerate(setups):
        assert {n: _counts(r) for n, r in runs.results(k).items()} == {
            n: _counts(r) for n, r in setup.run().results.items()
        }
    assert runs.column("baseline", "pfw") == [runs.results(k)["baseline"].pre_failure_work for k in range(3)]
    assert runs.column("validity_aware", "scur") == [runs.results(k)["validity_aware"].scur for k in range(3)]
    with pytest.raises(ParameterError, match="unknown metric 'speed'"):
        runs.column("baseline", "speed")
    with pytest.raises(ParameterError, match="no executor called 'oracle' ran"):
        runs.column("oracle", "pfw")
