"""The agent study's second edition: equal information, every option order, floorless tasks, pure answers."""

from __future__ import annotations

import json
import random
import re

import pytest

from cvlib.core.errors import ParameterError
from cvlib.core.executors import VALIDITY_AWARE, get_policy
from cvlib.core.facts import ValidityState
from cvlib.core.values import replace
from cvlib.experiments.agent_study import edition2
from cvlib.experiments.agent_study.edition2 import (
    cell_name,
    cell_settings,
    edition2_tasks,
    floorless,
    record_edition2,
    recorded_cells,
    run_cell,
    task_cost,
)
from cvlib.experiments.agent_study.edition2_prompts import OPTION_ORDERS, EvidencePrompts, order_index
from cvlib.experiments.agent_study.evidence_reader import read_states, read_unreliable
from cvlib.experiments.agent_study.policy import ModelPolicy
from cvlib.experiments.agent_study.study_prompts import OPTIONS
from cvlib.experiments.agent_study.tasks import FLOORLESS_FAMILIES, AgentTask, run_task, task_setup
from cvlib.models import GenerationSettings, ModelIdentity
from cvlib.models.memo import PromptMemo
from cvlib.models.recording import read_recording
from tests._scripted_models import ScriptedModel, opened_as

TASKS = edition2_tasks()


class RandomAnswers(ScriptedModel):
    """Seeded answers among the three forms (VERIFY naming one of the plan's facts); NONE to a probe."""

    def __init__(self, seed: int, facts) -> None:
        self.rng, self.facts, self.calls = random.Random(seed), sorted(facts), 0

    def complete(self, messages, settings) -> str:
        self.calls += 1
        if "Before you reply" in messages[-1][1]:
            return "NONE"
        return self.rng.choice(["EXECUTE", "EXECUTE", "REPLAN", "VERIFY " + self.rng.choice(self.facts)])


