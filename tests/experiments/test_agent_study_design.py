"""The pre-registered agent-loop study as code: its task draw, repeats, prompts, groups and resumable recorder."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, get_policy
from cvlib.experiments.agent_study import design
from cvlib.experiments.agent_study.design import (
    SAMPLED_TEMPERATURE,
    StudyTask,
    group_name,
    record_study,
    recorded_groups,
    repeat_settings,
    run_group,
    study_tasks,
)
from cvlib.experiments.agent_study.study_prompts import OPTIONS, STUDY_ARMS, StudyPrompts, decision_grammar
from cvlib.experiments.agent_study.tasks import AgentTask, run_task, task_setup
from cvlib.models import ModelIdentity, read_recording


class ScriptedModel:
    """Answers EXECUTE to every decision (or what ``answer`` says) and NONE to every probe; counts resets."""

    identity = ModelIdentity("scripted.gguf", "5" * 64, "scripted", "1")

    def __init__(self, answer: str = "EXECUTE") -> None:
        self.answer, self.resets, self.calls = answer, 0, 0

    def prepare(self, settings) -> None:
        pass

    def reset(self) -> None:
        self.resets += 1

    def close(self) -> None:
        pass

    def complete(self, messages, settings) -> str:
        self.calls += 1
        return "NONE" if "Before you reply" in messages[-1][1] else self.answer


@pytest.fixture(scope="module")
def tasks() -> list[StudyTask]:
    return study_tasks()


def test_the_draw_is_the_pre_registered_one(tasks: list[StudyTask]) -> None:
    assert tasks == study_tasks()  # seeded: the same tasks in the same order every time
    kinds = Counter(t.stale_fact for t in tasks)
    assert kinds == {True: 160, False: 40}
    assert Counter(t.task.family for t in tasks if t.stale_fact) == {"random": 139, "variant": 11, "named": 5, "budget": 5}
    assert len({json.dumps(t.to_dict(), sort_keys=True) for t in tasks}) == 200
    assert [t.stale_fact for t in tasks[:40]].count(False) not in (0, 40)  # shuffled: a prefix holds both kinds


def test_stale_fact_means_the_baseline_meets_a_broken_fact(tasks: list[StudyTask]) -> None:
    for t in tasks[:60]:
        base = run_task(t.task, get_policy(BASELINE))
        if t.stale_fact:
            assert base.decisions_on_stale_deps > 0 or base.replans > 0
        else:
            assert not task_setup(t.task).events and base.pre_failure_work == 0


def test_repeats_greedy_first_then_seeded_samples(tasks: list[StudyTask]) -> None:
    greedy, prompts = repeat_settings(tasks[0], 0)
    assert greedy.temperature == 0 and prompts.order == OPTIONS
    assert greedy.grammar == decision_grammar(task_setup(tasks[0].task).plan.facts)
    one, first = repeat_settings(tasks[0], 1)
    two, second = repeat_settings(tasks[0], 2)
    assert one.temperature == two.temperature == SAMPLED_TEMPERATURE and one.seed != two.seed
    assert sorted(first.order) == sorted(OPTIONS)
    assert repeat_settings(tasks[0], 1) == (one, first)  # derived, not drawn at run time
    orders = {repeat_settings(t, 1)[1].order for t in tasks[:30]}
    assert len(orders) > 2  # the options' order varies across tasks


def test_the_arms_share_their_prefix_and_told_equals_enforced(tasks: list[StudyTask]) -> None:
    lines = [json.loads(line) for line in run_group(ScriptedModel(), tasks[0], 0)]
    first = {}
    for line in lines:
        if not line["decision"].get("probe"):
            first.setdefault(line["arm"], line["prompt"])
    assert list(first) == list(STUDY_ARMS)
    systems = {tuple(p[0]) for p in first.values()}
    assert len(systems) == 1  # one system turn for every arm
    plan = first["transcript"][1][1].split("\nt=")[0]  # the transcript arm's first turn: the plan, then the question
    assert plan.startswith("Plan, ") and all(p[1][1].startswith(plan + "\n") for p in first.values())
    assert first["told"] == first["enforced"] and first["told"] != first["labelled"]
    assert "ACTIVE" not in first["transcript"][1][1] and "ACTIVE" in first["labelled"][1][1]


def test_a_group_runs_the_arms_back_to_back_then_the_probes(tasks: list[StudyTask]) -> None:
    model = ScriptedModel()
    task = next(t for t in tasks if t.stale_fact)
    lines = [json.loads(line) for line in run_group(model, task, 0)]
    assert model.resets == 1 and {line["run"] for line in lines} == {group_name(task, 0)}
    probes = [line for line in lines if line["decision"].get("probe")]
    assert probes and all(line["response"] == "NONE" for line in probes)
    assert all(line["decision"]["correct"] == (line["decision"]["right"] == []) for line in probes)
    assert [line["arm"] for line in lines if not line["decision"].get("probe")][0] == "transcript"
    enforced = [line for line in lines if line["arm"] == "enforced" and not line["decision"].get("probe")]
    assert all(line["decision"]["applied"] != "EXECUTE" for line in enforced if line["outcome"]["blocked"])
    told = [line for line in lines if line["arm"] == "told" and not line["decision"].get("probe")]
    assert all(line["decision"]["applied"] == "EXECUTE" for line in told)  # told, not stopped
    assert all(line["task"]["repeat"] == 0 and line["task"]["stale_fact"] for line in lines)
    sampled = [json.loads(line) for line in run_group(ScriptedModel(), task, 1)]
    assert not [line for line in sampled if line["decision"].get("probe")]  # probes in the greedy repeat only
    assert all(line["decision"]["order"] == list(repeat_settings(task, 1)[1].order) for line in sampled)


def test_the_recorder_resumes_whole_groups(tasks: list[StudyTask], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedModel()
    monkeypatch.setattr(design, "open_model", lambda spec: model)
    out = tmp_path / "agent_study.scripted.jsonl.gz"
    assert record_study("scripted", out, tasks[:2], (0,), progress=False, resume="python record.py") == (2, 0)
    calls = model.calls
    assert record_study("scripted", out, tasks[:3], (0, 1), progress=False) == (4, 2)
    assert model.calls > calls
    assert recorded_groups(out) == {group_name(t, r) for t in tasks[:3] for r in (0, 1)}
    assert {r.run for r in read_recording(out)} == recorded_groups(out)


def test_bad_prompts_and_grammars_are_refused() -> None:
    with pytest.raises(ParameterError, match="not a permutation"):
        StudyPrompts(("EXECUTE", "EXECUTE", "REPLAN"))
    with pytest.raises(ParameterError, match="unknown study arm"):
        StudyPrompts().system("gated", 1, 7)
    with pytest.raises(ParameterError, match="needs the plan's facts"):
        decision_grammar([])
    with pytest.raises(ParameterError, match="repeat"):
        repeat_settings(StudyTask(AgentTask.of("named", "A"), True), -1)
