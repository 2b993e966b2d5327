"""The notes study's second edition as code (``preregistration_part4.md``): tasks, variants, repeats, groups, recorder.

Every task is put to a model in up to three variants
(:mod:`~cvlib.experiments.notes_study.second_prompts`): ``unrefutable`` on
every task, ``refutable`` where its refutation is verified, ``placebo`` where a
placebo of the same length and kind exists. A group is one task in one variant
and repeat: its arms back to back after a reset of the model, so an answer
depends on its group's prompts alone and ``cvlib models verify`` re-generates
any call by replaying its group. Groups are recorded repeat by repeat and, within
a repeat, task by task in the seeded order with a task's variants together, so a
recording cut at any point holds whole, paired tasks of a random sample.

Repeat 0 is greedy and runs all six arms; repeats 1 and 2 sample at temperature
0.7 with a seed derived from the task, variant and repeat, and run the three
stale arms. Each answer is read by the frozen reader
(:func:`~cvlib.experiments.notes_study.second_reading.read_second`) and the
reading is stored beside it; the analysis reads the answers again.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from cvlib.core.errors import ParameterError
from cvlib.core.validation import require_int
from cvlib.experiments.notes_study.refutations import Refutation
from cvlib.experiments.notes_study.second_prompts import (
    VARIANTS,
    ContextBlocks,
    placebos,
    refuting_blocks,
    second_prompt,
)
from cvlib.experiments.notes_study.second_reading import HarmRule, context_function_names, read_second
from cvlib.experiments.notes_study.tasks import NotesTask
from cvlib.experiments.notes_study.trials import ARMS, SETTINGS, STALE_ARMS, task_record
from cvlib.models.interface import LanguageModel
from cvlib.models.jsonl import append_lines
from cvlib.models.recording import Recorder, read_recording, sole_recorder, start_recording
from cvlib.models.registry import open_model
from cvlib.models.settings import GenerationSettings

__all__ = [
    "EXPERIMENT",
    "PLANS",
    "SAMPLED_TEMPERATURE",
    "SECOND_SEED",
    "SECOND_SETTINGS",
    "StudyGroup",
    "group_arms",
    "group_name",
    "record_second",
    "recorded_groups",
    "run_group",
    "second_settings",
    "study_groups",
    "study_order",
]

#: The experiment name of the second edition's lines (and of its recordings, ``notes_study_2.<model>.jsonl.gz``).
EXPERIMENT = "notes_study_2"
#: The seed of the task order and of the sampled repeats' seeds.
SECOND_SEED = 20261205
#: The sampled repeats' temperature.
SAMPLED_TEMPERATURE = 0.7
#: The settings of every variant, the first edition's (at most 256 tokens, greedy, one thread) with room for the context,
#: each call read afresh (``fresh``), so an answer depends on its prompt alone, never on the arms before it.
SECOND_SETTINGS = replace(SETTINGS, context_size=4096, evaluation="fresh")
#: Each model's repeats, in recording order (0 greedy, all arms; 1 and 2 sampled, the stale arms).
PLANS: Mapping[str, tuple[int, ...]] = {
    "smollm2-135m": (0,),
    "qwen2.5-coder-0.5b": (0, 1, 2),
    "qwen2.5-coder-1.5b": (0, 1, 2),
}


@dataclass(frozen=True, slots=True)
class StudyGroup:
    """One group of calls: a task in one variant and repeat, with the read-only context its prompts show.

    Parameters
    ----------
    task : NotesTask
        The task.
    variant : str
        One of :data:`~cvlib.experiments.notes_study.second_prompts.VARIANTS`.
    repeat : int
        0 greedy; 1, 2 sampled.
    context : ContextBlocks or None
        The refuting or placebo blocks (None for ``unrefutable``).
    rule : HarmRule or None
        The task's stale harm (None: the reference's own lines).
    """

    task: NotesTask
    variant: str
    repeat: int
    context: ContextBlocks | None
    rule: HarmRule | None


def study_order(tasks: Sequence[NotesTask]) -> list[NotesTask]:
    """The tasks in recording order: sorted by id, then shuffled with :data:`SECOND_SEED` (a finished prefix is a random sample).

    Parameters
    ----------
    tasks : sequence of NotesTask
        The tasks.

    Returns
    -------
    list of NotesTask
    """
    ordered = sorted(tasks, key=lambda t: t.id)
    random.Random(SECOND_SEED).shuffle(ordered)
    return ordered


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
    return ARMS if require_int("repeat", repeat, minimum=0) == 0 else STALE_ARMS


def group_name(task: NotesTask, variant: str, repeat: int) -> str:
    """The name of a group of calls (the recording's ``run`` field).

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


def second_settings(task: NotesTask, variant: str, repeat: int, threads: int = 1) -> GenerationSettings:
    """A group's settings: :data:`SECOND_SETTINGS`, sampled with a derived seed after repeat 0.

    Parameters
    ----------
    task : NotesTask
        The task.
    variant : str
        The variant.
    repeat : int
        The repeat.
    threads : int
        Threads of the runtime.

    Returns
    -------
    GenerationSettings
    """
    repeat = require_int("repeat", repeat, minimum=0)
    base = replace(SECOND_SETTINGS, threads=threads)
    if repeat == 0:
        return base
    digest = hashlib.sha256(f"{SECOND_SEED}|{task.id}|{variant}|{repeat}".encode()).digest()
    return replace(base, temperature=SAMPLED_TEMPERATURE, seed=int.from_bytes(digest[:4], "big") & 0x7FFFFFFF)


def study_groups(tasks: Sequence[NotesTask], refutations: Mapping[str, Refutation], rules: Mapping[str, HarmRule],
                 repeats: Sequence[int]) -> list[StudyGroup]:
    """Every group of a plan, in recording order: repeat by repeat, task by task (seeded order), variants together.

    A task gets ``refutable`` when its refutation is verified and ``placebo``
    when a placebo of the same length and kind exists
    (:func:`~cvlib.experiments.notes_study.second_prompts.placebos`).

    Parameters
    ----------
    tasks : sequence of NotesTask
        Every task of the study (the placebo donors are among them).
    refutations : Mapping
        The refutations by task id.
    rules : Mapping
        The stale harms by task id.
    repeats : sequence of int
        The repeats, in recording order.

    Returns
    -------
    list of StudyGroup
    """
    fakes = placebos(tasks, refutations)
    out = []
    for repeat in repeats:
        for task in study_order(tasks):
            found = refutations.get(task.id)
            contexts: dict[str, ContextBlocks | None] = {"unrefutable": None}
            if found is not None and found.verified:
                contexts["refutable"] = refuting_blocks(found)
            if task.id in fakes:
                contexts["placebo"] = fakes[task.id]
            for variant in VARIANTS:
                if variant in contexts:
                    out.append(StudyGroup(task, variant, int(repeat), contexts[variant], rules.get(task.id)))
    return out


def run_group(model: LanguageModel, group: StudyGroup, threads: int = 1) -> list[str]:
    """One group's calls, its arms back to back after a reset of the model; the JSON lines.

    Parameters
    ----------
    model : LanguageModel
        The model.
    group : StudyGroup
        The group.
    threads : int
        Threads of the runtime.

    Returns
    -------
    list of str
    """
    task = group.task
    settings = second_settings(task, group.variant, group.repeat, threads)
    recorder = Recorder(model, None, EXPERIMENT)
    recorder.begin(group_name(task, group.variant, group.repeat))  # resets the model
    names = context_function_names([group.context.code, group.context.test]) if group.context else frozenset()
    recorded = {**task_record(task), "variant": group.variant, "repeat": group.repeat,
                "context_from": group.context.source_task if group.context else ""}
    for arm in group_arms(group.repeat):
        response = recorder.complete(second_prompt(task, arm, group.variant, group.context), settings)
        reading = read_second(task, response, group.rule, names)
        recorder.record(arm=arm, task=recorded, step=None, decision=None, outcome={"reading": reading.to_dict()})
    return [r.to_json() for r in recorder.take()]


def recorded_groups(path: str | os.PathLike[str]) -> set[str]:
    """The groups a recording holds whole (a group cut short by a kill is not among them).

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


def record_second(model: str, out: str | os.PathLike[str], groups: Sequence[StudyGroup], *, progress: bool = True,
                  resume: str = "", workers: int = 1) -> tuple[int, int]:
    """Record every group, in order, skipping those ``out`` holds; each group is written whole when it finishes.

    Parameters
    ----------
    model : str
        The model's spec (:func:`~cvlib.models.registry.open_model`).
    out : str or os.PathLike
        The recording (``.jsonl.gz``).
    groups : sequence of StudyGroup
        :func:`study_groups`.
    progress : bool
        Show a progress bar.
    resume : str
        The command that resumes the recording (in a new file's header).
    workers : int
        Worker processes, each with its own copy of the model and one thread; the groups are written in order by
        this process only, so the file is the one a single worker would write.

    Returns
    -------
    tuple of (int, int)
        Groups recorded now, groups already there.
    """
    with sole_recorder(out):
        return _record_second(model, out, groups, progress=progress, resume=resume, workers=workers)


def _record_second(model: str, out: str | os.PathLike[str], groups: Sequence[StudyGroup], *, progress: bool,
                   resume: str, workers: int) -> tuple[int, int]:
    from concurrent.futures import ProcessPoolExecutor

    from tqdm.auto import tqdm

    workers = require_int("workers", workers, minimum=1)
    names = [group_name(g.task, g.variant, g.repeat) for g in groups]
    if len(set(names)) != len(names):
        raise ParameterError("the plan names a group twice")
    done = recorded_groups(out)
    todo = [g for g, n in zip(groups, names) if n not in done]
    if resume:
        start_recording(out, EXPERIMENT, resume)
    recorded = 0
    with tqdm(total=len(groups), initial=len(groups) - len(todo), disable=not progress, desc=f"notes study 2 {model}",
              unit="group") as bar:
        if todo and workers == 1:  # nothing left to do opens no model
            live = _opened(model)
            for group in todo:
                append_lines(out, run_group(live, group))
                recorded += 1
                bar.update(1)
        elif todo:
            with ProcessPoolExecutor(min(workers, len(todo)), initializer=_open_in_worker, initargs=(model,)) as pool:
                for lines in pool.map(_record_in_worker, todo):
                    append_lines(out, lines)
                    recorded += 1
                    bar.update(1)
    return recorded, len(groups) - len(todo)


#: The model of a worker process.
_WORKER: dict[str, LanguageModel] = {}


def _opened(model: str) -> LanguageModel:
    live = open_model(model)
    live.prepare(SECOND_SETTINGS)
    return live


def _open_in_worker(model: str) -> None:
    _WORKER["model"] = _opened(model)


def _record_in_worker(group: StudyGroup) -> list[str]:
    return run_group(_WORKER["model"], group)
