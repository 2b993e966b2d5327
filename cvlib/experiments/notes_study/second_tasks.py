"""The second edition's inputs, loaded together: both task files, both refutation files, the stale harms.

The first edition's 44 tasks (``notes_tasks.yaml``, ``notes_refutations.yaml``)
stay as they were, so its chapter and its recordings read the same; the tasks
the second edition adds have their own files (``notes_tasks_2.yaml``,
``notes_refutations_2.yaml``), and its reader has its own stale harms
(``notes_stale_effects_2.yaml``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cvlib.experiments.notes_study.refutations import Refutation, RefutationFileError, load_refutations
from cvlib.experiments.notes_study.second_reading import HarmRule, harm_rules_cover, load_harm_rules
from cvlib.experiments.notes_study.task_file import load_tasks
from cvlib.experiments.notes_study.tasks import NotesTask, TaskFileError

__all__ = ["SECOND_FILES", "SecondEdition", "load_second_edition"]

#: The files the second edition reads, in a data folder (``data/model_trials``).
SECOND_FILES: Mapping[str, tuple[str, ...]] = {
    "tasks": ("notes_tasks.yaml", "notes_tasks_2.yaml"),
    "refutations": ("notes_refutations.yaml", "notes_refutations_2.yaml"),
    "rules": ("notes_stale_effects_2.yaml",),
}


@dataclass(frozen=True, slots=True)
class SecondEdition:
    """The second edition's tasks, refutations (by task id) and stale harms (by task id)."""

    tasks: tuple[NotesTask, ...]
    refutations: Mapping[str, Refutation]
    rules: Mapping[str, HarmRule]


def load_second_edition(folder: str | os.PathLike[str]) -> SecondEdition:
    """Load and cross-check the second edition's files from ``folder``.

    Parameters
    ----------
    folder : str or os.PathLike
        The data folder.

    Returns
    -------
    SecondEdition
        Task ids unique over both files; every refutation and harm names a known task.
    """
    base = Path(folder)
    tasks = tuple(t for name in SECOND_FILES["tasks"] for t in load_tasks(base / name))
    ids = [t.id for t in tasks]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise TaskFileError(f"the second edition's task files repeat ids: {', '.join(repeated)}")
    refutations: dict[str, Refutation] = {}
    for name in SECOND_FILES["refutations"]:
        refutations.update(load_refutations(base / name))
    unknown = sorted(set(refutations) - set(ids))
    if unknown:
        raise RefutationFileError(f"refutations name tasks the task files lack: {', '.join(unknown)}")
    rules = load_harm_rules(str(base / SECOND_FILES["rules"][0]))
    stray = harm_rules_cover(tasks, rules)
    if stray:
        raise TaskFileError(f"{SECOND_FILES['rules'][0]} names tasks the task files lack: {', '.join(stray)}")
    return SecondEdition(tasks, refutations, rules)
