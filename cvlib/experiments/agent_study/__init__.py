"""The agent-loop study: a language model decides every step of the benchmark's plans.

Its tasks (:mod:`.tasks`: named scenarios, variants, the budget sweep, seeded
random plans), the arms' prompts (:mod:`.prompts`), how an answer is read
(:mod:`.parsing`), the model as the executors' policy (:mod:`.policy`), the
recorder (:mod:`.recording`) and the runs read back from a recording
(:mod:`.results`). The model runtime it asks is :mod:`cvlib.models`; the
chapter that shows it reads only the recordings.
"""

from __future__ import annotations

from cvlib.experiments.agent_study.parsing import ACTIONS, Decision, parse_decision
from cvlib.experiments.agent_study.policy import AGENT_SETTINGS, ModelPolicy, decisions_summary, plan_lines
from cvlib.experiments.agent_study.prompts import ARMS, Knowledge, PlanLine, blocked, system_prompt
from cvlib.experiments.agent_study.recording import (
    EXPERIMENT,
    RecordingProgress,
    chapter_recording,
    record_agent_loop,
    recording_path,
    run_arm,
    run_task_arms,
)
from cvlib.experiments.agent_study.results import RUN_COLUMNS, agent_runs, balanced, mean_interval, task_of
from cvlib.experiments.agent_study.tasks import (
    FAMILIES,
    RANDOM_MAX_STEPS,
    VARIANTS,
    AgentTask,
    agent_tasks,
    reference_results,
    run_task,
    run_task_dict,
    task_setup,
)

__all__ = [
    "ACTIONS",
    "AGENT_SETTINGS",
    "ARMS",
    "EXPERIMENT",
    "FAMILIES",
    "RANDOM_MAX_STEPS",
    "RUN_COLUMNS",
    "VARIANTS",
    "AgentTask",
    "Decision",
    "Knowledge",
    "ModelPolicy",
    "PlanLine",
    "RecordingProgress",
    "agent_runs",
    "agent_tasks",
    "balanced",
    "blocked",
    "chapter_recording",
    "decisions_summary",
    "mean_interval",
    "parse_decision",
    "plan_lines",
    "record_agent_loop",
    "recording_path",
    "reference_results",
    "run_arm",
    "run_task",
    "run_task_arms",
    "run_task_dict",
    "system_prompt",
    "task_of",
    "task_setup",
]
