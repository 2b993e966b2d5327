"""The notes study: a local model asked to edit real functions with a true, a stale or no context note.

Its tasks (:mod:`.tasks`, read by :mod:`.task_file`), the arms' prompts and the first recorder
(:mod:`.trials`) with its first outcome check (:mod:`.classify`, kept because
the first recordings store its verdicts); the pre-registered study's refuting contexts
(:mod:`.refutations`), design (:mod:`.design`), the answers read as code
(:mod:`.reading`) and the analysis (:mod:`.analysis`). The model runtime it asks is
:mod:`cvlib.models`; the chapter that shows it reads only the recordings.
"""

from __future__ import annotations

from cvlib.experiments.notes_study.classify import classify, extract_code
from cvlib.experiments.notes_study.reading import READ_OUTCOMES, Reading, StaleEffect, load_stale_effects, read_answer
from cvlib.experiments.notes_study.refutations import Refutation, load_refutations
from cvlib.experiments.notes_study.task_file import load_tasks
from cvlib.experiments.notes_study.tasks import RULE_KINDS, Edit, NotesTask, TaskFileError
from cvlib.experiments.notes_study.trials import (
    ARM_LABELS,
    ARMS,
    EXPERIMENT,
    OUTCOMES,
    RIGHT_OUTCOME,
    SETTINGS,
    STALE_ARMS,
    VERIFY_RULE,
    NotesTrialRun,
    build_prompt,
    decision_of,
    prompt_markdown,
    runtime_installed,
    task_record,
    trial_plan,
)

__all__ = [
    "ARMS",
    "ARM_LABELS",
    "EXPERIMENT",
    "OUTCOMES",
    "READ_OUTCOMES",
    "RIGHT_OUTCOME",
    "RULE_KINDS",
    "SETTINGS",
    "STALE_ARMS",
    "VERIFY_RULE",
    "Edit",
    "NotesTask",
    "NotesTrialRun",
    "Reading",
    "Refutation",
    "StaleEffect",
    "TaskFileError",
    "build_prompt",
    "classify",
    "decision_of",
    "extract_code",
    "load_refutations",
    "load_stale_effects",
    "load_tasks",
    "prompt_markdown",
    "read_answer",
    "runtime_installed",
    "task_record",
    "trial_plan",
]
