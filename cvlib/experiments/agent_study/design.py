"""The pre-registered agent-loop study: its tasks, repeats, settings and recorder.

``data/model_trials/preregistration.md`` states the design; this module is
that design as code, so the recording and the analysis cannot drift from it.

* **Tasks** (:func:`study_tasks`): the named scenarios, their variants, the
  value-change budgets and seeded random plans, each classified by what the
  always-execute baseline meets on it: a **stale-fact** task is one where a
  fact's ground truth changes before a step that rests on it (the baseline
  takes a decision on a closure holding a broken fact, or an action of it
  fails); a **control** task is one where nothing changes at all (no event).
  Tasks with changes that never reach a step are left out. The draw takes the
  named, variant and budget tasks first, then random plans in index order,
  until it has its stale-fact and control tasks, and shuffles them with a
  seed, so any finished prefix of the recording is a random sample of both.
* **Repeats** (:func:`repeat_settings`): repeat 0 is greedy with the options
  in their canonical order; repeat ``r`` > 0 samples at temperature 0.7 with a
  seed and an option order both derived from the task and ``r``.
* **A group** (:func:`run_group`): one task and repeat, its four arms back to
  back on one model after a reset (they share the system turn and the plan),
  then, in the greedy repeat, the competence probe of each arm.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, get_policy
from cvlib.core.validation import require_int
from cvlib.experiments.agent_study.policy import ModelPolicy
from cvlib.experiments.agent_study.study_prompts import (
    OPTIONS,
    STUDY_ARMS,
    StudyPrompts,
    decision_grammar,
    not_active,
    probe_grammar,
    probe_question,
)
from cvlib.experiments.agent_study.tasks import VARIANTS, AgentTask, run_task, task_setup
from cvlib.experiments.windows import published_budgets
from cvlib.models.interface import LanguageModel
from cvlib.models.jsonl import append_lines
from cvlib.models.recording import Recorder, canonical, quiet_progress, read_recording, start_recording
from cvlib.models.registry import open_model
from cvlib.models.settings import GenerationSettings
from cvlib.scenarios.named import scenario_names, setup_scenario

__all__ = [
    "CONTROL_TASKS",
    "EXPERIMENT",
    "PLANNED_REPEATS",
    "SAMPLED_TEMPERATURE",
    "STALE_TASKS",
    "STUDY_SEED",
    "STUDY_SETTINGS",
    "StudyTask",
    "group_name",
    "reader_recording",
    "record_study",
    "recorded_groups",
    "repeat_settings",
    "run_group",
    "study_tasks",
]

#: The experiment name of the study's lines.
EXPERIMENT = "agent_study"
#: The seed of the task order, of the sampled repeats' seeds and of their option orders.
STUDY_SEED = 20261203
#: How many stale-fact and control tasks the study draws.
STALE_TASKS, CONTROL_TASKS = 160, 40
#: The sampled repeats' temperature.
SAMPLED_TEMPERATURE = 0.7
#: The repeats each model of the plan is recorded in (pre-registration, section 5); a model outside the plan, greedy only.
PLANNED_REPEATS: dict[str, tuple[int, ...]] = {"smollm2-135m": (0, 1, 2), "qwen2.5-coder-0.5b": (0, 1, 2),
                                                "qwen2.5-coder-1.5b": (0,)}
#: A decision's settings (one short line, limited by a grammar set per task, one thread, room for the longest run).
STUDY_SETTINGS = GenerationSettings(max_tokens=8, temperature=0.0, seed=0, threads=1, context_size=4096, stop=("\n",))
#: The probe's settings (greedy, a list of fact names).
PROBE_SETTINGS = GenerationSettings(max_tokens=24, temperature=0.0, seed=0, threads=1, context_size=4096, stop=("\n",))
_RANDOM_FAMILY_SEED, _RANDOM_MAX_STEPS, _RANDOM_LIMIT = 0, 8, 5000


@dataclass(frozen=True, slots=True)
class StudyTask:
    """A task of the study and what the baseline meets on it."""

    task: AgentTask
    stale_fact: bool

    def to_dict(self) -> dict[str, Any]:
        """The task as every line of its runs records it (the agent loop's task and ``stale_fact``).

        Returns
        -------
        dict
        """
        return {**self.task.to_dict(), "stale_fact": self.stale_fact}


def _kind(task: AgentTask) -> str | None:
    """``stale``, ``control`` or None (changes that never reach a step) for one task."""
    setup = task_setup(task)
    if not setup.events:
        return "control"
    base = run_task(task, get_policy(BASELINE))
    return "stale" if base.decisions_on_stale_deps > 0 or base.replans > 0 else None


def _candidates() -> Iterable[AgentTask]:
    yield from (AgentTask.of("named", name) for name in scenario_names())
    yield from (AgentTask.of("variant", name, **params) for name in scenario_names() for params in VARIANTS[name])
    natural = setup_scenario("A").budget
    yield from (AgentTask.of("budget", "A", budget=b) for b in published_budgets(natural)[1:])
    for index in range(_RANDOM_LIMIT):
        yield AgentTask.of("random", "random", seed=_RANDOM_FAMILY_SEED, index=index, max_steps=_RANDOM_MAX_STEPS)


def study_tasks(stale: int = STALE_TASKS, controls: int = CONTROL_TASKS, *, seed: int = STUDY_SEED) -> list[StudyTask]:
    """The study's tasks in recording order (see the module docstring).

    Parameters
    ----------
    stale : int
        Stale-fact tasks to draw.
    controls : int
        Control tasks to draw.
    seed : int
        The shuffle's seed.

    Returns
    -------
    list of StudyTask
    """
    stale, controls = require_int("stale", stale, minimum=0), require_int("controls", controls, minimum=0)
    chosen: list[StudyTask] = []
    counts = {"stale": 0, "control": 0}
    wanted = {"stale": stale, "control": controls}
    for task in _candidates():
        if counts == wanted:
            break
        kind = _kind(task)
        if kind is not None and counts[kind] < wanted[kind]:
            counts[kind] += 1
            chosen.append(StudyTask(task, kind == "stale"))
    if counts != wanted:
        raise ParameterError(f"only {counts} tasks of the kinds wanted ({wanted}) among the candidates")
    random.Random(require_int("seed", seed)).shuffle(chosen)
    return chosen


def _derived(task: Mapping[str, Any], repeat: int, what: str) -> int:
    digest = hashlib.sha256(f"{STUDY_SEED}|{canonical(dict(task))}|{repeat}|{what}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def repeat_settings(task: StudyTask, repeat: int, threads: int = 1) -> tuple[GenerationSettings, StudyPrompts]:
    """A repeat's decision settings (its grammar, temperature and seed) and prompts (its option order).

    Parameters
    ----------
    task : StudyTask
        The task.
    repeat : int
        0 for the greedy run; 1, 2, ... for sampled ones.
    threads : int
        Threads of the runtime.

    Returns
    -------
    tuple of (GenerationSettings, StudyPrompts)
    """
    repeat = require_int("repeat", repeat, minimum=0)
    grammar = decision_grammar(task_setup(task.task).plan.facts)
    base = replace(STUDY_SETTINGS, grammar=grammar, threads=threads)
    if repeat == 0:
        return base, StudyPrompts(OPTIONS)
    order = list(OPTIONS)
    random.Random(_derived(task.task.to_dict(), repeat, "order")).shuffle(order)
    sampled = replace(base, temperature=SAMPLED_TEMPERATURE, seed=_derived(task.task.to_dict(), repeat, "seed"))
    return sampled, StudyPrompts(tuple(order))


def group_name(task: StudyTask, repeat: int) -> str:
    """The name of a task's group of calls in one repeat (the recording's ``run`` field).

    Parameters
    ----------
    task : StudyTask
        The task.
    repeat : int
        The repeat.

    Returns
    -------
    str
    """
    return f"{canonical(task.task.to_dict())} r{repeat}"


def run_group(model: LanguageModel, task: StudyTask, repeat: int, threads: int = 1, *, probes: bool = True) -> list[str]:
    """One task in one repeat: the four arms back to back, then (greedy repeat) each arm's probe; its JSON lines.

    Parameters
    ----------
    model : LanguageModel
        The model (live, or a replayed one).
    task : StudyTask
        The task.
    repeat : int
        The repeat.
    threads : int
        Threads of the runtime.
    probes : bool
        Put the competence probe after the arms in the greedy repeat (the benchmark of layouts leaves it out).

    Returns
    -------
    list of str
    """
    settings, prompts = repeat_settings(task, repeat, threads)
    recorder = Recorder(model, None, EXPERIMENT)
    recorder.begin(group_name(task, repeat))
    recorded = {**task.to_dict(), "repeat": repeat}
    lines: list[str] = []
    points = {}
    for arm in STUDY_ARMS:
        policy = ModelPolicy(recorder, arm, settings, task=recorded, prompts=prompts)
        result = run_task(task.task, policy)
        lines += [r.to_json() for r in recorder.take({"run": result.to_dict()})]
        points[arm] = policy.probe_point
    if repeat == 0 and probes:
        probe = replace(PROBE_SETTINGS, threads=threads, grammar=probe_grammar(task_setup(task.task).plan.facts))
        for arm, point in points.items():
            if point is None:
                continue
            history, knowledge = point
            question = probe_question(knowledge, arm, first=len(history) == 1)
            answer = recorder.complete((*history, ("user", question)), probe)
            named = sorted(set(answer.split()) - {"NONE"})
            right = list(not_active(knowledge))
            recorder.record(arm=arm, task=recorded, step=knowledge.position,
                            decision={"probe": True, "named": named, "right": right, "correct": named == right},
                            outcome=None)
        lines += [r.to_json() for r in recorder.take()]
    return lines


def recorded_groups(path: str | os.PathLike[str]) -> set[str]:
    """The groups a recording holds whole (lines of a group are written together).

    Parameters
    ----------
    path : str or os.PathLike
        The recording (a missing file holds none).

    Returns
    -------
    set of str
    """
    if not Path(path).is_file():
        return set()
    return {r.run for r in read_recording(path, allow_cut_tail=True) if r.experiment == EXPERIMENT and r.run}


_WORKER: dict[str, Any] = {}


def _init_worker(spec: str) -> None:
    model = open_model(spec)
    model.prepare(STUDY_SETTINGS)
    _WORKER["model"] = model


def _work(job: tuple[StudyTask, int]) -> list[str]:
    task, repeat = job
    return run_group(_WORKER["model"], task, repeat)


def record_study(
    model: str,
    out: str | os.PathLike[str],
    tasks: Sequence[StudyTask],
    repeats: Sequence[int] = (0,),
    *,
    workers: int = 1,
    progress: bool = True,
    resume: str = "",
) -> tuple[int, int]:
    """Record every task in every repeat (repeat by repeat, tasks in order), skipping the groups ``out`` holds.

    Parameters
    ----------
    model : str
        The model's spec (:func:`~cvlib.models.registry.open_model`).
    out : str or os.PathLike
        The recording (``.jsonl.gz``), created or resumed.
    tasks : sequence of StudyTask
        The tasks, in recording order.
    repeats : sequence of int
        The repeats to record.
    workers : int
        Worker processes, each with its own copy of the model and one thread.
    progress : bool
        Show a progress bar.
    resume : str
        The command that resumes the recording (written in a new file's header).

    Returns
    -------
    tuple of (int, int)
        Groups recorded now, and groups already there.
    """
    from tqdm.auto import tqdm

    done = recorded_groups(out)
    jobs = [(t, r) for r in repeats for t in tasks]
    todo = [(t, r) for t, r in jobs if group_name(t, r) not in done]
    if resume:
        start_recording(out, EXPERIMENT, resume)
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), disable=not progress, desc=f"agent study {model}", unit="group")
    recorded = 0
    try:
        if todo and workers <= 1:  # nothing left to do opens no model
            live = open_model(model)
            live.prepare(STUDY_SETTINGS)
            for task, repeat in todo:
                append_lines(out, run_group(live, task, repeat))
                recorded += 1
                bar.update(1)
        elif todo:
            with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(model,)) as pool:
                for lines in pool.map(_work, todo):
                    append_lines(out, lines)
                    recorded += 1
                    bar.update(1)
    finally:
        bar.close()
    return recorded, len(jobs) - len(todo)


def reader_recording(model: str, record_tasks: int, folder: str | os.PathLike[str]) -> Path:
    """A reader's own recording of the study: the first ``record_tasks`` tasks in the seeded order, greedy repeat only.

    The chapter's ``model`` parameter lands here: a bundled name, a GGUF path
    or a server URL records (resuming) into ``agent_study.<model>.jsonl.gz``
    in ``folder`` (:func:`~cvlib.models.naming.new_recording_path`), and the
    page then reads only that file. A prefix of the seeded order is a random
    sample of the study's tasks, as the stopping rule says of a cut recording.

    Parameters
    ----------
    model : str
        The model's spec (:func:`~cvlib.models.registry.open_model`).
    record_tasks : int
        How many tasks, from the start of :func:`study_tasks`.
    folder : str or os.PathLike
        Where the recording goes (``_runs`` under the repository root).

    Returns
    -------
    pathlib.Path
        The recording.
    """
    from cvlib.models.naming import new_recording_path

    count = require_int("record_tasks", record_tasks, minimum=1)
    out = new_recording_path(folder, EXPERIMENT, model)
    with quiet_progress():
        record_study(model, out, study_tasks()[:count], (0,), progress=False)
    return out
