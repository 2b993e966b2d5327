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

Two optional fields came with the runtime of the study round: ``run``
names the group of calls a worker made back to back after a
:meth:`~cvlib.models.interface.LanguageModel.reset` (a task's arms, in order),
which is what :mod:`cvlib.models.verify` replays to re-generate any of them;
and a ``runtime`` of a model that is not content-addressed (a server's) says
so. A recording may begin with a header line ``{"recording": {...}}`` naming
the command that resumes it.

Lines of one task are written together (:meth:`Recorder.flush`), so a
recording killed mid-task holds only whole tasks and a restart redoes the
unfinished one; the recorder drops a line cut short by the kill before it
appends, and every other reader reports it (:mod:`cvlib.models.jsonl`).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cvlib.models.errors import RecordingDamagedError, RecordingError
from cvlib.models.interface import LanguageModel
from cvlib.models.jsonl import append_lines, read_lines, repair_tail
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity, check_messages

__all__ = [
    "FIELDS",
    "HEADER_KEY",
    "CallRecord",
    "Recorder",
    "append_lines",
    "call_key",
    "canonical",
    "quiet_progress",
    "read_recording",
    "recorded_tasks",
    "recording_header",
    "sole_recorder",
    "start_recording",
]

#: The one key of a recording's optional first line, the header.
HEADER_KEY = "recording"

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
        The model's key (:attr:`~cvlib.models.settings.ModelIdentity.key`: its file's SHA-256, when it has one).
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
    run: str | None = None

    @property
    def identity(self) -> ModelIdentity:
        """The model that answered."""
        addressed = self.runtime.get("content_addressed", "true") != "false"
        return ModelIdentity(self.model, self.model_sha256, self.runtime["name"], self.runtime["version"], addressed)

    @property
    def key(self) -> str:
        """The call's replay key (:func:`call_key`)."""
        return call_key(self.identity.key, self.settings, self.prompt)

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
            **({"run": self.run} if self.run is not None else {}),
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
        run = data.get("run")
        return cls(
            experiment=str(data["experiment"]),
            arm=data["arm"],
            task=data["task"],
            step=data["step"],
            model=str(data["model"]),
            model_sha256=str(data["model_sha256"]),
            runtime={str(k): str(v) for k, v in runtime.items()},
            settings=GenerationSettings.from_dict(data["settings"]),
            prompt=check_messages([tuple(m) for m in data["prompt"]]),
            response=str(data["response"]),
            decision=data["decision"],
            outcome=data["outcome"],
            run=None if run is None else str(run),
        )


def _parsed(path: Path, *, allow_cut_tail: bool, resume_hint: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in read_lines(path, allow_cut_tail=allow_cut_tail, resume_hint=resume_hint):
        try:
            data = json.loads(line)
        except ValueError:
            raise RecordingDamagedError(f"{path.name} line {number} is not JSON", number) from None
        if not isinstance(data, dict):
            raise RecordingDamagedError(f"{path.name} line {number} is not a recorded call", number)
        yield number, data


def recording_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The recording's header (its first line ``{"recording": {...}}``), or ``{}`` when it has none.

    Parameters
    ----------
    path : str or os.PathLike
        A recording.

    Returns
    -------
    dict
    """
    for _, data in _parsed(Path(path), allow_cut_tail=True, resume_hint=""):
        header = data.get(HEADER_KEY) if set(data) == {HEADER_KEY} else None
        return dict(header) if isinstance(header, Mapping) else {}
    return {}


def read_recording(path: str | os.PathLike[str], *, allow_cut_tail: bool = False) -> list[CallRecord]:
    """Every call recorded in ``path``, in order; a line cut short by a kill is an error naming its line.

    Parameters
    ----------
    path : str or os.PathLike
        A JSON Lines recording, plain or ``.gz``.
    allow_cut_tail : bool
        Leave a last line cut short out instead (what a recorder about to resume does).

    Returns
    -------
    list of CallRecord
    """
    p = Path(path)
    hint = str(recording_header(p).get("resume", "")) if p.is_file() else ""
    out = []
    for number, data in _parsed(p, allow_cut_tail=allow_cut_tail, resume_hint=hint):
        if set(data) == {HEADER_KEY}:
            continue
        try:
            out.append(CallRecord.from_dict(data))
        except (RecordingError, ValueError, TypeError) as exc:
            raise RecordingDamagedError(f"{p.name} line {number}: {exc}", number) from None
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
        for r in read_recording(path, allow_cut_tail=True)
        if experiment is None or r.experiment == experiment
    }


def start_recording(path: str | os.PathLike[str], experiment: str, resume: str) -> None:
    """Begin a new recording with its header line (the experiment and the command that resumes it); an existing one is left alone.

    Parameters
    ----------
    path : str or os.PathLike
        The recording.
    experiment : str
        The experiment its calls belong to.
    resume : str
        The command that resumes it, named when a damaged line is reported.
    """
    p = Path(path)
    if p.is_file() and p.stat().st_size > 0:
        return
    header = {HEADER_KEY: {"format": 2, "experiment": experiment, "resume": resume}}
    append_lines(p, [json.dumps(header, ensure_ascii=False)])


@contextmanager
def sole_recorder(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the recording for one recorder: a second recorder on the same file stops at once with one line.

    Two recorders appending to one file would each redo the other's groups and interleave them; a lock
    beside the file (``<file>.lock``, released when the recorder ends or is killed) prevents it.

    Parameters
    ----------
    path : str or os.PathLike
        The recording.

    Yields
    ------
    None
    """
    import fcntl

    lock = Path(os.fspath(path) + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RecordingError(f"another recorder is writing {os.fspath(path)!r}; let it finish or stop it first") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def quiet_progress() -> Iterator[None]:
    """Record from a chapter's notebook without tqdm's warning that the kernel has no progress widget.

    ``tqdm.auto`` warns "IProgress not found" in a kernel without ipywidgets
    even when the bar is switched off, and the warning would land in the
    chapter's output; a reader's own recording (each study's
    ``reader_recording``) is made inside this block.

    Yields
    ------
    None
        Only that warning is silenced, and only inside the ``with`` block.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found")
        yield


class Recorder:
    """A model whose every call becomes a :class:`CallRecord`, written to a JSON Lines file.

    The caller asks as of any model (:meth:`complete`), then says what the
    answer meant (:meth:`record`: arm, task, step, decision, outcome) and
    writes the task's records in one go (:meth:`flush`). :meth:`begin` starts a
    group of calls (a task's arms, back to back): the model forgets its
    computed prompt and every call until the next :meth:`begin` carries the
    group's name, so ``verify`` can replay the group from its first call.

    Parameters
    ----------
    model : LanguageModel
        The model that answers (live, or a replayed one).
    path : str or os.PathLike or None
        The recording; appended to (a line cut short by a kill is removed first). None: the
        records are only handed back by :meth:`take` (a worker process whose parent writes).
    experiment : str
        The experiment every record belongs to.
    resume : str
        The command that resumes this recording, written in a new file's header line.
    """

    def __init__(self, model: LanguageModel, path: str | os.PathLike[str] | None, experiment: str,
                 *, resume: str = "") -> None:
        if not isinstance(experiment, str) or not experiment:
            raise RecordingError(f"a recording needs an experiment name, got {experiment!r}")
        self.model = model
        self.path = Path(path) if path is not None else None
        self.experiment = experiment
        self._open: tuple[tuple[Message, ...], GenerationSettings, str] | None = None
        self._pending: list[CallRecord] = []
        self._run: str | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            repair_tail(self.path)
            if resume:
                start_recording(self.path, experiment, resume)

    @property
    def identity(self) -> ModelIdentity:
        """The wrapped model's identity."""
        return self.model.identity

    @property
    def pending(self) -> tuple[CallRecord, ...]:
        """Records made but not yet written."""
        return tuple(self._pending)

    def prepare(self, settings: GenerationSettings) -> None:
        """Prepare the wrapped model.

        Parameters
        ----------
        settings : GenerationSettings
            The settings of the calls to come.
        """
        self.model.prepare(settings)

    def reset(self) -> None:
        """Reset the wrapped model (the next call reads its whole prompt)."""
        self.model.reset()

    def close(self) -> None:
        """Close the wrapped model."""
        self.model.close()

    def begin(self, run: str) -> None:
        """Start the group of calls ``run``: the model reads the next prompt whole, and each record carries ``run``.

        Parameters
        ----------
        run : str
            The group's name, unique in the recording (e.g. the task and the repeat).
        """
        if not isinstance(run, str) or not run:
            raise RecordingError(f"a group of calls needs a name, got {run!r}")
        self.model.reset()
        self._run = run

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
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
        response = self.model.complete(turns, settings)
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
            raise RecordingError("no call to record: Recorder.record follows Recorder.complete")
        turns, settings, response = self._open
        identity = self.model.identity
        runtime = {"name": identity.runtime, "version": identity.runtime_version}
        if not identity.content_addressed:
            runtime["content_addressed"] = "false"
        record = CallRecord(
            experiment=self.experiment,
            arm=arm,
            task=task,
            step=step,
            model=identity.file_name,
            model_sha256=identity.sha256,
            runtime=runtime,
            settings=settings,
            prompt=turns,
            response=response,
            decision=decision,
            outcome=outcome,
            run=self._run,
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
