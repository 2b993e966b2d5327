"""Every model run of the two language-model studies so far, one row per recording: the book's table of models.

A reader who runs the studies on a model of their own adds a recording to
``data/model_trials/`` (imported from inspect logs, or made by the
project's recorder) and the table grows by a row. Each row is read from
the recording alone, so it cannot disagree with the calls it describes:
the study and edition come from the file's name (``<experiment>.<model>.jsonl[.gz]``);
where the model ran, how its answers were held and the settings that decide
an answer come from the recorded calls (each call's ``runtime`` and
``settings``); what was recorded is counted in the design's own unit (a
cell of the agent study's second edition, a group elsewhere) and held
against the pre-registered plan where the code states it. The plan is
counted from the designs themselves, never typed here: the first agent
study's tasks and planned repeats (:mod:`cvlib.experiments.agent_study.design`),
and the second editions' cells and groups as the inspect tasks run them
(:func:`cvlib.evals.runners.agent_samples`, :func:`cvlib.evals.runners.notes_groups`).

A recording that a recorder is still appending to is read up to its last
whole line (``allow_cut_tail``), so the table can be made while a study
records; it then says how far the run has come.

``python -m cvlib.presentation.model_runs --write book/models_run.md``
writes the table the book page includes; a test fails when it is out of date.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cvlib.core.errors import ParameterError
from cvlib.models.recording import CallRecord, canonical, read_recording
from cvlib.presentation._study_models import FOLD_AFTER, MODELS, model_label
from cvlib.presentation.formatting import plural
from cvlib.presentation.tables import Table

__all__ = ["EXPERIMENTS", "ModelRun", "model_runs", "models_run_markdown", "models_run_table"]


@dataclass(frozen=True, slots=True)
class _Experiment:
    """What a recording's experiment name says: the study, the edition, and the unit its calls are grouped in."""

    study: str
    edition: str
    rank: int
    unit: str


#: The experiments the table knows, by the name their recordings start with, in the table's order.
EXPERIMENTS: dict[str, _Experiment] = {
    "agent_loop": _Experiment("agent study", "exploratory trials", 0, ""),
    "agent_study": _Experiment("agent study", "first edition", 1, "groups"),
    "agent_study_2": _Experiment("agent study", "second edition", 2, "cells"),
    "notes_trials": _Experiment("notes study", "exploratory trials", 3, ""),
    "notes_study": _Experiment("notes study", "first edition", 4, "groups"),
    "notes_study_2": _Experiment("notes study", "second edition", 5, "groups"),
}
#: Fields of a recorded task that name its repeat, order or variant, not the task.
_NOT_THE_TASK = ("repeat", "order", "variant", "context_from")
#: How answers were held to their form, by the ``constraint`` an inspect run records (and the project's recorder implies).
_WAYS = {"grammar": "grammar", "json_schema": "JSON schema", "parser": "parser", "none": "free text"}
#: Words for a call's evaluation (:class:`~cvlib.models.settings.GenerationSettings`).
_EVALUATIONS = ("cached", "pure", "fresh", "aligned")


