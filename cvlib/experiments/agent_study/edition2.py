"""The agent study's second edition as code: its tasks, cells, settings and recorder.

``data/model_trials/preregistration_part3.md`` states the design and why each
part changed; this module is that design, so recording and analysis cannot
drift from it. What differs from the first edition (:mod:`cvlib.experiments.agent_study.design`):

* **Equal information.** Every arm is given the raw evidence of every state
  (:mod:`.edition2_prompts`); the labelled arms add the states and nothing else.
* **Every option order.** Each task and arm is decided under the three cyclic
  orders of the options, greedily: a *cell* is a task in one order, its four
  arms back to back, then each arm's probe.
* **Tasks without a floor.** Beside 120 of the first edition's stale-fact tasks
  and its 40 controls, 40 stale-fact tasks on which the validity-aware executor
  is not optimal (:data:`~.tasks.FLOORLESS_FAMILIES`).
* **Answers that depend on the prompt alone.** Every call is evaluated ``pure``
  (the ``evaluation`` of :class:`~cvlib.models.settings.GenerationSettings`), so an answer
  is the same bytes whatever the process computed before it.
* **One probe for every arm**, whose answer the evidence states, scored per fact.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, VALIDITY_AWARE, ExecutorResult, get_policy
from cvlib.core.validation import require_int
from cvlib.experiments.agent_study.design import PROBE_SETTINGS, STUDY_SETTINGS, StudyTask, study_tasks
from cvlib.experiments.agent_study.edition2_prompts import EVIDENCE_ARMS, OPTION_ORDERS, EvidencePrompts
from cvlib.experiments.agent_study.policy import ModelPolicy
from cvlib.experiments.agent_study.study_prompts import decision_grammar, not_active, probe_grammar
from cvlib.experiments.agent_study.tasks import FLOORLESS_FAMILIES, AgentTask, run_task, task_setup
from cvlib.models.interface import LanguageModel
from cvlib.models.jsonl import append_lines
from cvlib.models.memo import PromptMemo
from cvlib.models.recording import Recorder, canonical, read_recording, sole_recorder, start_recording
from cvlib.models.registry import open_model

__all__ = [
    "CONTROL_TASKS",
    "EDITION2_SEED",
    "EXPERIMENT",
    "FIRST_EDITION_STALE",
    "FLOORLESS_TASKS",
    "PLANNED_MODELS",
    "cell_name",
    "cell_settings",
    "edition2_tasks",
    "floorless",
    "record_edition2",
    "recorded_cells",
    "run_cell",
    "task_cost",
]

#: The experiment name of the second edition's lines.
EXPERIMENT = "agent_study_2"
#: The seed of the second edition's task order.
EDITION2_SEED = 20261205
#: Stale-fact tasks taken from the first edition (in its seeded order), floorless stale-fact tasks, controls.
FIRST_EDITION_STALE, FLOORLESS_TASKS, CONTROL_TASKS = 120, 40, 40
#: The models of the plan, in recording order (pre-registration part 3, section 10).
PLANNED_MODELS = ("smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
_RANDOM_FAMILY_SEED, _RANDOM_MAX_STEPS, _FLOORLESS_LIMIT = 0, 8, 2000


def task_cost(result: ExecutorResult) -> int:
    """A run's cost: the steps it used if it completed, else its budget plus a penalty of its budget.

    An unfinished task costs twice its budget, more than any finished run of it, so a policy that stops
    acting (or never finishes) is never cheaper than one that completes.

    Parameters
    ----------
    result : ExecutorResult
        A run.

    Returns
    -------
    int
    """
    return result.steps_used if result.completed else 2 * result.budget


def floorless(task: AgentTask) -> bool:
    """Whether the validity-aware executor is not optimal on ``task``.

    True when it does doomed work (pre-failure work above zero: a change it could not see), or when the
    task's changes cost it more than the same plan without them costs it (checks of doubts that prove false,
    or a verification that misled it). Only tasks of :data:`~.tasks.FLOORLESS_FAMILIES` have a clean plan to
    compare with; for the others the first condition alone applies.

    Parameters
    ----------
    task : AgentTask
        The task.

    Returns
    -------
    bool
    """
    aware = run_task(task, get_policy(VALIDITY_AWARE))
    if aware.pre_failure_work > 0:
        return True
    if task.family not in FLOORLESS_FAMILIES:
        return False
    clean = AgentTask(family="random", scenario="random", params=task.params)
    return task_cost(aware) > task_cost(run_task(clean, get_policy(VALIDITY_AWARE)))


def _stale(task: AgentTask) -> bool:
    setup = task_setup(task)
    if not (setup.events or setup.silent_changes or setup.resource_events):
        return False
    base = run_task(task, get_policy(BASELINE))
    return base.decisions_on_stale_deps > 0 or base.replans > 0


def _floorless_candidates() -> Iterable[AgentTask]:
    for index in range(_FLOORLESS_LIMIT):
        for family in FLOORLESS_FAMILIES:
            yield AgentTask.of(family, "random", seed=_RANDOM_FAMILY_SEED, index=index, max_steps=_RANDOM_MAX_STEPS)


def edition2_tasks(
    first_stale: int = FIRST_EDITION_STALE,
    floorless_count: int = FLOORLESS_TASKS,
    controls: int = CONTROL_TASKS,
    *,
    seed: int = EDITION2_SEED,
) -> list[StudyTask]:
    """The second edition's tasks in recording order.

    The first ``first_stale`` stale-fact tasks and the first ``controls`` controls of the first edition's
    seeded order; then, from each floorless family in index order, an equal share of ``floorless_count`` (the
    first families take one more when it does not divide) of the stale-fact tasks on which :func:`floorless`
    holds; all shuffled
    with ``seed``, so any finished prefix of the recording is a random sample of the three kinds.

    Parameters
    ----------
    first_stale, floorless_count, controls : int
        How many of each kind.
    seed : int
        The shuffle's seed.

    Returns
    -------
    list of StudyTask
    """
    first_stale = require_int("first_stale", first_stale, minimum=0)
    floorless_count = require_int("floorless_count", floorless_count, minimum=0)
    controls = require_int("controls", controls, minimum=0)
    first = study_tasks()
    stale = [t for t in first if t.stale_fact][:first_stale]
    control = [t for t in first if not t.stale_fact][:controls]
    if len(stale) < first_stale or len(control) < controls:
        raise ParameterError(
            f"the first edition has {len(stale)} stale-fact and {len(control)} control tasks; asked for "
            f"{first_stale} and {controls}"
        )
    share, extra = divmod(floorless_count, len(FLOORLESS_FAMILIES))
    quota = {family: share + (k < extra) for k, family in enumerate(FLOORLESS_FAMILIES)}
    hard: list[StudyTask] = []
    for task in _floorless_candidates():
        if not any(quota.values()):
            break
        if quota[task.family] and _stale(task) and floorless(task):
            hard.append(StudyTask(task, True))
            quota[task.family] -= 1
    if any(quota.values()):
        raise ParameterError(f"too few floorless stale-fact tasks among the candidates; still wanted {quota}")
    chosen = stale + hard + control
    random.Random(require_int("seed", seed)).shuffle(chosen)
    return chosen


#: The batch size of ``aligned`` evaluation. Prompts are read in batches of 32 tokens from position 0, and only
#: whole shared batches are reused (:mod:`cvlib.models.aligned`).
ALIGNED_BATCH = 32
#: Why the Qwen models are recorded under ``aligned`` evaluation, not the ``pure`` that part 3 (section 11) planned.
EVALUATION_DEVIATION = (
    "Part 3 planned pure evaluation (one token per batch) for every model. Qwen2.5-Coder-0.5B's first cells took "
    "about 100 s each under it, 16 hours for its 600 cells, so before either Qwen model's first recorded cell the "
    "two were moved to aligned evaluation: batches of 32 tokens from position 0, reusing only whole shared batches. "
    "An answer still depends on its prompt alone (each call re-generated in a fresh runtime gives the same bytes); "
    "it is about 1.7 times faster. SmolLM2-135M stays pure, as it was recorded. The choice was made on machine time "
    "alone, before any Qwen cell of this edition was kept."
)


@dataclass(frozen=True, slots=True)
class _CellSettings:
    decision: Any
    probe: Any
    prompts: EvidencePrompts


def cell_settings(task: StudyTask, order: int, threads: int = 1, *, evaluation: str = "pure") -> _CellSettings:
    """A cell's decision and probe settings (greedy, pure, the task's grammars) and its prompts (the order).

    Parameters
    ----------
    task : StudyTask
        The task.
    order : int
        0, 1 or 2: which of :data:`~.edition2_prompts.OPTION_ORDERS`.
    threads : int
        Threads of the runtime.
    evaluation : str
        ``pure`` (the design), or ``aligned`` (read in batches of :data:`ALIGNED_BATCH`; the Qwen models'
        deviation, :data:`EVALUATION_DEVIATION`); ``cached`` only to measure what purity costs
        (``python -m benchmarks.models``).

    Returns
    -------
    _CellSettings
    """
    order = require_int("order", order, minimum=0)
    if order >= len(OPTION_ORDERS):
        raise ParameterError(f"order must be 0, 1 or 2 (one of the three cyclic option orders), got {order}")
    facts = task_setup(task.task).plan.facts
    batch = ALIGNED_BATCH if evaluation == "aligned" else STUDY_SETTINGS.batch_size
    decision = replace(STUDY_SETTINGS, grammar=decision_grammar(facts), threads=threads, evaluation=evaluation,
                       batch_size=batch)
    probe = replace(PROBE_SETTINGS, grammar=probe_grammar(facts), threads=threads, evaluation=evaluation,
                    batch_size=batch if evaluation == "aligned" else PROBE_SETTINGS.batch_size)
    return _CellSettings(decision, probe, EvidencePrompts(OPTION_ORDERS[order]))


def cell_name(task: StudyTask, order: int) -> str:
    """The name of a cell's group of calls (the recording's ``run`` field).

    Parameters
    ----------
    task : StudyTask
        The task.
    order : int
        The option order's index.

    Returns
    -------
    str
    """
    return f"{canonical(task.task.to_dict())} o{order}"


def _probe_scores(named: Sequence[str], right: Sequence[str]) -> dict[str, Any]:
    hits = len(set(named) & set(right))
    return {
        "named": list(named),
        "right": list(right),
        "correct": list(named) == list(right),
        "hits": hits,
        "precision": hits / len(named) if named else None,
        "recall": hits / len(right) if right else None,
    }


def run_cell(model: LanguageModel, task: StudyTask, order: int, threads: int = 1, *, probes: bool = True,
             evaluation: str = "pure") -> list[str]:
    """One task in one option order: the four arms back to back, then each arm's probe; its JSON lines.

    Parameters
    ----------
    model : LanguageModel
        The model (live, or a replayed one).
    task : StudyTask
        The task.
    order : int
        The option order's index.
    threads : int
        Threads of the runtime.
    probes : bool
        Put the competence probe after the arms.
    evaluation : str
        As :func:`cell_settings`.

    Returns
    -------
    list of str
    """
    chosen = cell_settings(task, order, threads, evaluation=evaluation)
    # Pure evaluation makes a repeated prompt's answer the one already computed (told and enforced share every
    # prompt up to the first refused EXECUTE), so the cell computes each distinct prompt once.
    recorder = Recorder(PromptMemo(model), None, EXPERIMENT)
    recorder.begin(cell_name(task, order))
    recorded = {**task.to_dict(), "order": order}
    lines: list[str] = []
    points = {}
    for arm in EVIDENCE_ARMS:
        policy = ModelPolicy(recorder, arm, chosen.decision, task=recorded, prompts=chosen.prompts)
        result = run_task(task.task, policy)
        lines += [r.to_json() for r in recorder.take({"run": result.to_dict()})]
        points[arm] = policy.probe_point
    if probes:
        for arm, point in points.items():
            if point is None:
                continue
            history, knowledge = point
            question = chosen.prompts.probe(knowledge, arm, first=len(history) == 1)
            answer = recorder.complete((*history, ("user", question)), chosen.probe)
            named = sorted(set(answer.split()) - {"NONE"})
            scores = _probe_scores(named, not_active(knowledge))
            recorder.record(arm=arm, task=recorded, step=knowledge.position,
                            decision={"probe": True, **scores, **chosen.prompts.describe()}, outcome=None)
        lines += [r.to_json() for r in recorder.take()]
    return lines


def recorded_cells(path: str | os.PathLike[str]) -> set[str]:
    """The cells a recording holds whole (a cell's lines are written together).

    Parameters
    ----------
    path : str or os.PathLike
        The recording (a missing file holds none).

    Returns
    -------
    set of str
    """
    return {r.run for r in _own_records(path) if r.run}


def _own_records(path: str | os.PathLike[str]) -> list[Any]:
    if not Path(path).is_file():
        return []
    return [r for r in read_recording(path, allow_cut_tail=True) if r.experiment == EXPERIMENT]


_WORKER: dict[str, Any] = {}


def _init_worker(spec: str, evaluation: str) -> None:
    _WORKER["model"] = open_model(spec)
    _WORKER["evaluation"] = evaluation


def _work(job: tuple[StudyTask, int]) -> list[str]:
    task, order = job
    return run_cell(_WORKER["model"], task, order, evaluation=_WORKER["evaluation"])


def record_edition2(
    model: str,
    out: str | os.PathLike[str],
    tasks: Sequence[StudyTask],
    orders: Sequence[int] = (0, 1, 2),
    *,
    workers: int = 1,
    progress: bool = True,
    resume: str = "",
    evaluation: str = "pure",
) -> tuple[int, int]:
    """Record every task in every order (task by task, its orders together), skipping the cells ``out`` holds.

    Taking a task's three orders together keeps a cut recording balanced over orders.

    Parameters
    ----------
    model : str
        The model's spec (:func:`~cvlib.models.registry.open_model`).
    out : str or os.PathLike
        The recording (``.jsonl.gz``), created or resumed.
    tasks : sequence of StudyTask
        The tasks, in recording order.
    orders : sequence of int
        The option orders to record.
    workers : int
        Worker processes, each with its own copy of the model and one thread.
    progress : bool
        Show a progress bar.
    resume : str
        The command that resumes the recording (written in a new file's header).
    evaluation : str
        ``pure`` or ``aligned`` (:func:`cell_settings`); a recording keeps one throughout, so resuming under
        the other is refused.

    Returns
    -------
    tuple of (int, int)
        Cells recorded now, and cells already there.
    """
    if evaluation not in ("pure", "aligned"):
        raise ParameterError(f"evaluation must be pure or aligned (an answer that depends on its prompt alone), "
                             f"got {evaluation!r}")
    with sole_recorder(out):
        return _record(model, out, tasks, orders, workers=workers, progress=progress, resume=resume,
                       evaluation=evaluation)


def _record(model: str, out: str | os.PathLike[str], tasks: Sequence[StudyTask], orders: Sequence[int], *,
            workers: int, progress: bool, resume: str, evaluation: str) -> tuple[int, int]:
    from tqdm.auto import tqdm

    done = recorded_cells(out)
    other = {r.settings.evaluation for r in _own_records(out)} - {evaluation}
    if other:
        raise ParameterError(f"{Path(out).name} was recorded under {' and '.join(sorted(other))} evaluation; "
                             f"resuming it under {evaluation} would mix two ways of computing answers")
    jobs = [(t, o) for t in tasks for o in orders]
    todo = [(t, o) for t, o in jobs if cell_name(t, o) not in done]
    if resume:
        start_recording(out, EXPERIMENT, resume)
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), disable=not progress, desc=f"agent study 2 {model}",
               unit="cell")
    recorded = 0
    try:
        if todo and workers <= 1:
            live = open_model(model)
            for task, order in todo:
                append_lines(out, run_cell(live, task, order, evaluation=evaluation))
                recorded += 1
                bar.update(1)
        elif todo:
            with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(model, evaluation)) as pool:
                for lines in pool.map(_work, todo):
                    append_lines(out, lines)
                    recorded += 1
                    bar.update(1)
    finally:
        bar.close()
    return recorded, len(jobs) - len(todo)
