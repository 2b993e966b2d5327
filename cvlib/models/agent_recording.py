"""Recording the agent loop: every task under every arm, one model per worker process, resumable.

:func:`record_agent_loop` takes the tasks in the order given, each under the
three arms, skips every ``(arm, task)`` the recording already holds (so a
killed recording continues where it stopped, reusing finished lines), and
appends each finished run's decisions in one write, each decision's outcome
carrying the whole run's result. With ``workers`` > 1 each worker process
loads its own copy of the model with one thread; the parent alone writes.
The task runner is passed in (the experiment layer's
:func:`~cvlib.experiments.agent_loop.run_task`), so this package stays on the core.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cvlib.core.executors import ExecutorResult, Policy
from cvlib.models.agent_loop import AGENT_SETTINGS, ModelPolicy
from cvlib.models.interface import LanguageModel
from cvlib.models.prompts import ARMS
from cvlib.models.recording import Recorder, append_lines, canonical, recorded_tasks
from cvlib.models.settings import GenerationSettings

__all__ = ["EXPERIMENT", "RecordingProgress", "record_agent_loop", "recording_path", "run_arm"]

#: The experiment name in every line of an agent-loop recording.
EXPERIMENT = "agent_loop"

#: Runs a task (its recorded mapping) with a policy; module-level so worker processes can receive it.
TaskRunner = Callable[[Mapping[str, Any], Policy], ExecutorResult]


@dataclass(frozen=True, slots=True)
class RecordingProgress:
    """How far a recording got: runs asked for, runs already there, runs recorded now."""

    wanted: int
    reused: int
    recorded: int


def run_arm(model: LanguageModel, arm: str, task: Mapping[str, Any], runner: TaskRunner,
            settings: GenerationSettings = AGENT_SETTINGS) -> list[str]:
    """One run of ``task`` under ``arm``: the recorded lines of its decisions, each with the run's result.

    Parameters
    ----------
    model : LanguageModel
        The model (live or replayed).
    arm : str
        The arm.
    task : Mapping
        The task as recorded.
    runner : callable
        ``runner(task, policy)`` runs the task.
    settings : GenerationSettings
        The model's settings.

    Returns
    -------
    list of str
        JSON lines.
    """
    recorder = Recorder(model, None, EXPERIMENT)
    policy = ModelPolicy(recorder, arm, settings, task=dict(task))
    result = runner(task, policy)
    return [r.to_json() for r in recorder.take({"run": result.to_dict()})]


_WORKER: dict[str, Any] = {}


def _load(model_spec: str) -> LanguageModel:
    from cvlib.models.bundled import model_path
    from cvlib.models.llamacpp import LlamaCppModel

    return LlamaCppModel(model_path(model_spec))


def _init_worker(model_spec: str, settings: GenerationSettings) -> None:
    model = _load(model_spec)
    if hasattr(model, "load"):
        model.load(settings.threads, settings.context_size)
    _WORKER["model"] = model


def _work(job: tuple[str, Mapping[str, Any], TaskRunner, GenerationSettings]) -> list[str]:
    arm, task, runner, settings = job
    return run_arm(_WORKER["model"], arm, task, runner, settings)


def record_agent_loop(
    model: str | os.PathLike[str] | LanguageModel,
    out: str | os.PathLike[str],
    tasks: Sequence[Mapping[str, Any]],
    runner: TaskRunner,
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
        A bundled model's name, a GGUF path, or a model object (then ``workers`` must be 1).
    out : str or os.PathLike
        The recording (created, or resumed).
    tasks : sequence of Mapping
        The tasks as recorded, in the order to take them.
    runner : callable
        ``runner(task, policy)``: runs a task (module-level, for worker processes).
    arms : sequence of str
        The arms, each run on every task in turn.
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
    jobs = [(arm, dict(task), runner, settings) for task in tasks for arm in arms]
    todo = [job for job in jobs if (job[0], canonical(job[1])) not in done]
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), disable=not progress, desc="agent loop", unit="run")
    recorded = 0
    try:
        if workers <= 1:
            live = model if not isinstance(model, str | os.PathLike) else _load(os.fspath(model))
            for arm, task, run, s in todo:
                append_lines(out, run_arm(live, arm, task, run, s))
                recorded += 1
                bar.update(1)
        else:
            if not isinstance(model, str | os.PathLike):
                raise ValueError("several workers need a model name or path, not a model object")
            one_thread = replace(settings, threads=1)
            todo = [(a, t, r, one_thread) for a, t, r, _ in todo]
            with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(os.fspath(model), one_thread)) as pool:
                for lines in pool.map(_work, todo):
                    append_lines(out, lines)
                    recorded += 1
                    bar.update(1)
    finally:
        bar.close()
    return RecordingProgress(wanted=len(jobs), reused=len(jobs) - len(todo), recorded=recorded)


def recording_path(folder: str | os.PathLike[str], model: str | os.PathLike[str]) -> Path:
    """Where the agent loop's recording for ``model`` goes: ``agent_loop.<model>.jsonl`` in ``folder``.

    Parameters
    ----------
    folder : str or os.PathLike
        The folder (``data/model_trials``, or ``_runs`` for a reader's own model).
    model : str or os.PathLike
        A bundled model's name or a GGUF path (its file name without ``.gguf``).

    Returns
    -------
    pathlib.Path
    """
    name = os.fspath(model)
    stem = Path(name).name.removesuffix(".gguf")
    return Path(folder) / f"agent_loop.{stem}.jsonl"