class Watched(ModelPolicy):
    """A transcript-arm policy that keeps, at each decision, its conversation and the labelled arm's twin."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[tuple[tuple, dict, tuple]] = []

    def messages(self, knowledge):
        sent = super().messages(knowledge)
        first = len(self._history) == 1
        labelled = self.prompts.first_question(knowledge, "labelled") if first else self.prompts.question(knowledge, "labelled")
        self.seen.append((sent, dict(knowledge.states), (*self._history, ("user", labelled))))
        return sent


def _decisions(seeds=range(3)):
    for task in TASKS:
        facts = task_setup(task.task).plan.facts
        for seed in seeds:
            policy = Watched(RandomAnswers(seed, facts), "transcript", prompts=EvidencePrompts(OPTION_ORDERS[seed % 3]))
            run_task(task.task, policy)
            yield from ((task, *seen) for seen in policy.seen)


_STATE = re.compile(r", (ACTIVE|STALE|SUPERSEDED|UNKNOWN)\)")


def test_the_transcript_prompt_alone_gives_every_state_the_labels_show_on_every_task():
    checked = 0
    for task, sent, states, _ in _decisions():
        assert read_states(sent) == states, task.task.label
        checked += 1
    assert checked > 1000


def test_a_labelled_prompt_is_the_transcript_prompt_plus_the_legend_and_the_states():
    for task, sent, _, labelled in _decisions(seeds=(0,)):
        text = labelled[-1][1]
        lines = [ln for ln in text.split("\n") if not ln.startswith("Each fact is shown with its validity state")]
        assert _STATE.sub(")", "\n".join(lines)) == sent[-1][1], task.task.label


def test_the_probe_answer_follows_from_the_transcript():
    for _, sent, states, _ in _decisions(seeds=(1,)):
        assert read_unreliable(sent) == tuple(sorted(f for f, s in states.items() if s is not ValidityState.ACTIVE))


def test_the_reader_refuses_a_note_it_does_not_know():
    sent = [("system", "s"), ("user", "Facts: F1 (no horizon).\nt=0: something else happened.\nt=0. Step 1 of 1: s (action), rests on F1.")]
    with pytest.raises(ParameterError, match="something else happened"):
        read_states(sent)
    with pytest.raises(ParameterError, match="not a second-edition transcript"):
        read_states([("user", "hello")])


def test_the_three_orders_put_each_option_in_each_place_once():
    assert len(OPTION_ORDERS) == 3
    for place in range(3):
        assert sorted(order[place] for order in OPTION_ORDERS) == sorted(OPTIONS)
    assert [order_index(o) for o in OPTION_ORDERS] == [0, 1, 2]
    with pytest.raises(ParameterError, match="cyclic orders"):
        order_index(("EXECUTE", "REPLAN", "VERIFY"))
    with pytest.raises(ParameterError, match="order must be 0, 1 or 2"):
        cell_settings(TASKS[0], 3)


def test_the_tasks_are_the_planned_kinds_in_a_seeded_order():
    kinds = {"first": 0, "control": 0, **dict.fromkeys(FLOORLESS_FAMILIES, 0)}
    for task in TASKS:
        family = task.task.family
        if family in FLOORLESS_FAMILIES:
            kinds[family] += 1
            assert task.stale_fact and floorless(task.task)
        else:
            kinds["first" if task.stale_fact else "control"] += 1
    assert kinds == {"first": 120, "control": 40, "hidden": 14, "false_alarm": 13, "noisy": 13}
    assert [t.task for t in edition2_tasks()] == [t.task for t in TASKS]
    assert [t.task for t in edition2_tasks(seed=1)] != [t.task for t in TASKS]


def test_on_a_floorless_task_the_validity_aware_executor_is_beaten_or_does_doomed_work():
    hidden = next(t.task for t in TASKS if t.task.family == "hidden")
    aware = run_task(hidden, get_policy(VALIDITY_AWARE))
    clean = run_task(AgentTask("random", "random", hidden.params), get_policy(VALIDITY_AWARE))
    assert aware.pre_failure_work > 0 or task_cost(aware) > task_cost(clean)
    first = next(t.task for t in TASKS if t.task.family == "random" and t.stale_fact)
    assert not floorless(first)


def test_an_unfinished_run_costs_twice_its_budget():
    task = TASKS[0].task
    result = run_task(task, get_policy(VALIDITY_AWARE))
    assert task_cost(result) == (result.steps_used if result.completed else 2 * result.budget)
    assert task_cost(replace(result, completed=False)) == 2 * result.budget


def test_a_cell_records_four_arms_and_their_probes_with_its_order_and_pure_settings():
    task = next(t for t in TASKS if t.stale_fact)
    model = RandomAnswers(0, task_setup(task.task).plan.facts)
    lines = [json.loads(line) for line in run_cell(model, task, 2)]
    arms = [line["arm"] for line in lines if not (line["decision"] or {}).get("probe")]
    assert set(arms) == {"transcript", "labelled", "told", "enforced"}
    assert {line["run"] for line in lines} == {cell_name(task, 2)}
    assert all(line["settings"]["evaluation"] == "pure" for line in lines)
    assert all(line["task"]["order"] == 2 for line in lines)
    decisions = [line for line in lines if not (line["decision"] or {}).get("probe")]
    assert all(line["decision"]["order"] == list(OPTION_ORDERS[2]) for line in decisions)
    probes = [line for line in lines if (line["decision"] or {}).get("probe")]
    for probe in probes:
        assert {"precision", "recall", "hits", "named", "right", "correct"} <= set(probe["decision"])
    first = {arm: next(line for line in lines if line["arm"] == arm) for arm in ("told", "enforced")}
    assert first["told"]["prompt"] == first["enforced"]["prompt"]


def test_a_repeated_pure_prompt_is_answered_once_per_group():
    inner = RandomAnswers(0, ["F1"])
    memo = PromptMemo(inner)
    pure = GenerationSettings(max_tokens=4, evaluation="pure")
    cached = GenerationSettings(max_tokens=4)
    turns = [("user", "t=0. Step 1 of 1")]
    first = memo.complete(turns, pure)
    assert [memo.complete(turns, pure) for _ in range(3)] == [first] * 3
    assert (memo.computed, memo.reused, inner.calls) == (1, 3, 1)
    memo.complete(turns, cached)
    memo.complete(turns, cached)
    assert inner.calls == 3
    fresh = GenerationSettings(max_tokens=4, evaluation="fresh")
    memo.complete(turns, fresh)
    memo.complete(turns, fresh)
    assert inner.calls == 4 and memo.reused == 4
    memo.reset()
    memo.complete(turns, pure)
    assert inner.calls == 5


def test_the_evaluation_setting_is_recorded_only_when_pure_and_checked():
    assert "evaluation" not in GenerationSettings(max_tokens=4).to_dict()
    pure = GenerationSettings(max_tokens=4, evaluation="pure")
    assert pure.to_dict()["evaluation"] == "pure"
    assert GenerationSettings.from_dict(pure.to_dict()) == pure
    assert GenerationSettings(max_tokens=4, evaluation="fresh").to_dict()["evaluation"] == "fresh"
    with pytest.raises(ParameterError, match="evaluation must be one of cached, pure, fresh, aligned, got 'batched'"):
        GenerationSettings(max_tokens=4, evaluation="batched")


def test_the_recorder_takes_a_tasks_orders_together_and_resumes(tmp_path):
    out = tmp_path / "agent_study_2.scripted.jsonl.gz"
    tasks = TASKS[:2]
    model = RandomAnswers(0, sorted({f for t in tasks for f in task_setup(t.task).plan.facts}))
    model.identity = ModelIdentity("scripted.gguf", "1" * 64, "scripted", "1")
    with opened_as(edition2, model):
        assert record_edition2("scripted", out, tasks[:1], progress=False) == (3, 0)
        assert record_edition2("scripted", out, tasks, progress=False) == (3, 3)
    assert recorded_cells(out) == {cell_name(t, o) for t in tasks for o in range(3)}
    runs = [r.run for r in read_recording(out)]
    assert runs.index(cell_name(tasks[0], 2)) < runs.index(cell_name(tasks[1], 0))



def test_a_recording_keeps_the_evaluation_it_started_with(tmp_path):
    out = tmp_path / "agent_study_2.scripted.jsonl.gz"
    model = RandomAnswers(0, sorted(task_setup(TASKS[0].task).plan.facts))
    model.identity = ModelIdentity("scripted.gguf", "1" * 64, "scripted", "1")
    with opened_as(edition2, model):
        assert record_edition2("scripted", out, TASKS[:1], orders=(0,), progress=False, evaluation="aligned") == (1, 0)
        with pytest.raises(ParameterError, match="recorded under aligned evaluation; resuming it under pure"):
            record_edition2("scripted", out, TASKS[:2], orders=(0,), progress=False)
        with pytest.raises(ParameterError, match="evaluation must be pure or aligned .* got 'cached'"):
            record_edition2("scripted", out, TASKS[:2], orders=(0,), progress=False, evaluation="cached")
    settings = [r.settings for r in read_recording(out)]
    assert {(s.evaluation, s.batch_size) for s in settings} == {("aligned", edition2.ALIGNED_BATCH)}

class PromptHash(ScriptedModel):
    """Answers from its prompt alone (a pure model), counting the calls it computes."""

    identity = ModelIdentity("pure.gguf", "2" * 64, "scripted", "1")

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, settings) -> str:
        self.calls += 1
        if "Before you reply" in messages[-1][1]:
            return "NONE"
        return ("EXECUTE", "REPLAN")[hash(json.dumps(messages)) % 2]


def test_verify_regenerates_a_pure_call_alone(tmp_path):
    from cvlib.models.verify import verify_recording

    out = tmp_path / "agent_study_2.pure.jsonl.gz"
    model = PromptHash()
    with opened_as(edition2, model):
        record_edition2("pure", out, TASKS[:1], orders=(0,), progress=False)
    total = len(read_recording(out))
    checker = PromptHash()
    report = verify_recording(out, sample=3, model="pure", opener=lambda spec: checker)
    assert report.identical and report.same == 3
    assert report.generated == 3 == checker.calls < total


def test_a_second_recorder_on_the_same_file_stops_with_one_line(tmp_path):
    from cvlib.models.errors import RecordingError
    from cvlib.models.recording import sole_recorder

    out = tmp_path / "agent_study_2.x.jsonl.gz"
    with sole_recorder(out), pytest.raises(RecordingError, match="another recorder is writing"):
        record_edition2("x", out, TASKS[:1], progress=False)
    with sole_recorder(out):
        pass