@dataclass(frozen=True, slots=True)
class ModelRun:
    """One recording: which study and model, where and how it ran, and how much of its plan it holds.

    Attributes
    ----------
    file : str
        The recording's file name.
    study, edition : str
        As the book names them ("agent study", "second edition"; the trials before the first edition are "exploratory trials").
    model : str
        The model as the pages name it (a reader's model keeps its file's stem).
    where : str
        Where the calls were answered (in process, a server, an inspect provider).
    constrained : str
        How answers were held to their form (a grammar, a JSON schema, a parser, or free text).
    settings : str
        The settings that decide an answer: greedy or sampled, and how each prompt was evaluated.
    calls : int
        Recorded calls (lines).
    tasks : int
        Distinct tasks.
    groups : int or None
        Cells or groups recorded (None where the recording has no groups).
    unit : str
        What a group is called ("cells", "groups").
    planned : int or None
        The groups the pre-registered plan holds for this model, where the code states the plan.
    """

    file: str
    study: str
    edition: str
    model: str
    where: str
    constrained: str
    settings: str
    calls: int
    tasks: int
    groups: int | None
    unit: str
    planned: int | None

    @property
    def status(self) -> str:
        """``complete``, ``in progress`` or ``more than planned`` against the plan; empty without a plan."""
        if self.planned is None or self.groups is None:
            return ""
        if self.groups == self.planned:
            return "complete"
        return "in progress" if self.groups < self.planned else "more than planned"

    @property
    def recorded(self) -> str:
        """The status, then the cells or groups recorded (of those planned, until complete), then the tasks."""
        tasks = f"{self.tasks:,} task{'s' * (self.tasks != 1)}"
        if self.groups is None:
            return tasks
        if self.status == "in progress":
            return f"in progress: {self.groups:,} of {self.planned:,} {self.unit}, {tasks}"
        if self.status == "more than planned":
            return f"more than planned: {self.groups:,} of {self.planned:,} {self.unit}, {tasks}"
        return f"{self.status + ': ' if self.status else ''}{self.groups:,} {self.unit}, {tasks}"

    @property
    def how(self) -> str:
        """Where it ran, how its answers were held, and its settings, in one cell."""
        return f"{self.where}; {self.constrained}; {self.settings}"


def _where(runtime: Mapping[str, str]) -> str:
    """Where a call was answered, from its recorded runtime."""
    name = runtime.get("name", "")
    if name == "xllamacpp":
        place = "in process (llama.cpp)"
    elif name == "openai-server":
        place = "an OpenAI-compatible server"
    elif name.startswith("inspect/"):
        return f"inspect, provider {name.removeprefix('inspect/')}"
    else:
        place = f"runtime {name}"
    return f"inspect, provider cvlib: {place}" if runtime.get("via") == "inspect" else place


def _way(record: CallRecord) -> str:
    """How a call's answer was held: the recorded ``constraint``, or the project's recorder's grammar when there is one."""
    way = record.runtime.get("constraint") or ("grammar" if record.settings.grammar is not None else "none")
    return _WAYS.get(way, way)


def _settings(records: Sequence[CallRecord]) -> str:
    temperatures = sorted({r.settings.temperature for r in records})
    sampled = [t for t in temperatures if t > 0]
    decoding = ("greedy" if 0.0 in temperatures else "") + (" and " if 0.0 in temperatures and sampled else "")
    if sampled:
        decoding += "sampled at " + ", ".join(f"{t:g}" for t in sampled)
    evaluations = sorted({r.settings.evaluation for r in records}, key=_EVALUATIONS.index)
    return f"{decoding}, {' and '.join(evaluations)}"


def _joined(values: Iterable[str]) -> str:
    return " and ".join(sorted(set(values)))


def _task_key(task: object) -> str:
    if isinstance(task, Mapping):
        task = {k: v for k, v in task.items() if k not in _NOT_THE_TASK}
    return canonical(task)


def _planned(experiment: str, model: str) -> int | None:
    """The groups the pre-registered plan holds for ``model`` (a model outside the plan: the greedy repeat), or None."""
    if experiment == "agent_study":
        from cvlib.experiments.agent_study.design import CONTROL_TASKS, PLANNED_REPEATS, STALE_TASKS

        return (STALE_TASKS + CONTROL_TASKS) * len(PLANNED_REPEATS.get(model, (0,)))
    if experiment == "agent_study_2":
        from cvlib.evals.runners import agent_samples

        return len(agent_samples())
    if experiment == "notes_study_2":
        from cvlib.evals.runners import NOTES_PLANS, notes_groups

        return len(notes_groups(tuple(NOTES_PLANS.get(model, (0,)))))
    return None


def _named(path: Path) -> tuple[str, str] | None:
    """``(experiment, model)`` from ``<experiment>.<model>.jsonl[.gz]``, or None for any other file."""
    if not path.name.endswith((".jsonl", ".jsonl.gz")):
        return None
    experiment, _, rest = path.name.partition(".")
    model = rest.removesuffix(".gz").removesuffix(".jsonl")
    return (experiment, model) if experiment in EXPERIMENTS and model else None


