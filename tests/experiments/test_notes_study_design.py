"""The pre-registered notes study as code: variants that share their prefix, repeats, groups, a resumable recorder."""

from __future__ import annotations

from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study import ARMS, STALE_ARMS, build_prompt, load_tasks
from cvlib.experiments.notes_study import design as nd
from cvlib.experiments.notes_study.refutations import DependencySource, Refutation
from cvlib.models import ModelIdentity, read_recording, recording_header

ROOT = Path(__file__).resolve().parents[2]
TASKS = load_tasks(ROOT / "data" / "model_trials" / "notes_tasks.yaml")


def refutation(task_id: str) -> Refutation:
    return Refutation(task_id, "p", "1.0", (DependencySource("p/m.py", "helper", "def helper():\n    return 1\n"),),
                      "def test_helper():\n    assert helper() == 1\n", ("p==1.0",),
                      {"original": "pass", "stale": "fail", "true": "pass"})


class EchoOriginal:
    """Answers every prompt with the task's function unchanged (it reads it back from the prompt)."""

    identity = ModelIdentity("echo.gguf", "e" * 64, "echo", "1")

    def __init__(self) -> None:
        self.resets, self.calls = 0, 0

    def prepare(self, settings) -> None:
        pass

    def reset(self) -> None:
        self.resets += 1

    def close(self) -> None:
        pass

    def complete(self, messages, settings) -> str:
        self.calls += 1
        user = messages[-1][1]
        start = user.index("```python\n")
        return user[start: user.index("\n```", start) + 4]


def test_the_unrefutable_prompt_is_the_first_recordings_prompt() -> None:
    task = TASKS[0]
    assert all(nd.study_prompt(task, arm, "unrefutable") == build_prompt(task, arm) for arm in ARMS)


def test_the_refutable_prompt_shares_the_function_then_adds_the_refutation() -> None:
    task = TASKS[3]
    prompts = [nd.study_prompt(task, arm, "refutable", refutation(task.id))[1][1] for arm in ARMS]
    shared = build_prompt(task, "control")[1][1]
    assert all(p.startswith(shared + "\n\nCode this function relies on") for p in prompts)
    assert all("def test_helper():" in p for p in prompts)
    assert prompts[ARMS.index("stale_labelled")].endswith(task.stale_note)


def test_settings_and_arms_per_repeat() -> None:
    task = TASKS[0]
    assert nd.study_settings(task, "unrefutable", 0).context_size == 2048
    assert nd.study_settings(task, "refutable", 0).context_size == 4096
    one, two = nd.study_settings(task, "refutable", 1), nd.study_settings(task, "refutable", 2)
    assert one.temperature == two.temperature == nd.SAMPLED_TEMPERATURE and one.seed != two.seed
    assert nd.study_settings(task, "refutable", 1) == one  # derived, not drawn
    assert nd.group_arms(0) == ARMS and nd.group_arms(1) == STALE_ARMS


def test_a_group_and_the_resumable_recorder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = EchoOriginal()
    monkeypatch.setattr(nd, "open_model", lambda spec: model)
    out = tmp_path / "notes_study.echo.jsonl.gz"
    refutations = {TASKS[0].id: refutation(TASKS[0].id)}
    plan = [("refutable", 0), ("refutable", 1)]
    assert nd.record_notes_study("echo", out, TASKS[:2], plan, refutations=refutations, effects={},
                                 progress=False, resume="python x.py") == (2, 0)  # only the task with a refutation
    records = read_recording(out)
    assert [r.arm for r in records] == [*ARMS, *STALE_ARMS] and model.resets == 2
    assert {r.outcome["reading"]["outcome"] for r in records} == {"unchanged"}
    assert all(r.task["variant"] == "refutable" for r in records)
    assert nd.record_notes_study("echo", out, TASKS[:2], [*plan, ("unrefutable", 0)], refutations=refutations,
                                 effects={}, progress=False) == (2, 2)
    assert len(nd.recorded_groups(out)) == 4
    assert recording_header(out)["resume"] == "python x.py"



def test_workers_write_the_file_one_worker_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Forked workers inherit the patched model; the groups come back and are written in plan order by the parent.
    monkeypatch.setattr(nd, "open_model", lambda spec: EchoOriginal())
    refutations = {t.id: refutation(t.id) for t in TASKS[:3]}
    plan = [("unrefutable", 1), ("refutable", 0)]
    files = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}" / "notes_study.echo.jsonl.gz"
        out.parent.mkdir()
        assert nd.record_notes_study("echo", out, TASKS[:3], plan, refutations=refutations, effects={},
                                     progress=False, workers=workers) == (6, 0)
        files.append([(r.task["id"], r.task["variant"], r.task["repeat"], r.arm, r.response) for r in read_recording(out)])
    assert files[0] == files[1]
    with pytest.raises(ParameterError, match="workers"):
        nd.record_notes_study("echo", tmp_path / "x.jsonl.gz", TASKS[:1], plan, refutations={}, effects={},
                              progress=False, workers=0)

def test_bad_variants_and_missing_refutations_are_refused() -> None:
    with pytest.raises(ParameterError, match="unknown notes variant"):
        nd.study_prompt(TASKS[0], "control", "half")
    with pytest.raises(ParameterError, match="needs its refutation"):
        nd.study_prompt(TASKS[0], "control", "refutable")
    empty = Refutation(TASKS[0].id, "p", "1", refutation(TASKS[0].id).dependency, "", (), {}, note="not observable")
    with pytest.raises(ParameterError, match="no refuting test"):
        nd.refuting_context(empty)


def test_the_recording_order_is_seeded_and_keeps_every_task() -> None:
    order = nd.study_order(TASKS)
    assert order == nd.study_order(list(reversed(TASKS)))  # the file's order does not matter
    assert sorted(t.id for t in order) == sorted(t.id for t in TASKS) and order != sorted(TASKS, key=lambda t: t.id)
