"""The model-driven executor: prompts hold belief only, code parses, and each answer does what it says."""

from __future__ import annotations

import hashlib

import pytest
from _strategies import fact_sets, plans, schedules
from hypothesis import given, settings
from hypothesis import strategies as st

from cvlib.core.errors import ParameterError
from cvlib.core.events import SilentChange
from cvlib.core.executors import Baseline, ValidityAware, run_policy
from cvlib.core.world import World
from cvlib.experiments.agent_study import (
    ARMS,
    AgentTask,
    ModelPolicy,
    agent_tasks,
    decisions_summary,
    parse_decision,
    reference_results,
    run_task,
    task_setup,
)
from cvlib.models import Recorder, ReplayModel, read_recording
from cvlib.models.settings import ModelIdentity


class Scripted:
    """Answers as a fixed function of the prompt, so equal prompts get equal answers."""

    identity = ModelIdentity("scripted.gguf", "12" * 32, "scripted", "1")

    def __init__(self, answers: tuple[str, ...] = ("EXECUTE",)) -> None:
        self.answers = answers
        self.prompts: list[tuple[tuple[str, str], ...]] = []

    def complete(self, messages, settings):
        self.prompts.append(tuple(messages))
        digest = hashlib.sha256(repr(messages).encode()).digest()[0]
        return self.answers[digest % len(self.answers)]


@pytest.mark.parametrize(
    ("text", "action", "fact", "parsed"),
    [
        ("EXECUTE", "EXECUTE", None, True),
        ("execute.", "EXECUTE", None, True),
        ("VERIFY F2", "VERIFY", "F2", True),
        ("Verify: <f3>", "VERIFY", "F3", True),
        ("VERIFY", "VERIFY", None, True),
        ("**REPLAN**", "REPLAN", None, True),
        ("EXECUTE (do the", "EXECUTE", None, True),
        ("I would EXECUTE", "EXECUTE", None, False),
        ("", "EXECUTE", None, False),
        ("1. S0 (plan), rests", "EXECUTE", None, False),
    ],
)
def test_the_first_word_decides(text: str, action: str, fact: str | None, parsed: bool) -> None:
    decision = parse_decision(text)
    assert (decision.action, decision.fact, decision.parsed) == (action, fact, parsed)


@settings(max_examples=80)
@given(
    plans(max_steps=8),
    fact_sets(),
    schedules(),
    st.sampled_from(ARMS),
    st.lists(st.tuples(st.integers(0, 10), st.sampled_from(("F1", "F2", "F3"))), min_size=1, max_size=3),
)
def test_same_belief_different_truth_same_prompts(plan, facts, events, arm, silent) -> None:
    """Silent changes alter only ground truth: every prompt up to the first revealing moment is the same."""
    prompts = []
    decisions = []
    for changes in ((), tuple(SilentChange(t, f) for t, f in silent)):
        model = Scripted(("EXECUTE", "EXECUTE", "VERIFY F1", "REPLAN"))
        policy = ModelPolicy(model, arm)
        run_policy(policy, plan, World(facts, events, silent_changes=changes), min(plan.facts), 40)
        prompts.append(model.prompts)
        decisions.append(policy.decisions)
    first, second = prompts
    # The first moment that can reveal ground truth: a verification, a replan, or an executed action.
    revealing = next(
        (k for k, (position, _, _, action) in enumerate(decisions[0])
         if action != "EXECUTE" or plan.kind_at(position).value == "action"),
        len(first) - 1,
    )
    assert first[: revealing + 1] == second[: revealing + 1]


def test_always_execute_is_the_baseline_and_the_gate_is_validity_aware_by_construction() -> None:
    for task in agent_tasks(30, variants=False, budget_sweep=False):
        setup = task_setup(task)
        base = run_policy(Baseline(), setup.plan, setup.new_world(), setup.at_risk, setup.budget)
        aware = run_policy(ValidityAware(), setup.plan, setup.new_world(), setup.at_risk, setup.budget)
        transcript = run_task(task, ModelPolicy(Scripted(), "transcript"))
        gated = run_task(task, ModelPolicy(Scripted(), "gated"))
        strip = ("executor", "decisions_total", "decisions_on_stale_deps")
        assert {k: v for k, v in transcript.to_dict().items() if k not in strip} == {
            k: v for k, v in base.to_dict().items() if k not in strip
        }, task.label
        # The gate never lets a step on a fact believed in doubt run: no more doomed work than the
        # validity-aware executor (which reads the same beliefs), whatever the model answers.
        assert gated.pre_failure_work <= aware.pre_failure_work or aware.pre_failure_work > 0, task.label


def test_each_answer_does_what_it_says() -> None:
    a = AgentTask.of("named", "A")
    replan = run_task(a, ModelPolicy(Scripted(("REPLAN",)), "labelled"))
    assert (replan.replans, replan.steps_used, replan.decisions_total) == (1, 5, 1)  # a replan of 5 before any step
    verify = run_task(AgentTask.of("named", "E2"), ModelPolicy(Scripted(("VERIFY F1",)), "labelled"))
    assert verify.verifications == 3 and verify.replans == 0 and verify.completed
    policy = ModelPolicy(Scripted(("no idea",)), "gated")
    gated = run_task(a, policy)
    summary = decisions_summary(policy.decisions)
    assert summary["unparsed"] == len(policy.decisions) == 2
    assert summary["VERIFY"] == 1  # the gate turned the unparsed EXECUTE at the superseded step into VERIFY
    assert gated.pre_failure_work == 0 and gated.verifications == 1


def test_prompts_show_states_only_in_the_labelled_arms() -> None:
    texts = {}
    for arm in ARMS:
        model = Scripted()
        run_task(AgentTask.of("named", "A"), ModelPolicy(model, arm))
        texts[arm] = "\n".join(content for _, content in model.prompts[-1])
    assert "SUPERSEDED" not in texts["transcript"] and "a newer value of F1 was observed" in texts["transcript"]
    assert "F1 (observed t=0, SUPERSEDED)" in texts["labelled"]
    assert "EXECUTE is not allowed" in texts["gated"] and "EXECUTE is not allowed" not in texts["labelled"]


def test_a_recorded_run_replays_to_the_same_result(tmp_path) -> None:
    path = tmp_path / "loop.jsonl"
    task = AgentTask.of("named", "E1")
    recorder = Recorder(Scripted(("EXECUTE", "VERIFY F1")), path, "agent_loop")
    first = run_task(task, ModelPolicy(recorder, "labelled", task=task.to_dict()))
    recorder.flush({"run": first.to_dict()})
    again = run_task(task, ModelPolicy(ReplayModel(path), "labelled"))
    assert again == first
    lines = read_recording(path)
    assert [r.step for r in lines] == [0, 1, 2][: len(lines)]
    assert all(r.outcome["run"]["steps_used"] == first.steps_used for r in lines)


def test_bad_arm_and_references() -> None:
    with pytest.raises(ParameterError, match="expected one of transcript, labelled, gated"):
        ModelPolicy(Scripted(), "shouting")
    refs = reference_results([AgentTask.of("named", "A")])
    assert [r.executor for _, r in refs] == ["baseline", "validity_aware"]
    with pytest.raises(ParameterError, match="not an agent-loop task"):
        AgentTask.from_dict({"family": "named"})
