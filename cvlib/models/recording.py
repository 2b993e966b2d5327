"""Recordings: every call to a model as one JSON line, and a model that answers from them.

A recorded call holds everything that decided the answer and everything the
caller made of it: ``experiment``, ``arm``, ``task`` (a scenario and its
parameters, or a task id), ``step`` (a position in an agent's run; null
otherwise), ``model`` (the file's name), ``model_sha256``, ``runtime`` (name
and version), ``settings``, ``prompt`` (the chat turns), ``response``,
``decision`` (the response as code parsed it) and ``outcome`` (what followed).
The chapters read only these files, so the book builds without a model; a
reader can re-derive every figure from the lines, and
``cvlib models verify`` re-generates any of them.

Lines of one task are written together (:meth:`Recorder.flush`), so a
recording killed mid-task holds only whole tasks and a restart redoes the
unfinished one; a line cut short by the kill is dropped when the file is
opened again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cvlib.models.errors import RecordingError, UnrecordedCallError
from cvlib.models.interface import LanguageModel
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity, check_messages

__all__ = [
    "FIELDS",
    "CallRecord",
    "Recorder",
    "ReplayModel",
    "append_lines",
    "call_key",
    "canonical",
    "read_recording",
    "recorded_tasks",
]

#: The fields of every recorded call, in the order they are written.
FIELDS = (
    "experiment",
    "arm",
    "task",
    "step",
    "model",
    "model_sha256",
    "runtime",
    "settings",
    "prompt",
    "response",
    "decision",
    "outcome",
)


def canonical(value: Any) -> str:
    """``value`` as canonical JSON (sorted keys, no spaces): equal values give equal strings.

    Parameters
    ----------
    value : object
        A JSON-ready value.

    Returns
    -------
    str
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def call_key(model_sha256: str, settings: GenerationSettings, messages: Sequence[Message]) -> str:
    """What identifies a call for replay: the model, the settings and the prompt.

    Parameters
    ----------
    model_sha256 : str
        The model file's SHA-256.
    settings : GenerationSettings
        The settings.
    messages : sequence of (str, str)
        The prompt.

    Returns
    -------
    str
    """
    return canonical([model_sha256, settings.to_dict(), [list(m) for m in messages]])


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One recorded call (see the module docstring for the fields)."""

    experiment: str
    arm: str | None
    task: Any
    step: int | None
    model: str
    model_sha256: str
    runtime: Mapping[str, str]
    settings: GenerationSettings
    prompt: tuple[Message, ...]
    response: str
    decision: Any
    outcome: Any

    @property
    def identity(self) -> ModelIdentity:
        """The model that answered."""
        return ModelIdentity(self.model, self.model_sha256, self.runtime["name"], self.runtime["version"])

    @property
    def key(self) -> str:
        """The call's replay key (:func:`call_key`)."""
        return call_key(self.model_sha256, self.settings, self.prompt)

    def to_dict(self) -> dict[str, Any]:
        """The record as one JSON-ready mapping, fields in :data:`FIELDS` order.

        Returns
        -------
        dict
        """
        return {
            "experiment": self.experiment,
            "arm": self.arm,
            "task": self.task,
            "step": self.step,
            "model": self.model,
            "model_sha256": self.model_sha256,
            "runtime": dict(self.runtime),
            "settings": self.settings.to_dict(),
            "prompt": [list(m) for m in self.prompt],
            "response": self.response,
            "decision": self.decision,
            "outcome": self.outcome,
        }

    def to_json(self) -> str:
        """The record as one line of JSON (no newline).

        Returns
        -------
        str
        """
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CallRecord:
        """A record read back from one line.

        Parameters
        ----------
        data : Mapping
            One parsed line.

        Returns
        -------
        CallRecord
        """
        missing = [f for f in FIELDS if f not in data]
        if missing:
            raise RecordingError(f"a recorded call lacks the fields {', '.join(missing)}")
        runtime = data["runtime"]
        if not isinstance(runtime, Mapping) or {"name", "version"} - set(runtime):
            raise RecordingError(f"a recorded call's runtime is {runtime!r}; expected {{name, version}}")
        return cls(
            experiment=str(data["experiment"]),
            arm=data["arm"],
            task=data["task"],
            step=data["step"],
            model=str(data["model"]),
            model_sha256=str(data["model_sha256"]),
            runtime={"name": str(runtime["name"]), "version": str(runtime["version"])},
            settings=GenerationSettings.from_dict(data["settings"]),
            prompt=check_messages([tuple(m) for m in data["prompt"]]),
            response=str(data["response"]),
            decision=data["decision"],
            outcome=data["outcome"],
        )


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if line.endswith("\n") and line.strip():
                yield number, line