def _run(path: Path, experiment: str, model: str) -> ModelRun:
    records = read_recording(path, allow_cut_tail=True)
    if not records:
        raise ParameterError(f"recording {path.name!r} holds no call yet; expected at least one recorded call")
    kind = EXPERIMENTS[experiment]
    groups = len({r.run for r in records if r.run}) if kind.unit else None
    return ModelRun(
        file=path.name,
        study=kind.study,
        edition=kind.edition,
        model=model_label(model),
        where=_joined(_where(r.runtime) for r in records),
        constrained=_joined(_way(r) for r in records),
        settings=_settings(records),
        calls=len(records),
        tasks=len({_task_key(r.task) for r in records}),
        groups=groups,
        unit=kind.unit,
        planned=_planned(experiment, model) if kind.unit else None,
    )


def model_runs(folder: str | os.PathLike[str]) -> list[ModelRun]:
    """One row per recording in ``folder``, by study, edition, then model (the bundled ones smallest first).

    Parameters
    ----------
    folder : str or os.PathLike
        A folder of recordings (``data/model_trials``); files not named
        ``<experiment>.<model>.jsonl[.gz]`` for an experiment of :data:`EXPERIMENTS` are not recordings of the studies.

    Returns
    -------
    list of ModelRun
    """
    base = Path(folder)
    if not base.is_dir():
        raise ParameterError(f"recordings folder {os.fspath(folder)!r} does not exist")
    found = [(path, *named) for path in sorted(base.iterdir()) if path.is_file() and (named := _named(path))]
    if not found:
        raise ParameterError(f"no study recording in {os.fspath(folder)!r}; expected files named "
                             "<experiment>.<model>.jsonl[.gz] with an experiment among " + ", ".join(EXPERIMENTS))
    rank = {m: k for k, m in enumerate(MODELS)}
    found.sort(key=lambda f: (EXPERIMENTS[f[1]].rank, rank.get(f[2], len(rank)), f[2], f[0].name))
    return [_run(path, experiment, model) for path, experiment, model in found]


def models_run_table(runs: Sequence[ModelRun]) -> Table:
    """The rows as the book's tables are shown: one cell for how it ran, calls right-aligned and kept whole.

    Past ``FOLD_AFTER`` (15) rows the table folds behind its row count, like
    every long table of the book: each reader who adds a run adds a row, and the page's instructions follow it.

    Parameters
    ----------
    runs : sequence of ModelRun
        :func:`model_runs`.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    rows = tuple((f"{r.study}, {r.edition}", r.model, r.how, f"{r.calls:,}", r.recorded) for r in runs)
    return Table(("Study", "Model", "How it ran", "Calls", "Recorded"), rows, (False, False, False, True, False),
                 summary=f"{plural(len(rows), 'recording')}, one row each", collapsed=len(rows) > FOLD_AFTER)


def models_run_markdown(runs: Sequence[ModelRun]) -> str:
    """The include the book page shows: a comment naming the command that writes it, then the table (as HTML).

    Parameters
    ----------
    runs : sequence of ModelRun
        :func:`model_runs`.

    Returns
    -------
    str
    """
    return ("<!-- Written by `python -m cvlib.presentation.model_runs --write book/models_run.md`;\n"
            "     tests/presentation/test_model_runs.py fails when it differs from the recordings. -->\n\n"
            f"{models_run_table(runs)._repr_html_()}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table of ``data/model_trials`` (or ``--recordings DIR``) as text, or write the include (``--write PATH``).

    Parameters
    ----------
    argv : sequence of str, optional
        The command line.

    Returns
    -------
    int
    """
    from cvlib.repository import data_path

    parser = argparse.ArgumentParser(description="Every model run of the studies so far, one row per recording.")
    parser.add_argument("--recordings", metavar="DIR", default=None, help="folder of recordings (default: data/model_trials)")
    parser.add_argument("--write", metavar="PATH", help="write the Markdown table to PATH")
    args = parser.parse_args(argv)
    runs = model_runs(args.recordings or data_path("model_trials"))
    if args.write:
        Path(args.write).write_text(models_run_markdown(runs), encoding="utf-8")
    else:
        print(repr(models_run_table(runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
