"""The notes study: a local model asked to edit real functions with a true, a stale or no context note.

Its tasks (:mod:`.tasks`), the arms' prompts and the recorder (:mod:`.trials`),
the outcome as code reads it (:mod:`.classify`) and the summaries read back
from recordings (:mod:`.results`). The model runtime it asks is
:mod:`cvlib.models`; the chapter that shows it reads only the recordings.
"""

from __future__ import annotations

from cvlib.experiments.notes_study.classify import classify, extract_code
from cvlib.experiments.notes_study.results import (
    arm_summary,
    compare_models,
    complete_tasks,
    kind_summary,
    measured_rates,
    recording_comparison,
    replay_outcomes,
    stale_edit_share,
    task_grid,
    task_outcomes,
)
from cvlib.experiments.notes_study.tasks import RULE_KINDS, Edit, NotesTask, TaskFileError, load_tasks
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
    chapter_recording,
    decision_of,
    prompt_markdown,
    run_trials,
    runtime_installed,
    task_record,
    trial_plan,
)

__all__ = [
    "ARMS",
    "ARM_LABELS",
    "EXPERIMENT",
    "OUTCOMES",
    "RIGHT_OUTCOME",
    "RULE_KINDS",
    "SETTINGS",
    "STALE_ARMS",
    "VERIFY_RULE",
    "Edit",
    "NotesTask",
    "NotesTrialRun",
    "TaskFileError",
    "arm_summary",
    "build_prompt",
    "chapter_recording",
    "classify",
    "compare_models",
    "complete_tasks",
    "decision_of",
    "extract_code",
    "kind_summary",
    "load_tasks",
    "measured_rates",
    "prompt_markdown",
    "recording_comparison",
    "replay_outcomes",
    "run_trials",
    "runtime_installed",
    "stale_edit_share",
    "task_grid",
    "task_outcomes",
    "task_record",
    "trial_plan",
]
