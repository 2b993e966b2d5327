"""The second edition's design as code: groups in a pairing order, a reset per group, a resumable recorder, the frozen reader's identity."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study import ARMS, STALE_ARMS
from cvlib.experiments.notes_study import second_design as sd
from cvlib.experiments.notes_study.reader_identity import READER_FILES, reader_digest, reader_file_digests
from cvlib.experiments.notes_study.second_tasks import load_second_edition
from cvlib.models import ModelIdentity, read_recording, recording_header
from tests._scripted_models import ScriptedModel, StaleUnlessRefuted, first_tasks_groups

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "model_trials"
EDITION = load_second_edition(DATA)


class ReturnsTheLastBlock(ScriptedModel):
    """Answers every prompt with its last code block (the named function) unchanged, counting resets and calls."""

    identity = ModelIdentity("last.gguf", "f" * 64, "last", "1")

    def __init__(self) -> None:
        self.resets, self.calls = 0, 0

    def reset(self) -> None:
        self.resets += 1

    def complete(self, messages, settings) -> str:
        self.calls += 1
        user = messages[-1][1]
        return user[user.rindex("```python\n"):]


def test_groups_run_repeat_by_repeat_and_task_by_task_with_the_variants_together() -> None:
    plan = sd.study_groups(EDITION.tasks, EDITION.refutations, EDITION.rules, (0, 1))
    keys = [(g.repeat, g.task.id) for g in plan]
    assert keys == sorted(keys, key=lambda k: (k[0], [t.id for t in sd.study_order(EDITION.tasks)].index(k[1])))
    first = [g for g in plan if g.repeat == 0]
    per_task = {}
    for g in first:
        per_task.setdefault(g.task.id, []).append(g.variant)
    assert all(v[0] == "unrefutable" for v in per_task.values()) and len(per_task) == len(EDITION.tasks)
    assert sum(len(v) == 3 for v in per_task.values()) >= 55
    names = [sd.group_name(g.task, g.variant, g.repeat) for g in plan]
    assert len(set(names)) == len(names)


def test_settings_arms_and_seeds_per_repeat() -> None:
    task = EDITION.tasks[0]
    assert sd.second_settings(task, "placebo", 0).temperature == 0 and sd.second_settings(task, "placebo", 0).context_size == 4096
    one, two = sd.second_settings(task, "placebo", 1), sd.second_settings(task, "placebo", 2)
    assert one.temperature == sd.SAMPLED_TEMPERATURE and one.seed != two.seed
    assert sd.second_settings(task, "placebo", 1) == one
    assert sd.group_arms(0) == ARMS and sd.group_arms(2) == STALE_ARMS
    assert sd.PLANS["qwen2.5-coder-1.5b"] == sd.PLANS["qwen2.5-coder-0.5b"] == (0, 1, 2)


def test_the_recorder_resets_per_group_writes_groups_whole_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ReturnsTheLastBlock()
    monkeypatch.setattr(sd, "open_model", lambda spec: model)
    out = tmp_path / "notes_study_2.last.jsonl.gz"
    plan = first_tasks_groups(EDITION, (0,), 1)
    assert sd.record_second("last", out, plan, progress=False, resume="python x.py") == (len(plan), 0)
    records = read_recording(out)
    assert len(records) == 6 * len(plan) and model.resets == len(plan)
    assert {r.outcome["reading"]["outcome"] for r in records} == {"unchanged"}
    assert [r.run for r in records][::6] == [sd.group_name(g.task, g.variant, g.repeat) for g in plan]
    more = first_tasks_groups(EDITION, (0, 1), 1)
    assert sd.record_second("last", out, more, progress=False) == (len(more) - len(plan), len(plan))
    assert recording_header(out)["resume"] == "python x.py"
    assert sum(r.task["repeat"] == 1 for r in read_recording(out)) == 3 * (len(more) - len(plan))


def test_workers_write_the_file_one_worker_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sd, "open_model", lambda spec: ReturnsTheLastBlock())
    plan = first_tasks_groups(EDITION, (0,), 2)
    files = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}" / "notes_study_2.last.jsonl.gz"
        out.parent.mkdir()
        sd.record_second("last", out, plan, progress=False, workers=workers)
        files.append([(r.run, r.arm, r.response) for r in read_recording(out)])
    assert files[0] == files[1]
    with pytest.raises(ParameterError, match="workers"):
        sd.record_second("last", tmp_path / "x.jsonl.gz", plan, progress=False, workers=0)
    with pytest.raises(ParameterError, match="names a group twice"):
        sd.record_second("last", tmp_path / "y.jsonl.gz", plan + plan[:1], progress=False)


def test_the_frozen_reader_is_the_one_the_preregistration_names() -> None:
    text = (DATA / "preregistration_part4.md").read_text(encoding="utf-8")
    named = re.search(r"reader SHA-256: `([0-9a-f]{64})`", text)
    assert named, "preregistration_part4.md must name the reader's SHA-256"
    assert named.group(1) == reader_digest(ROOT), (
        "a file of the frozen reader changed after the pre-registration: "
        "python -m cvlib.experiments.notes_study.reader_identity prints the new digests"
    )
    assert all(name in text for name in READER_FILES)
    assert len(reader_file_digests(ROOT)) == len(READER_FILES)


def test_the_analysis_reads_n1_and_the_check_from_a_recording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cvlib.experiments.notes_study.second_analysis import read_second_outcomes, refutability

    monkeypatch.setattr(sd, "open_model", lambda spec: StaleUnlessRefuted(EDITION))
    candidates = first_tasks_groups(EDITION, (0,), 12)
    with_placebo = {g.task.id for g in candidates if g.variant == "placebo"}
    plan = [g for g in candidates if g.task.id in with_placebo]
    out = tmp_path / "notes_study_2.rule.jsonl.gz"
    sd.record_second("rule", out, plan, progress=False)
    outcomes = read_second_outcomes([out], EDITION, name="rule")
    assert set(outcomes["variant"]) == {"unrefutable", "refutable", "placebo"}
    assert (outcomes[outcomes["arm"] == "control"]["outcome"] == "declined").all()
    assert not outcomes["echo"].any()
    table = refutability(outcomes).set_index(["contrast", "arm"])
    n1 = table.loc[("refutable − placebo", "dependency_changed")]
    assert n1["mean"] == -1.0 and n1["high"] == -1.0 and n1["read"]
    placebo = table.loc[("placebo − unrefutable", "dependency_changed")]
    assert placebo["mean"] == 0.0 and placebo["verdict"] in ("equivalent", "too few tasks")
    assert (outcomes["strict"][outcomes["outcome"] == "stale_edit"] == "stale_edit").all()
