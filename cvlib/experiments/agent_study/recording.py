"""Recording the agent loop: every task under every arm, the arms of a task back to back, resumable.

:func:`record_agent_loop` takes the tasks in the order given and runs each
task's arms one after another on one model, as one group of calls
(:meth:`~cvlib.models.recording.Recorder.begin`): the model reads the group's
first prompt whole and reuses whatever later prompts share with earlier ones,
and ``cvlib models verify`` replays the group from its first call. A task's
lines are written together when its last arm ends, so a killed recording
holds whole tasks only; a restart skips every task the recording already
holds and redoes the one that was cut. With ``workers`` > 1 each worker
process opens its own copy of the model with one thread; the parent alone
writes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cvlib.experiments.agent_study.policy import AGENT_SETTINGS, ModelPolicy
from cvlib.experiments.agent_study.prompts import ARMS
from cvlib.experiments.agent_study.tasks import run_task_dict
from cvlib.models.interface import LanguageModel
from cvlib.models.jsonl import append_lines
from cvlib.models.naming import recording_stem
from cvlib.models.recording import Recorder, canonical, recorded_tasks
from cvlib.models.registry import open_model
from cvlib.models.settings import GenerationSettings

__all__ = [
    "EXPERIMENT",
    "RecordingProgress",
    "chapter_recording",
    "record_agent_loop",
    "recording_path",
    "run_arm",
    "run_task_arms",
]

#: The experiment name in every line of an agent-loop recording.
EXPERIMENT = "agent_loop"


@dataclass(frozen=True, slots=True)
class RecordingProgress:
    """How far a recording got: runs asked for, runs already there, runs recorded now."""

    wanted: int
    reused: int
    recorded: int


def run_arm(model: LanguageModel, arm: str, task: Mapping[str, Any],
            settings: GenerationSettings = AGENT_SETTINGS) -> list[str]:
    """One run of ``task`` under ``arm``, as its own group of calls: the recorded lines of its decisions.

    Parameters
    ----------
    model : LanguageModel
        The model (live or replayed).
    arm : str
        The arm.
    task : Mapping
        The task as recorded.
    settings : GenerationSettings
        The model's settings.

    Returns
    -------
    list of str
        JSON lines.
    """
    return run_task_arms(model, (arm,), task, settings)


def run_task_arms(model: LanguageModel, arms: Sequence[str], task: Mapping[str, Any],
                  settings: GenerationSettings = AGENT_SETTINGS) -> list[str]:
    """Every arm of ``task`` in turn, one group of calls: the recorded lines, each with its run's result.

    Parameters
    ----------
    model : LanguageModel
        The model (live or replayed).
    arms : sequence of str
        The arms, in recording order.
    task : Mapping
        The task as recorded.
    settings : GenerationSettings
        The model's settings.

    Returns
    -------
    list of str
        JSON lines.
    """
    recorder = Recorder(model, None, EXPERIMENT)
    recorder.begin(f"{canonical(dict(task))} {'/'.join(arms)}")
    lines: list[str] = []
    for arm in arms:
        policy = ModelPolicy(recorder, arm, settings, task=dict(task))
        result = run_task_dict(task, policy)
        lines += [r.to_json() for r in recorder.take({"run": result.to_dict()})]
    return lines


_WORKER: dict[str, Any] = {}


def _init_worker(model_spec: str, settings: GenerationSettings) -> None:
    model = open_model(model_spec)
    model.prepare(settings)
    _WORKER["model"] = model


def _work(job: tuple[tuple[str, ...], Mapping[str, Any], GenerationSettings]) -> list[str]:
    arms, task, settings = job
    return run_task_arms(_WORKER["model"], arms, task, settings)


def record_agent_loop(
    model: str | os.PathLike[str] | LanguageModel,
    out: str | os.PathLike[str],
    tasks: Sequence[Mapping[str, Any]],
    *,
    arms: Sequence[str] = ARMS,
    settings: GenerationSettings = AGENT_SETTINGS,
    workers: int = 1,
    progress: bool = True,
) -> RecordingProgress:
    """Record every task under every arm into ``out``, skipping what ``out`` already holds.

    Parameters
    ----------
    model : str, os.PathLike or LanguageModel
        A model spec (:func:`~cvlib.models.registry.open_model`) or a model object (then ``workers`` must be 1).
    out : str or os.PathLike
        The recording (created, or resumed).
    tasks : sequence of Mapping
        The tasks as recorded, in the order to take them.
    arms : sequence of str
        The arms, run on every task in turn, back to back.
    settings : GenerationSettings
        The model's settings (one thread each).
    workers : int
        Worker processes, each with its own model; 1 records in this process.
    progress : bool
        Show a progress bar (tqdm).

    Returns
    -------
    RecordingProgress
    """
    from tqdm.auto import tqdm

    done = recorded_tasks(out, EXPERIMENT)
    arms = tuple(arms)
    wanted = [dict(task) for task in tasks]
    todo = [t for t in wanted if any((arm, canonical(t)) not in done for arm in arms)]
    bar = tqdm(total=len(wanted), initial=len(wanted) - len(todo), disable=not progress, desc="agent loop", unit="task")
    recorded = 0
    try:
        if workers <= 1:
            live = model if not isinstance(model, str | os.PathLike) else open_model(os.fspath(model))
            live.prepare(settings)
            for task in todo:
                append_lines(out, run_task_arms(live, arms, task, settings))
                recorded += 1
                bar.update(1)
        else:
            if not isinstance(model, str | os.PathLike):
                raise ValueError("several workers need a model spec, not a model object")
            one_thread = replace(settings, threads=1)
            jobs = [(arms, t, one_thread) for t in todo]
            with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(os.fspath(model), one_thread)) as pool:
                for lines in pool.map(_work, jobs):
                    append_lines(out, lines)
                    recorded += 1
                    bar.update(1)
    finally:
        bar.close()
    return RecordingProgress(wanted=len(wanted) * len(arms), reused=(len(wanted) - len(todo)) * len(arms),
                             recorded=recorded * len(arms))


def recording_path(folder: str | os.PathLike[str], model: str | os.PathLike[str]) -> Path:
    """Where the agent loop's recording for ``model`` goes: ``agent_loop.<model>.jsonl`` in ``folder``.

    Parameters
    ----------
    folder : str or os.PathLike
        The folder (``data/model_trials``, or ``_runs`` for a reader's own model).
    model : str or os.PathLike
        A model spec (:func:`~cvlib.models.naming.recording_stem` names it).

    Returns
    -------
    pathlib.Path
    """
    return Path(folder) / f"{EXPERIMENT}.{recording_stem(model)}.jsonl"


def chapter_recording(recording: str, model: str = "", record_tasks: int = 127, *, folder: str = "_runs") -> Path:
    """The recording the chapter reads: ``recording``, or, when ``model`` is given, a new one made with it.

    With a model (a bundled name, a GGUF path or a server URL), the first
    ``record_tasks`` tasks of :func:`~cvlib.experiments.agent_study.tasks.agent_tasks`
    are recorded (resuming) into ``_runs/agent_loop.<model>.jsonl.gz``
    (:func:`~cvlib.models.naming.new_recording_path`, as the notes chapter does), whose path is returned.

    Parameters
    ----------
    recording : str
        The committed recording (relative to the repository root).
    model : str
        Empty to read ``recording``; else the model to record with.
    record_tasks : int
        How many tasks a new recording takes.
    folder : str
        Where a new recording goes, under the repository root.

    Returns
    -------
    pathlib.Path
    """
    from cvlib.core.errors import ParameterError
    from cvlib.experiments.agent_study.tasks import agent_tasks
    from cvlib.models.naming import new_recording_path
    from cvlib.repository import project_root

    if not model:
        path = Path(recording) if Path(recording).is_absolute() else project_root() / recording
        if not path.is_file():
            raise ParameterError(f"recording {recording!r} does not exist; expected a file under data/model_trials/")
        return path
    out = new_recording_path(project_root() / folder, EXPERIMENT, model)
    tasks = agent_tasks()[: max(1, int(record_tasks))]
    record_agent_loop(model, out, [t.to_dict() for t in tasks], progress=False)
    return out