def read_recording(path: str | os.PathLike[str]) -> list[CallRecord]:
    """Every whole call recorded in ``path``, in order (a last line cut short by a kill is left out).

    Parameters
    ----------
    path : str or os.PathLike
        A JSON Lines recording.

    Returns
    -------
    list of CallRecord
    """
    p = Path(path)
    if not p.is_file():
        raise RecordingError(f"recording {str(p)!r} does not exist")
    out = []
    for number, line in _lines(p):
        try:
            data = json.loads(line)
        except ValueError:
            raise RecordingError(f"{p.name} line {number} is not JSON") from None
        if not isinstance(data, dict):
            raise RecordingError(f"{p.name} line {number} is not a recorded call")
        try:
            out.append(CallRecord.from_dict(data))
        except RecordingError as exc:
            raise RecordingError(f"{p.name} line {number}: {exc}") from None
    return out


def recorded_tasks(path: str | os.PathLike[str], experiment: str | None = None) -> set[tuple[str | None, str]]:
    """``(arm, canonical task)`` of every task with a line in ``path``: what a resumed recording skips.

    Parameters
    ----------
    path : str or os.PathLike
        A recording (a missing file holds no task).
    experiment : str, optional
        Only this experiment's tasks.

    Returns
    -------
    set of (str or None, str)
    """
    if not Path(path).is_file():
        return set()
    return {
        (r.arm, canonical(r.task))
        for r in read_recording(path)
        if experiment is None or r.experiment == experiment
    }


def append_lines(path: str | os.PathLike[str], lines: Sequence[str]) -> None:
    """Append whole JSON lines to a recording in one write, flushed to disk (a kill leaves whole lines or a cut last one).

    Parameters
    ----------
    path : str or os.PathLike
        The recording.
    lines : sequence of str
        Lines without their newline.
    """
    if not lines:
        return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    _repair_tail(p)
    with p.open("a", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in lines))
        fh.flush()
        os.fsync(fh.fileno())


