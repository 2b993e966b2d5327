"""The pre-registered notes study (``data/model_trials/preregistration.md``, part 2) as code: variants, repeats, recorder.

Every task is put to a model in two **variants**: ``unrefutable``, the first
recordings' prompt (the function and the note, nothing that shows the note
wrong), and ``refutable``, the same prompt with the task's refuting context
after the function (the changed dependency quoted from the release and a
test that the release passes and the stale edit fails:
:mod:`~cvlib.experiments.notes_study.refutations`). Everything before the
note is shared by a task's six arms, so a task's arms run back to back on one
model after a reset (one group of calls) and only the first reads that part.

Repeat 0 is greedy and runs all six arms; repeats 1 and 2 sample at
temperature 0.7, with a seed derived from the task, variant and repeat, and
run the three stale arms. A call's answer is read as code
(:func:`~cvlib.experiments.notes_study.reading.read_answer`) and the reading
is recorded beside it; the analysis reads the answers again, so a refined
reader needs no new recording.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from cvlib.core.errors import ParameterError
from cvlib.core.validation import require_int
from cvlib.experiments.notes_study.reading import StaleEffect, read_answer
from cvlib.experiments.notes_study.refutations import Refutation
from cvlib.experiments.notes_study.tasks import NotesTask
from cvlib.experiments.notes_study.trials import ARMS, SETTINGS, STALE_ARMS, build_prompt, task_record
from cvlib.models.interface import LanguageModel
from cvlib.models.jsonl import append_lines
from cvlib.models.recording import Recorder, quiet_progress, read_recording, start_recording
from cvlib.models.registry import open_model
from cvlib.models.settings import GenerationSettings, Message

__all__ = [
    "EXPERIMENT",
    "NOTES_STUDY_SEED",
    "REFUTABLE_SETTINGS",
    "SAMPLED_TEMPERATURE",
    "VARIANTS",
    "group_arms",
    "group_name",
    "reader_recording",
    "record_notes_study",
    "recorded_groups",
    "refuting_context",
    "run_notes_group",
    "study_prompt",
    "study_order",
    "study_settings",
]

#: The experiment name of the study's new lines (the first recordings, ``notes_trials``, are its unrefutable greedy runs).
EXPERIMENT = "notes_study"
#: The two variants, in recording order.
VARIANTS: tuple[str, ...] = ("unrefutable", "refutable")
#: The seed the sampled repeats' seeds are derived from.
NOTES_STUDY_SEED = 20261203
#: The sampled repeats' temperature.
SAMPLED_TEMPERATURE = 0.7
#: A refutable prompt is longer (the dependency and the test), so twice the context of :data:`~.trials.SETTINGS`.
REFUTABLE_SETTINGS = replace(SETTINGS, context_size=4096)


def study_order(tasks: Sequence[NotesTask]) -> list[NotesTask]:
    """The tasks in the order the study records them: shuffled with :data:`NOTES_STUDY_SEED` (a finished prefix is a random sample).

    Parameters
    ----------
    tasks : sequence of NotesTask
        The tasks, in file order.

    Returns
    -------
    list of NotesTask
    """
    import random

    ordered = sorted(tasks, key=lambda t: t.id)
    random.Random(NOTES_STUDY_SEED).shuffle(ordered)
    return ordered


def refuting_context(refutation: Refutation) -> str:
    """The part of a refutable prompt that follows the function: the dependencies and the test, in full.

    Parameters
    ----------
    refutation : Refutation
        The task's refutation (it must have a test).

    Returns
    -------
    str
    """
    if not refutation.test.strip():
        raise ParameterError(f"task {refutation.task_id!r} has no refuting test ({refutation.note or 'no reason given'})")
    quoted = "\n\n".join(d.source.rstrip() for d in refutation.dependency)
    files = ", ".join(sorted({d.file for d in refutation.dependency}))
    return (
        f"Code this function relies on ({files}, {refutation.project} {refutation.version}):\n```python\n{quoted}\n```\n\n"
        f"A test from the project's checks, which passes with the code as it is:\n```python\n{refutation.test.rstrip()}\n```"
    )


def study_prompt(task: NotesTask, arm: str, variant: str, refutation: Refutation | None = None) -> tuple[Message, ...]:
    """A trial's chat turns: the first recordings' prompt, with the refuting context after the function when refutable.

    Parameters
    ----------
    task : NotesTask
        The task.
    arm : str
        One of the six arms.
    variant : str
        One of :data:`VARIANTS`.
    refutation : Refutation, optional
        The task's refutation (required for ``refutable``).

    Returns
    -------
    tuple of (str, str)
    """
    base = build_prompt(task, arm)
    if variant == "unrefutable":
        return base
    if variant != "refutable":
        raise ParameterError(f"unknown notes variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    if refutation is None:
        raise ParameterError(f"the refutable variant of task {task.id!r} needs its refutation")
    system, (role, user) = base
    opened = user.find("```python\n")
    closed = user.find("\n```", opened + 1) if opened >= 0 else -1
    if closed < 0:
        raise ParameterError(f"task {task.id!r}: the prompt has no function block to put the refutation after")
    end = closed + len("\n```")  # the function's block ends the part every arm shares
    return (system, (role, f"{user[:end]}\n\n{refuting_context(refutation)}{user[end:]}"))


def _seed(task: NotesTask, variant: str, repeat: int) -> int:
    digest = hashlib.sha256(f"{NOTES_STUDY_SEED}|{task.id}|{variant}|{repeat}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def study_settings(task: NotesTask, variant: str, repeat: int, threads: int = 1) -> GenerationSettings:
    """A group's settings: the first recordings' for the unrefutable variant, a longer context for the refutable one, sampled after repeat 0.

    Parameters
    ----------
    task : NotesTask
        The task.
    variant : str
        One of :data:`VARIANTS`.
    repeat : int
        0 greedy; 1, 2 sampled.
    threads : int
        Threads of the runtime.

    Returns
    -------
    GenerationSettings
    """
    repeat = require_int("repeat", repeat, minimum=0)
    base = replace(SETTINGS if variant == "unrefutable" else REFUTABLE_SETTINGS, threads=threads)
    if repeat == 0:
        return base
    return replace(base, temperature=SAMPLED_TEMPERATURE, seed=_seed(task, variant, repeat))


def group_arms(repeat: int) -> tuple[str, ...]:
    """The arms of a group: all six in the greedy repeat, the three stale arms in a sampled one.

    Parameters
    ----------
    repeat : int
        The repeat.

    Returns
    -------
    tuple of str
    """
    return ARMS if repeat == 0 else STALE_ARMS


def group_name(task: NotesTask, variant: str, repeat: int) -> str:
    """The name of a task's group of calls (the recording's ``run`` field).

    Parameters
    ----------
    task : NotesTask
        The task.
    variant : str
        The variant.
    repeat : int
        The repeat.

    Returns
    -------
    str
    """
    return f"{task.id} {variant} r{repeat}"


def run_notes_group(model: LanguageModel, task: NotesTask, variant: str, repeat: int, *,
                    refutation: Refutation | None = None, effect: StaleEffect | None = None, threads: int = 1) -> list[str]:
    """One task in one variant and repeat: its arms back to back after a reset; the JSON lines.

    Parameters
    ----------
    model : LanguageModel
        The model.
    task : NotesTask
        The task.
    variant : str
        One of :data:`VARIANTS`.
    repeat : int
        The repeat.
    refutation : Refutation, optional
        The task's refutation (refutable variant).
    effect : StaleEffect, optional
        What counts as the task's stale edit.
    threads : int
        Threads of the runtime.

    Returns
    -------
    list of str
    """
    settings = study_settings(task, variant, repeat, threads)
    recorder = Recorder(model, None, EXPERIMENT)
    recorder.begin(group_name(task, variant, repeat))
    recorded = {**task_record(task), "variant": variant, "repeat": repeat}
    for arm in group_arms(repeat):
        response = recorder.complete(study_prompt(task, arm, variant, refutation), settings)
        reading = read_answer(task, response, effect)
        recorder.record(arm=arm, task=recorded, step=None, decision=None, outcome={"reading": reading.to_dict()})
    return [r.to_json() for r in recorder.take()]


def recorded_groups(path: str | os.PathLike[str]) -> set[str]:
    """The groups a recording holds whole.

    Parameters
    ----------
    path : str or os.PathLike
        The recording.

    Returns
    -------
    set of str
    """
    if not Path(path).is_file():
        return set()
    return {str(r.run) for r in read_recording(path, allow_cut_tail=True) if r.experiment == EXPERIMENT and r.run}


def record_notes_study(
    model: str,
    out: str | os.PathLike[str],
    tasks: Sequence[NotesTask],
    plan: Sequence[tuple[str, int]],
    *,
    refutations: Mapping[str, Refutation],
    effects: Mapping[str, StaleEffect],
    progress: bool = True,
    resume: str = "",
    workers: int = 1,
) -> tuple[int, int]:
    """Record every (variant, repeat) of ``plan`` for every task, in that order, skipping the groups ``out`` holds.

    Parameters
    ----------
    model : str
        The model's spec.
    out : str or os.PathLike
        The recording (``.jsonl.gz``).
    tasks : sequence of NotesTask
        The tasks (a refutable group needs the task's verified refutation).
    plan : sequence of (str, int)
        ``(variant, repeat)`` pairs, in recording order.
    refutations : Mapping
        The refutations by task id.
    effects : Mapping
        The stated stale effects by task id.
    progress : bool
        Show a progress bar.
    resume : str
        The command that resumes the recording (in a new file's header).
    workers : int
        Worker processes, each with its own copy of the model (one thread each); the groups are still
        written in plan order, by this process only, so the file is the one a single worker would write.

    Returns
    -------
    tuple of (int, int)
        Groups recorded now, groups already there.
    """
    from concurrent.futures import ProcessPoolExecutor

    from tqdm.auto import tqdm

    for variant, _ in plan:
        if variant not in VARIANTS:
            raise ParameterError(f"unknown notes variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    jobs = [(t, v, r) for v, r in plan for t in tasks if v == "unrefutable" or t.id in refutations]
    done = recorded_groups(out)
    todo = [(t, v, r) for t, v, r in jobs if group_name(t, v, r) not in done]
    workers = require_int("workers", workers, minimum=1)
    if resume:
        start_recording(out, EXPERIMENT, resume)
    groups = [(t, v, r, refutations.get(t.id), effects.get(t.id)) for t, v, r in todo]
    recorded = 0
    with tqdm(total=len(jobs), initial=len(jobs) - len(todo), disable=not progress, desc=f"notes study {model}",
              unit="group") as bar:
        if groups and workers == 1:  # nothing left to do opens no model
            live = _opened(model)
            for group in groups:
                append_lines(out, _record_group(live, group))
                recorded += 1
                bar.update(1)
        elif groups:
            with ProcessPoolExecutor(min(workers, len(groups)), initializer=_open_in_worker, initargs=(model,)) as pool:
                for lines in pool.map(_record_in_worker, groups):
                    append_lines(out, lines)
                    recorded += 1
                    bar.update(1)
    return recorded, len(jobs) - len(todo)


#: One group to record, as the task, its variant and repeat, its refutation and its stated stale effect.
_Group = tuple[NotesTask, str, int, "Refutation | None", "StaleEffect | None"]
#: The model of a worker process.
_WORKER: dict[str, LanguageModel] = {}


def _opened(model: str) -> LanguageModel:
    live = open_model(model)
    live.prepare(REFUTABLE_SETTINGS)
    return live


def _record_group(live: LanguageModel, group: _Group) -> list[str]:
    task, variant, repeat, refutation, effect = group
    return run_notes_group(live, task, variant, repeat, refutation=refutation, effect=effect)


def _open_in_worker(model: str) -> None:
    _WORKER["model"] = _opened(model)


def _record_in_worker(group: _Group) -> list[str]:
    return _record_group(_WORKER["model"], group)


def reader_recording(model: str, record_tasks: int, folder: str | os.PathLike[str], tasks: Sequence[NotesTask],
                     refutations: Mapping[str, Refutation], effects: Mapping[str, StaleEffect]) -> Path:
    """A reader's own recording: the first ``record_tasks`` tasks of :func:`study_order`, both variants, greedy.

    The chapter's ``model`` parameter lands here: a bundled name, a GGUF path
    or a server URL records (resuming) into ``notes_study.<model>.jsonl.gz`` in
    ``folder`` (:func:`~cvlib.models.naming.new_recording_path`), and the page
    then reads only that file. A prefix of the seeded order is a random sample
    of the tasks, as the pre-registered stopping rule says of a cut recording.

    Parameters
    ----------
    model : str
        The model's spec (:func:`~cvlib.models.registry.open_model`).
    record_tasks : int
        How many tasks, from the start of the seeded order.
    folder : str or os.PathLike
        Where the recording goes (``_runs`` under the repository root).
    tasks : sequence of NotesTask
        The tasks, in file order.
    refutations : Mapping
        The verified refutations by task id (a task without one gets no refutable group).
    effects : Mapping
        The stated stale effects by task id.

    Returns
    -------
    pathlib.Path
        The recording.
    """
    from cvlib.models.naming import new_recording_path

    count = require_int("record_tasks", record_tasks, minimum=1)
    out = new_recording_path(folder, EXPERIMENT, model)
    with quiet_progress():
        record_notes_study(model, out, study_order(tasks)[:count], [("unrefutable", 0), ("refutable", 0)],
                           refutations=refutations, effects=effects, progress=False)
    return out
