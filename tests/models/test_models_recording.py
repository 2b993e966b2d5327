"""Settings, recordings and replay: a recorded call answers again exactly, an unrecorded one is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cvlib.core.errors import CvlibError, ParameterError
from cvlib.models import (
    FIELDS,
    GenerationSettings,
    ModelIdentity,
    Recorder,
    RecordingError,
    ReplayModel,
    UnrecordedCallError,
    read_recording,
    recorded_tasks,
)

SETTINGS = GenerationSettings(max_tokens=8, stop=("\n",))


class EchoModel:
    """A deterministic stand-in: answers with the last turn reversed."""

    identity = ModelIdentity("echo.gguf", "ab" * 32, "echo", "1")

    def __init__(self) -> None:
        self.calls = 0

    def generate(self, messages, settings):
        self.calls += 1
        return messages[-1][1][::-1][: settings.max_tokens]


def _record(path: Path, prompts: list[str], arm: str = "a") -> None:
    recorder = Recorder(EchoModel(), path, experiment="demo")
    for k, text in enumerate(prompts):
        response = recorder.generate([("system", "s"), ("user", text)], SETTINGS)
        recorder.record(arm=arm, task={"id": k}, step=None, decision=response.upper(), outcome={"ok": True})
    recorder.flush()


def test_settings_are_checked_and_round_trip() -> None:
    assert GenerationSettings.from_dict(SETTINGS.to_dict()) == SETTINGS
    assert SETTINGS.temperature == 0.0 and SETTINGS.threads == 1
    with pytest.raises(ParameterError, match="max_tokens"):
        GenerationSettings(max_tokens=0)
    with pytest.raises(ParameterError, match="stop"):
        GenerationSettings(max_tokens=4, stop="\n")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="expected the keys"):
        GenerationSettings.from_dict({"max_tokens": 4, "top_p": 0.9})


def test_every_line_has_the_fields_in_order(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    _record(path, ["hello", "world"])
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    for line in lines:
        assert tuple(json.loads(line)) == FIELDS
    first = json.loads(lines[0])
    assert first["response"] == "olleh" and first["model_sha256"] == "ab" * 32
    assert first["runtime"] == {"name": "echo", "version": "1"}


def test_replay_answers_recorded_calls_and_refuses_others(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    _record(path, ["hello", "world"])
    replay = ReplayModel(path)
    assert replay.identity == EchoModel.identity
    assert replay.generate([("system", "s"), ("user", "world")], SETTINGS) == "dlrow"
    with pytest.raises(UnrecordedCallError, match="no call with this prompt"):
        replay.generate([("system", "s"), ("user", "other")], SETTINGS)
    with pytest.raises(UnrecordedCallError):  # same prompt, other settings
        replay.generate([("system", "s"), ("user", "world")], GenerationSettings(max_tokens=9, stop=("\n",)))
    with pytest.raises(UnrecordedCallError, match="no call to the model"):
        ReplayModel(path, model_sha256="cd" * 32)


def test_a_recorder_around_replay_writes_the_same_lines(tmp_path: Path) -> None:
    first = tmp_path / "r.jsonl"
    _record(first, ["hello", "world"])
    again = tmp_path / "again.jsonl"
    recorder = Recorder(ReplayModel(first), again, experiment="demo")
    for k, text in enumerate(["hello", "world"]):
        response = recorder.generate([("system", "s"), ("user", text)], SETTINGS)
        recorder.record(arm="a", task={"id": k}, step=None, decision=response.upper(), outcome={"ok": True})
    recorder.flush()
    assert again.read_text() == first.read_text()


def test_a_cut_last_line_is_dropped_and_resume_sees_whole_tasks(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    _record(path, ["hello", "world"])
    with path.open("a") as fh:
        fh.write('{"experiment": "demo", "arm"')  # a kill mid-write
    assert len(read_recording(path)) == 2
    assert recorded_tasks(path) == {("a", '{"id":0}'), ("a", '{"id":1}')}
    _record(path, ["again"], arm="b")  # appending repairs the tail first
    assert [r.arm for r in read_recording(path)] == ["a", "a", "b"]


def test_recorder_refuses_misuse(tmp_path: Path) -> None:
    recorder = Recorder(EchoModel(), tmp_path / "r.jsonl", experiment="demo")
    with pytest.raises(RecordingError, match="no call to record"):
        recorder.record(arm=None, task="t", step=None, decision=None, outcome=None)
    recorder.generate([("user", "x")], SETTINGS)
    with pytest.raises(RecordingError, match="not recorded"):
        recorder.generate([("user", "y")], SETTINGS)
    recorder.discard()
    with pytest.raises(ParameterError, match="role one of system"):
        recorder.generate([("robot", "x")], SETTINGS)


def test_bad_recordings_fail_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="does not exist"):
        read_recording(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"experiment": "x"}\n')
    with pytest.raises(RecordingError, match="line 1: a recorded call lacks the fields"):
        read_recording(bad)
    assert issubclass(RecordingError, CvlibError)