def _repair_tail(path: Path) -> None:
    """Cut a last line that a kill left without its newline, so appending starts on a fresh line."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 1))
        if fh.read(1) == b"\n":
            return
        fh.seek(0)
        data = fh.read()
        fh.truncate(data.rfind(b"\n") + 1)


class Recorder:
    """A model whose every call becomes a :class:`CallRecord`, written to a JSON Lines file.

    The caller asks as of any model (:meth:`generate`), then says what the
    answer meant (:meth:`record`: arm, task, step, decision, outcome) and
    writes the task's records in one go (:meth:`flush`).

    Parameters
    ----------
    model : LanguageModel
        The model that answers (live, or a :class:`ReplayModel`).
    path : str or os.PathLike or None
        The recording; appended to (a line cut short by a kill is removed first). None: the
        records are only handed back by :meth:`take` (a worker process whose parent writes).
    experiment : str
        The experiment every record belongs to.
    """

    def __init__(self, model: LanguageModel, path: str | os.PathLike[str] | None, experiment: str) -> None:
        if not isinstance(experiment, str) or not experiment:
            raise RecordingError(f"a recording needs an experiment name, got {experiment!r}")
        self.model = model
        self.path = Path(path) if path is not None else None
        self.experiment = experiment
        self._open: tuple[tuple[Message, ...], GenerationSettings, str] | None = None
        self._pending: list[CallRecord] = []
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _repair_tail(self.path)

    @property
    def identity(self) -> ModelIdentity:
        """The wrapped model's identity."""
        return self.model.identity

    @property
    def pending(self) -> tuple[CallRecord, ...]:
        """Records made but not yet written."""
        return tuple(self._pending)

    def generate(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """Ask the wrapped model; the call stays open until :meth:`record` says what it meant.

        Parameters
        ----------
        messages : sequence of (str, str)
            Chat turns.
        settings : GenerationSettings
            How to generate.

        Returns
        -------
        str
        """
        if self._open is not None:
            raise RecordingError("the previous call was not recorded: call Recorder.record before asking again")
        turns = check_messages(messages)
        response = self.model.generate(turns, settings)
        self._open = (turns, settings, response)
        return response

    def record(self, *, arm: str | None, task: Any, step: int | None, decision: Any, outcome: Any) -> CallRecord:
        """Close the open call with what the caller made of it; it is written by the next :meth:`flush`.

        Parameters
        ----------
        arm : str or None
            The experiment's arm.
        task : object
            The task (JSON-ready: a scenario and its parameters, or a task id).
        step : int or None
            The step of an agent's run, or None.
        decision : object
            The answer as code parsed it.
        outcome : object
            What followed (JSON-ready).

        Returns
        -------
        CallRecord
        """
        if self._open is None:
            raise RecordingError("no call to record: Recorder.record follows Recorder.generate")
        turns, settings, response = self._open
        identity = self.model.identity
        record = CallRecord(
            experiment=self.experiment,
            arm=arm,
            task=task,
            step=step,
            model=identity.file_name,
            model_sha256=identity.sha256,
            runtime={"name": identity.runtime, "version": identity.runtime_version},
            settings=settings,
            prompt=turns,
            response=response,
            decision=decision,
            outcome=outcome,
        )
        self._open = None
        self._pending.append(record)
        return record

    def take(self, extra_outcome: Mapping[str, Any] | None = None) -> list[CallRecord]:
        """Hand back every pending record (and forget them), without writing.

        Parameters
        ----------
        extra_outcome : Mapping, optional
            Merged into each pending record's outcome (a mapping), e.g. the whole run's result.

        Returns
        -------
        list of CallRecord
        """
        if self._open is not None:
            raise RecordingError("a call is still open: record it before flushing")
        records = self._pending
        if extra_outcome:
            records = [replace(r, outcome={**(r.outcome or {}), **extra_outcome}) for r in records]
        self._pending = []
        return records

    def flush(self, extra_outcome: Mapping[str, Any] | None = None) -> int:
        """Write every pending record as one line each, in one write; return how many.

        Parameters
        ----------
        extra_outcome : Mapping, optional
            Merged into each pending record's outcome (a mapping), e.g. the whole run's result.

        Returns
        -------
        int
        """
        if self.path is None:
            raise RecordingError("this recorder has no file: use Recorder.take")
        records = self.take(extra_outcome)
        append_lines(self.path, [r.to_json() for r in records])
        return len(records)

    def discard(self) -> None:
        """Drop the open call and every pending record (a task abandoned half-way)."""
        self._open = None
        self._pending = []


class ReplayModel:
    """A model that answers from a recording and refuses, in one line, any call the recording does not hold.

    Parameters
    ----------
    recording : str or os.PathLike
        A recording.
    model_sha256 : str, optional
        Which recorded model to be, when the recording holds more than one.
    """

    def __init__(self, recording: str | os.PathLike[str], model_sha256: str | None = None) -> None:
        self.path = Path(recording)
        records = read_recording(self.path)
        models = {r.model_sha256: r.identity for r in records}
        if not models:
            raise RecordingError(f"recording {self.path.name!r} holds no call")
        if model_sha256 is None:
            if len(models) > 1:
                raise RecordingError(
                    f"recording {self.path.name!r} holds {len(models)} models; pass model_sha256, one of "
                    + ", ".join(sorted(models))
                )
            model_sha256 = next(iter(models))
        if model_sha256 not in models:
            raise UnrecordedCallError(
                f"recording {self.path.name!r} holds no call to the model with SHA-256 {model_sha256}"
            )
        self._identity = models[model_sha256]
        self._answers: dict[str, str] = {}
        for r in records:
            if r.model_sha256 == model_sha256:
                self._answers.setdefault(r.key, r.response)

    @property
    def identity(self) -> ModelIdentity:
        """The recorded model's identity, as recorded."""
        return self._identity

    def __len__(self) -> int:
        return len(self._answers)

    def generate(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """The recorded answer to exactly this prompt and these settings.

        Parameters
        ----------
        messages : sequence of (str, str)
            Chat turns.
        settings : GenerationSettings
            How the call was made.

        Returns
        -------
        str
        """
        turns = check_messages(messages)
        key = call_key(self._identity.sha256, settings, turns)
        try:
            return self._answers[key]
        except KeyError:
            last = turns[-1][1].replace("\n", " ")
            raise UnrecordedCallError(
                f"recording {self.path.name!r} holds no call with this prompt and these settings for "
                f"{self._identity.file_name} (last turn starts {last[:60]!r})"
            ) from None
