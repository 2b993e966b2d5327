"""Settings, recordings and replay: a recorded call answers again exactly, an unrecorded one is refused."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from cvlib.core.errors import CvlibError, ParameterError
from cvlib.models import (
    FIELDS,
    GenerationSettings,
    ModelIdentity,
    Recorder,
    RecordingDamagedError,
    RecordingError,
    ReplayModel,
    UnrecordedCallError,
    compact,
    read_recording,
    recorded_tasks,
    recording_header,
)

SETTINGS = GenerationSettings(max_tokens=8, stop=("\n",))


class EchoModel:
    """A deterministic stand-in: answers with the last turn reversed."""

    identity = ModelIdentity("echo.gguf", "ab" * 32, "echo", "1")

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, settings):
        self.calls += 1
        return messages[-1][1][::-1][: settings.max_tokens]


def _record(path: Path, prompts: list[str], arm: str = "a") -> None:
    recorder = Recorder(EchoModel(), path, experiment="demo")
    for k, text in enumerate(prompts):
        response = recorder.complete([("system", "s"), ("user", text)], SETTINGS)
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
    assert replay.complete([("system", "s"), ("user", "world")], SETTINGS) == "dlrow"
    with pytest.raises(UnrecordedCallError, match="no call with this prompt"):
        replay.complete([("system", "s"), ("user", "other")], SETTINGS)
    with pytest.raises(UnrecordedCallError):  # same prompt, other settings
        replay.complete([("system", "s"), ("user", "world")], GenerationSettings(max_tokens=9, stop=("\n",)))
    with pytest.raises(UnrecordedCallError, match="no call to the model"):
        ReplayModel(path, model_sha256="cd" * 32)


def test_a_recorder_around_replay_writes_the_same_lines(tmp_path: Path) -> None:
    first = tmp_path / "r.jsonl"
    _record(first, ["hello", "world"])
    again = tmp_path / "again.jsonl"
    recorder = Recorder(ReplayModel(first), again, experiment="demo")
    for k, text in enumerate(["hello", "world"]):
        response = recorder.complete([("system", "s"), ("user", text)], SETTINGS)
        recorder.record(arm="a", task={"id": k}, step=None, decision=response.upper(), outcome={"ok": True})
    recorder.flush()
    assert again.read_text() == first.read_text()


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_a_cut_last_line_is_reported_and_resume_drops_it(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    _record(path, ["hello", "world"])
    whole = path.read_bytes()
    if name.endswith(".gz"):
        with path.open("ab") as fh:  # a kill mid-write: half of a gzip member
            fh.write(gzip.compress(b'{"experiment": "demo", "arm": "a"}\n')[:20])
    else:
        with path.open("a") as fh:
            fh.write('{"experiment": "demo", "arm"')
    with pytest.raises(RecordingDamagedError, match="line 3 is cut short") as caught:
        read_recording(path)
    assert caught.value.line == 3
    assert len(read_recording(path, allow_cut_tail=True)) == 2
    assert recorded_tasks(path) == {("a", '{"id":0}'), ("a", '{"id":1}')}
    _record(path, ["again"], arm="b")  # appending repairs the tail first
    assert [r.arm for r in read_recording(path)] == ["a", "a", "b"]
    assert path.read_bytes().startswith(whole[:10])


def test_a_gzip_recording_reads_as_the_plain_one_and_compacts(tmp_path: Path) -> None:
    plain, packed = tmp_path / "r.jsonl", tmp_path / "r.jsonl.gz"
    for path in (plain, packed):
        _record(path, ["hello", "world"])
        _record(path, ["again"], arm="b")
    assert [r.to_dict() for r in read_recording(plain)] == [r.to_dict() for r in read_recording(packed)]
    before = packed.stat().st_size
    assert compact(packed) <= before
    assert [r.to_dict() for r in read_recording(packed)] == [r.to_dict() for r in read_recording(plain)]
    lines = [json.loads(line) for line in gzip.open(packed, "rt", encoding="utf-8")]  # a reader's own script
    assert [line["response"] for line in lines] == ["olleh", "dlrow", "niaga"]


def test_a_header_names_the_resume_command_in_the_damage_report(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    recorder = Recorder(EchoModel(), path, experiment="demo", resume="python record.py --model echo")
    recorder.complete([("user", "x")], SETTINGS)
    recorder.record(arm="a", task={"id": 0}, step=None, decision=None, outcome=None)
    recorder.flush()
    assert recording_header(path)["resume"] == "python record.py --model echo"
    assert len(read_recording(path)) == 1
    with path.open("a") as fh:
        fh.write('{"experiment"')
    with pytest.raises(RecordingDamagedError, match=r"line 3 is cut short.*resume it with: python record.py --model echo"):
        read_recording(path)


def test_recorder_refuses_misuse(tmp_path: Path) -> None:
    recorder = Recorder(EchoModel(), tmp_path / "r.jsonl", experiment="demo")
    with pytest.raises(RecordingError, match="no call to record"):
        recorder.record(arm=None, task="t", step=None, decision=None, outcome=None)
    recorder.complete([("user", "x")], SETTINGS)
    with pytest.raises(RecordingError, match="not recorded"):
        recorder.complete([("user", "y")], SETTINGS)
    recorder.discard()
    with pytest.raises(ParameterError, match="role one of system"):
        recorder.complete([("robot", "x")], SETTINGS)


def test_bad_recordings_fail_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="does not exist"):
        read_recording(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"experiment": "x"}\n')
    with pytest.raises(RecordingError, match="line 1: a recorded call lacks the fields"):
        read_recording(bad)
    assert issubclass(RecordingError, CvlibError)
