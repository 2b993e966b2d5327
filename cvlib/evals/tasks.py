"""The two studies as inspect_ai tasks: a sample per cell or group of calls, the study's own runner as the solver.

``inspect eval cvbook/agent_study --model ...`` and ``inspect eval
cvbook/notes_study --model ...`` name the two task functions of
:mod:`cvbook.inspect_registry`, which build their tasks here. The defaults are
the pre-registered design, each study's second edition:

* the agent study (``data/model_trials/preregistration_part3.md``): a sample
  per task and option order (the order a sample field; ``-T orders=0,1,2``,
  all three by default), the four arms and their probes in one sample, every
  call evaluated ``pure``;
* the notes study (``..._part4.md``): a sample per task, variant
  (``-T variants=unrefutable,refutable,placebo``) and repeat, every call read
  afresh; ``-T repeats=plan`` (the default) is the model's pre-registered
  repeats (the greedy repeat for SmolLM2-135M and for a model the plan does
  not name; greedy and two sampled repeats for the two Qwen coders).

Samples come in the order the project records them, so ``--limit N`` runs a
random sample of whole tasks, as a cut recording does. The solver
(:func:`study_solver`) runs the sample through the study's own runner with the
eval's model behind :class:`~cvlib.evals.bridge.InspectModel`, and keeps the
recorded lines in the sample's store (:data:`LINES_KEY`), each annotated with
how its answer was held to its grammar; the scorers read those lines, and
``cvlib models import-inspect`` turns them back into a recording.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio.to_thread
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from cvlib.core.errors import ParameterError
from cvlib.evals.bridge import AUTO, DEFAULT_RETRIES, WAYS, InspectModel
from cvlib.evals.runners import (
    AGENT_STUDY,
    NOTES_PLANS,
    NOTES_STUDY,
    NOTES_VARIANTS,
    ORDERS,
    GroupSample,
    agent_samples,
    notes_samples,
    parse_list,
    run_agent_sample,
    run_notes_sample,
)
from cvlib.evals.scores import AGENT_METRICS, NOTES_METRICS, agent_scores, notes_scores

__all__ = ["LINES_KEY", "PLAN", "RUNNERS", "agent_study_task", "notes_study_task", "planned_repeats", "study_solver"]

logger = logging.getLogger(__name__)

#: Where a sample's store keeps the runner's recorded lines.
LINES_KEY = "cvlib_lines"
#: Static concurrency — ``--max-connections`` (or the provider's default) calls at a time. inspect's adaptive
#: concurrency was seen to spin without making a call against the in-process provider, which takes one call at a time.
_CONFIG = GenerateConfig(adaptive_connections=False)
#: Each study's sample runner, the seam a new edition is pointed at (:mod:`cvlib.evals.runners`).
RUNNERS: dict[str, Callable[..., list[str]]] = {AGENT_STUDY: run_agent_sample, NOTES_STUDY: run_notes_sample}


#: ``-T repeats=plan`` — the repeats the pre-registration plans for the eval's model.
PLAN = "plan"


def _whole_numbers(name: str, value: str | int | Sequence[Any], example: str) -> tuple[int, ...]:
    items = parse_list(name, str(value) if isinstance(value, int) else value)
    try:
        numbers = tuple(int(s) for s in items)
    except ValueError:
        numbers = (-1,)
    if any(r < 0 for r in numbers) or len(set(numbers)) != len(numbers):
        raise ParameterError(f"task parameter {name}={value!r}: expected distinct whole numbers >= 0, e.g. {example}")
    return numbers


def _orders(value: str | int | Sequence[Any]) -> tuple[int, ...]:
    orders = _whole_numbers("orders", value, "0,1,2")
    if any(o not in ORDERS for o in orders):
        raise ParameterError(f"task parameter orders={value!r}: expected option orders among {','.join(map(str, ORDERS))}")
    return orders


def planned_repeats(model_name: str) -> tuple[int, ...]:
    """The notes study's pre-registered repeats for an inspect model name (``cvlib/qwen2.5-coder-0.5b`` -> 0, 1, 2).

    Parameters
    ----------
    model_name : str
        The model as inspect names it; its last part is looked up in the plan.

    Returns
    -------
    tuple of int
        The planned repeats; the greedy repeat alone for a model the plan does not name.
    """
    return tuple(NOTES_PLANS.get(model_name.rsplit("/", 1)[-1], (0,)))


def _notes_repeats(value: str | int | Sequence[Any]) -> tuple[int, ...]:
    if value != PLAN:
        return _whole_numbers("repeats", value, "0 or 0,1,2 (or plan)")
    try:
        name = str(get_model())
    except Exception:  # no active model (the task built outside an eval): the greedy repeat
        return (0,)
    return planned_repeats(name)


def _positive(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(f"task parameter {name}={value!r}: expected a whole number >= {minimum}")
    return value


def study_solver(study: str, constraint: str = AUTO, retries: int = DEFAULT_RETRIES, threads: int = 1) -> Solver:
    """The solver of ``study``: the sample's group through the study's runner, the eval's model answering.

    Parameters
    ----------
    study : str
        ``agent_study`` or ``notes_study``.
    constraint : str
        How answers are held to their grammar: ``auto`` (the best the provider allows) or one of
        :data:`~cvlib.evals.bridge.WAYS`.
    retries : int
        The strict parser's retries.
    threads : int
        The threads a call's settings record (the in-process runtime uses them).

    Returns
    -------
    inspect_ai.solver.Solver
    """
    if study not in RUNNERS:
        raise ParameterError(f"unknown study {study!r}; expected one of {', '.join(RUNNERS)}")
    if constraint != AUTO and constraint not in WAYS:
        raise ParameterError(f"task parameter constraint={constraint!r}: expected {AUTO} or one of {', '.join(WAYS)}")
    run = RUNNERS[study]

    @solver(name=f"{study}_runner")
    def runner() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            bridge = InspectModel(get_model(), constraint, retries)
            lines = await anyio.to_thread.run_sync(run, bridge, dict(state.metadata), threads)
            annotated = bridge.annotate(lines)
            refused = [c for c in bridge.calls if not c.admitted]
            if refused:
                logger.warning("%s: %d of %d answers in sample %s are outside the grammar (way %s); recorded as given, "
                               "read by the study's own parser", state.model, len(refused), len(bridge.calls),
                               state.sample_id, bridge.way)
            state.store.set(LINES_KEY, annotated)
            state.output = ModelOutput.from_content(model=str(state.model),
                                                    content=f"{len(annotated)} answers recorded, {len(bridge.calls)} asked of "
                                                            f"the model ({bridge.way})")
            state.completed = True
            return state

        return solve

    return runner()


def _per_arm_scorer(name: str, compute: Callable[[list[str]], Mapping[str, Mapping[str, float]]]) -> Scorer:
    @scorer(metrics={"*": [mean(), stderr()]}, name=name)
    def per_arm() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            lines: list[str] = state.store.get(LINES_KEY, [])
            values = dict(compute(lines)[name])  # a sample without lines scores NaN (unscored) in every arm
            return Score(value=values, explanation=f"{name} per arm, from {len(lines)} recorded calls")

        return score

    return per_arm()


def _dataset(samples: Sequence[GroupSample], name: str) -> MemoryDataset:
    return MemoryDataset([Sample(id=s.id, input=s.input, metadata=s.metadata) for s in samples], name=name)


def agent_study_task(orders: str | int | Sequence[Any] = ",".join(map(str, ORDERS)), constraint: str = AUTO,
                     retries: int = DEFAULT_RETRIES, threads: int = 1, evaluation: str = "pure") -> Task:
    """The agent study's second edition: a sample per task and option order; four arms and probes; per-arm scores.

    Parameters
    ----------
    orders : str, int or sequence
        The option orders (``0``: EXECUTE, VERIFY, REPLAN; ``1``, ``2``: the other two cyclic orders); all three
        as pre-registered.
    constraint : str
        ``auto`` or one of :data:`~cvlib.evals.bridge.WAYS`.
    retries : int
        The strict parser's retries after an answer outside the grammar.
    threads : int
        The runtime's threads, as the calls' settings record them.
    evaluation : str
        ``pure`` (part 3, SmolLM2-135M's recording) or ``aligned`` (the Qwen models' recordings: batches of 32
        tokens from the prompt's start, only whole shared batches reused); either way an answer depends on its
        prompt alone.

    Returns
    -------
    inspect_ai.Task
    """
    chosen = _orders(orders)
    scorers = [_per_arm_scorer(m, agent_scores) for m in AGENT_METRICS]
    return Task(dataset=_dataset(agent_samples(chosen, evaluation), AGENT_STUDY),
                solver=study_solver(AGENT_STUDY, constraint, _positive("retries", retries, 0), _positive("threads", threads)),
                scorer=scorers, name=AGENT_STUDY, version=2, config=_CONFIG,
                metadata={"design": "data/model_trials/preregistration_part3.md", "orders": list(chosen)})


def notes_study_task(variants: str | Sequence[Any] = ",".join(NOTES_VARIANTS), repeats: str | int | Sequence[Any] = PLAN,
                     constraint: str = AUTO, retries: int = DEFAULT_RETRIES, threads: int = 1) -> Task:
    """The notes study's second edition: a sample per task, variant and repeat; its arms; read by the frozen reader.

    Parameters
    ----------
    variants : str or sequence
        Of ``unrefutable``, ``refutable``, ``placebo`` (all three as pre-registered).
    repeats : str, int or sequence
        ``plan`` (the model's pre-registered repeats), or ``0`` greedy (all six arms) and ``1``, ``2`` sampled
        (the three stale arms).
    constraint : str
        ``auto`` or one of :data:`~cvlib.evals.bridge.WAYS` (the notes study's answers are free code: no grammar).
    retries : int
        The strict parser's retries.
    threads : int
        The runtime's threads, as recorded.

    Returns
    -------
    inspect_ai.Task
    """
    chosen_variants = parse_list("variants", variants, NOTES_VARIANTS)
    chosen = _notes_repeats(repeats)
    scorers = [_per_arm_scorer(m, notes_scores) for m in NOTES_METRICS]
    return Task(dataset=_dataset(notes_samples(chosen_variants, chosen), NOTES_STUDY),
                solver=study_solver(NOTES_STUDY, constraint, _positive("retries", retries, 0), _positive("threads", threads)),
                scorer=scorers, name=NOTES_STUDY, version=2, config=_CONFIG,
                metadata={"design": "data/model_trials/preregistration_part4.md", "variants": list(chosen_variants),
                          "repeats": list(chosen)})
