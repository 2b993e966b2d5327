"""The seam between inspect and the studies: one sample's runner per study, and the samples each study is made of.

The pre-registered design is each study's second edition
(``data/model_trials/preregistration_part3.md`` and ``..._part4.md``), so the
samples and runners here are those editions':

* the agent study (:mod:`cvlib.experiments.agent_study.edition2`): a sample
  is a *cell*, one task in one of the three cyclic option orders, its four
  arms back to back and then each arm's probe (:func:`run_agent_sample`);
* the notes study (:mod:`cvlib.experiments.notes_study.second_design`): a
  sample is a *group*, one task in one variant (unrefutable, refutable,
  placebo) and repeat, its arms back to back (:func:`run_notes_sample`).

A sample's ``metadata`` names its cell or group; the runner hands it to the
study's own code with any :class:`~cvlib.models.interface.LanguageModel` and
returns the recorded JSON lines. These functions (and the two sample lists)
are the only places that know the runners: a new edition is pointed at here.

What a runner must provide: a function ``(model, ..., threads) -> list[str]``
that makes every call of one sample through ``model.complete`` (after a
``model.reset()`` at its start, as the project's ``Recorder.begin`` does) and
returns one recorded line per answer, in order
(:class:`~cvlib.models.recording.CallRecord` JSON). A line may repeat an
earlier answer to the same pure prompt without a call
(:class:`~cvlib.models.memo.PromptMemo`); :meth:`cvlib.evals.bridge.InspectModel.annotate`
pairs lines with calls knowing that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.experiments.agent_study import edition2 as agent_design
from cvlib.experiments.agent_study.design import StudyTask
from cvlib.experiments.agent_study.edition2_prompts import OPTION_ORDERS
from cvlib.experiments.notes_study import second_design as notes_design
from cvlib.experiments.notes_study.second_prompts import VARIANTS as NOTES_VARIANTS
from cvlib.experiments.notes_study.second_tasks import SecondEdition, load_second_edition
from cvlib.models.interface import LanguageModel

__all__ = [
    "AGENT_STUDY",
    "NOTES_PLANS",
    "NOTES_STUDY",
    "ORDERS",
    "GroupSample",
    "agent_samples",
    "notes_samples",
    "parse_list",
    "run_agent_sample",
    "run_notes_sample",
]

#: The studies' experiment names, as their recorded lines carry them (the second editions').
AGENT_STUDY, NOTES_STUDY = agent_design.EXPERIMENT, notes_design.EXPERIMENT
#: The agent study's option orders (indices of :data:`~cvlib.experiments.agent_study.edition2_prompts.OPTION_ORDERS`).
ORDERS: tuple[int, ...] = tuple(range(len(OPTION_ORDERS)))
#: The notes study's repeats per bundled model as pre-registered (any other model gets the greedy repeat).
NOTES_PLANS: Mapping[str, tuple[int, ...]] = notes_design.PLANS


@dataclass(frozen=True, slots=True)
class GroupSample:
    """One cell or group of calls as an inspect sample: its id (the group's name), a line for the display, its metadata."""

    id: str
    input: str
    metadata: dict[str, Any]


def parse_list(name: str, value: str | Sequence[Any], allowed: Sequence[str] | None = None) -> tuple[str, ...]:
    """A task parameter given as ``a,b,c`` (the command line) or a list, each item checked against ``allowed``.

    Parameters
    ----------
    name : str
        The parameter's name, for the error.
    value : str or sequence
        What was given.
    allowed : sequence of str, optional
        The values it may hold.

    Returns
    -------
    tuple of str
    """
    items = tuple(s.strip() for s in value.split(",")) if isinstance(value, str) else tuple(str(v) for v in value)
    items = tuple(s for s in items if s)
    if not items:
        raise ParameterError(f"task parameter {name} is empty; expected a comma-separated list")
    bad = [s for s in items if allowed is not None and s not in allowed]
    if bad:
        raise ParameterError(f"task parameter {name}: {', '.join(bad)} not among {', '.join(allowed or ())}")
    return items


# -- the agent study -----------------------------------------------------------------------------------
@cache
def agent_tasks() -> tuple[StudyTask, ...]:
    """The second edition's 200 tasks in recording order (:func:`~cvlib.experiments.agent_study.edition2.edition2_tasks`).

    Returns
    -------
    tuple of StudyTask
    """
    return tuple(agent_design.edition2_tasks())


def agent_samples(orders: Sequence[int] = ORDERS, evaluation: str = "pure") -> list[GroupSample]:
    """The agent study's cells in recording order: task by task (seeded order), a task's orders together.

    Any prefix is a random sample of whole tasks, as a cut recording is.

    Parameters
    ----------
    orders : sequence of int
        Option orders (0: EXECUTE, VERIFY, REPLAN; 1 and 2 the other cyclic orders).
    evaluation : str
        ``pure`` (part 3) or ``aligned`` (the Qwen models' recordings), carried in each sample's metadata.

    Returns
    -------
    list of GroupSample
    """
    bad = [o for o in orders if o not in ORDERS]
    if bad or not orders:
        raise ParameterError(f"option orders {list(orders)!r}: expected distinct values among {', '.join(map(str, ORDERS))}")
    if evaluation not in ("pure", "aligned"):
        raise ParameterError(f"task parameter evaluation={evaluation!r}: expected pure or aligned")
    carried = {} if evaluation == "pure" else {"evaluation": evaluation}
    out = []
    for index, task in enumerate(agent_tasks()):
        kind = "stale-fact" if task.stale_fact else "control"
        for order in orders:
            listed = ", ".join(OPTION_ORDERS[order])
            out.append(GroupSample(agent_design.cell_name(task, order),
                                   f"{kind} task {task.task.family} {task.task.scenario}, options {listed}",
                                   {"study": AGENT_STUDY, "index": index, "order": order, **carried}))
    return out


def run_agent_sample(model: LanguageModel, metadata: Mapping[str, Any], threads: int = 1) -> list[str]:
    """One agent-study cell through the study's own runner (:func:`cvlib.experiments.agent_study.edition2.run_cell`).

    Pure evaluation (or the sample's ``evaluation``, :func:`agent_samples`) and the probes, as pre-registered.

    Parameters
    ----------
    model : LanguageModel
        The model.
    metadata : Mapping
        A sample's metadata (:func:`agent_samples`).
    threads : int
        The runtime's threads (recorded in the settings).

    Returns
    -------
    list of str
        The recorded lines, one per answer.
    """
    task = agent_tasks()[int(metadata["index"])]
    evaluation = str(metadata.get("evaluation", "pure"))
    return agent_design.run_cell(model, task, int(metadata["order"]), threads, evaluation=evaluation)


# -- the notes study -----------------------------------------------------------------------------------
@cache
def notes_edition() -> SecondEdition:
    """The notes study's second edition (tasks, refutations, harm rules) from the repository's data folder, read once.

    Returns
    -------
    SecondEdition
    """
    from cvlib.repository import data_path

    return load_second_edition(data_path("model_trials"))


@cache
def notes_groups(repeats: tuple[int, ...]) -> tuple[notes_design.StudyGroup, ...]:
    """Every group of ``repeats`` in recording order (:func:`~cvlib.experiments.notes_study.second_design.study_groups`).

    Parameters
    ----------
    repeats : tuple of int
        The repeats.

    Returns
    -------
    tuple of StudyGroup
    """
    edition = notes_edition()
    return tuple(notes_design.study_groups(edition.tasks, edition.refutations, edition.rules, repeats))


def notes_samples(variants: Sequence[str] = NOTES_VARIANTS, repeats: Sequence[int] = (0,)) -> list[GroupSample]:
    """The notes study's groups in the pre-registered order: repeat by repeat, task by task, a task's variants together.

    A task gets ``refutable`` only with a verified refutation and ``placebo`` only with a donor, as in the recorder.

    Parameters
    ----------
    variants : sequence of str
        Of :data:`NOTES_VARIANTS`.
    repeats : sequence of int
        The repeats (0 greedy, all six arms; 1, 2 sampled, the three stale arms).

    Returns
    -------
    list of GroupSample
    """
    out = []
    for index, group in enumerate(notes_groups(tuple(int(r) for r in repeats))):
        if group.variant not in variants:
            continue
        out.append(GroupSample(notes_design.group_name(group.task, group.variant, group.repeat),
                               f"notes task {group.task.id}, {group.variant}, repeat {group.repeat}",
                               {"study": NOTES_STUDY, "task": group.task.id, "variant": group.variant,
                                "repeat": group.repeat, "index": index}))
    return out


def _notes_group(metadata: Mapping[str, Any]) -> notes_design.StudyGroup:
    repeat = int(metadata["repeat"])
    for group in notes_groups((repeat,)):
        if group.task.id == metadata["task"] and group.variant == metadata["variant"]:
            return group
    raise ParameterError(f"no notes-study group {metadata['task']!r} {metadata['variant']!r} r{repeat} in the design")


def run_notes_sample(model: LanguageModel, metadata: Mapping[str, Any], threads: int = 1) -> list[str]:
    """One notes-study group through the study's own runner (:func:`cvlib.experiments.notes_study.second_design.run_group`).

    Parameters
    ----------
    model : LanguageModel
        The model.
    metadata : Mapping
        A sample's metadata (:func:`notes_samples`).
    threads : int
        The runtime's threads.

    Returns
    -------
    list of str
    """
    return notes_design.run_group(model, _notes_group(metadata), threads)
