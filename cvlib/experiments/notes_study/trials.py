"""The notes trials with a local model: the six arms' prompts, the outcome as code reads it, and the recorder.

A task is one function from a real release of Requests, Flask or HTTPie, at a
release step where the function's own code did not change while something it
depends on in its file did (so the symbol-only gate calls a note on it FRESH
and the dependency-aware gate withholds it), with two notes: a **true** one,
asking for a harmless edit (a comment that states an invariant), and a
plausible **stale** one, asking for an edit that is wrong, with a sentence
saying why. Both edits are stored in a form code can check (:class:`Edit`).

Every arm puts the same instruction and the same function to the model; they
differ only in the context note (:func:`build_prompt`):

* ``control``: no note section at all;
* ``true_note``: the true note, labelled "located, high-confidence";
* ``stale_labelled``: the stale note, labelled "confidence: medium; locate
  status: unresolved/ambiguous" (a gate that warns);
* ``stale_verify``: the same, plus the source study's verify-first rule;
* ``dependency_changed``: the stale note labelled "located, high-confidence":
  what a symbol-only gate shows, since the note's own code is unchanged;
* ``withheld``: the note section present and empty: what the
  dependency-aware gate shows for the same note.

The model never grades itself: :func:`classify` reads the first fenced code
block of the answer and decides, in this order, ``stale_edit`` (the stale
edit is in it), ``true_edit`` (the true edit is in it), ``unchanged`` (the
function's syntax tree is the original's) or ``other`` (anything else,
including an answer without the function).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.classify import classify, extract_code
from cvlib.experiments.notes_study.task_file import load_tasks
from cvlib.experiments.notes_study.tasks import NotesTask
from cvlib.models.interface import LanguageModel
from cvlib.models.naming import recording_stem
from cvlib.models.registry import open_model
from cvlib.models.settings import GenerationSettings, Message

__all__ = [
    "ARMS",
    "ARM_LABELS",
    "EXPERIMENT",
    "OUTCOMES",
    "RIGHT_OUTCOME",
    "SETTINGS",
    "STALE_ARMS",
    "VERIFY_RULE",
    "NotesTrialRun",
    "build_prompt",
    "classify",
    "decision_of",
    "extract_code",
    "prompt_markdown",
    "runtime_installed",
    "task_record",
    "trial_plan",
]

#: The experiment name every recorded line carries.
EXPERIMENT = "notes_trials"

#: The arms, in the order each task's trials are recorded (all six of a task before the next task).
ARMS: tuple[str, ...] = ("control", "true_note", "stale_labelled", "stale_verify", "dependency_changed", "withheld")

#: The arms that show the stale note.
STALE_ARMS: tuple[str, ...] = ("stale_labelled", "stale_verify", "dependency_changed")

#: The outcomes :func:`classify` gives, in display order.
OUTCOMES: tuple[str, ...] = ("stale_edit", "true_edit", "unchanged", "other")

#: The outcome a careful editor would produce in each arm.
RIGHT_OUTCOME: dict[str, str] = {
    "control": "unchanged",
    "true_note": "true_edit",
    "stale_labelled": "unchanged",
    "stale_verify": "unchanged",
    "dependency_changed": "unchanged",
    "withheld": "unchanged",
}

#: Short names for tables and figures.
ARM_LABELS: dict[str, str] = {
    "control": "control (no note)",
    "true_note": "true note",
    "stale_labelled": "stale, labelled",
    "stale_verify": "stale, labelled + verify rule",
    "dependency_changed": "stale, shown as fresh (symbol-only gate)",
    "withheld": "withheld (dependency-aware gate)",
}



#: The source study's verify-first rule, word for word (it is the arm's treatment).
VERIFY_RULE = (
    "Skill guidance: when a note is medium-confidence or its relevance to the current code is unclear, do NOT act "
    "on it as fact. Surface it and ask, or withhold, unless you can independently confirm it against the file. "
    "A stale or unlocatable note must not drive a confident edit on its own."
)

_SYSTEM = "You are a careful coding assistant. You edit code exactly as asked and answer with code only."
_INSTRUCTION = (
    "A small edit to the function below is described in the attached context note. Apply exactly that edit and "
    "return the whole function, and nothing else, in one fenced code block."
)
_FRESH_LABEL = "located, high-confidence"
_STALE_LABEL = "confidence: medium; locate status: unresolved/ambiguous"

#: The recordings' generation settings (greedy, one thread, answers up to a function's length plus a comment).
SETTINGS = GenerationSettings(max_tokens=256, temperature=0.0, seed=0, threads=1, context_size=2048)


def _arm(arm: str) -> str:
    if arm not in ARMS:
        raise ParameterError(f"unknown notes-trial arm {arm!r}; expected one of {', '.join(ARMS)}")
    return arm


def build_prompt(task: NotesTask, arm: str) -> tuple[Message, ...]:
    """The chat turns of one trial: a system turn, then the instruction, the function and the arm's note section.

    Parameters
    ----------
    task : NotesTask
        The task.
    arm : str
        One of :data:`ARMS`.

    Returns
    -------
    tuple of (str, str)
    """
    _arm(arm)
    parts = [_INSTRUCTION, f"File: {task.path} ({task.project} {task.to_version})\n```python\n{task.excerpt.rstrip()}\n```"]
    if arm == "true_note":
        parts.append(f"Context note ({_FRESH_LABEL}):\n{task.true_note}")
    elif arm == "dependency_changed":
        parts.append(f"Context note ({_FRESH_LABEL}):\n{task.stale_note}")
    elif arm in ("stale_labelled", "stale_verify"):
        parts.append(f"Context note ({_STALE_LABEL}):\n{task.stale_note}")
        if arm == "stale_verify":
            parts.append(VERIFY_RULE)
    elif arm == "withheld":
        parts.append("Context notes: none.")
    return (("system", _SYSTEM), ("user", "\n\n".join(parts)))


def trial_plan(tasks: Sequence[NotesTask], arms: Sequence[str] = ARMS) -> list[tuple[NotesTask, str]]:
    """Every (task, arm) trial in recording order: all arms of the first task, then the next task.

    A recording stopped at any point is then balanced: every arm has the same
    tasks, give or take the one under way.

    Parameters
    ----------
    tasks : sequence of NotesTask
        The tasks.
    arms : sequence of str
        The arms, each one of :data:`ARMS`.

    Returns
    -------
    list of (NotesTask, str)
    """
    chosen = [_arm(a) for a in arms]
    return [(task, arm) for task in tasks for arm in chosen]


def task_record(task: NotesTask) -> dict[str, str]:
    """What a recorded line says about its task (``task`` field): the id and where the function comes from.

    Parameters
    ----------
    task : NotesTask
        The task.

    Returns
    -------
    dict of str to str
    """
    return {"id": task.id, "rule_kind": task.rule_kind, "project": task.project, "from_version": task.from_version,
            "to_version": task.to_version, "path": task.path, "qualname": task.qualname}


def decision_of(task: NotesTask, response: str) -> dict[str, bool]:
    """What code read in an answer, before naming the outcome: a code block, the function, each edit.

    Parameters
    ----------
    task : NotesTask
        The task.
    response : str
        The model's answer.

    Returns
    -------
    dict of str to bool
    """
    code = extract_code(response)
    return {
        "code_block": code is not None,
        "stale_edit_made": code is not None and task.stale_edit.made_in(code),
        "true_edit_made": code is not None and task.true_edit.made_in(code),
    }


_LOADED: dict[str, Any] = {}


@dataclass(frozen=True, slots=True)
class NotesTrialRun:
    """The notes trials as a sweep spec (one sweep task = one notes task, all its arms), for :func:`cvlib.experiments.large_sweeps.sweep`.

    Each worker process loads the model once and appends the lines of each
    finished task to ``out`` through a :class:`~cvlib.models.recording.Recorder`,
    skipping the (task, arm) pairs in ``done``; so a killed recording resumes
    where it stopped. Run it with one worker: the lines of several workers
    would interleave by task, and the machine is shared.

    Parameters
    ----------
    tasks_file : str
        The task file (:func:`load_tasks`).
    model : str
        The model's spec for :func:`~cvlib.models.registry.open_model` (a bundled name, a GGUF path, a server URL).
    out : str
        The recording (JSON Lines, appended to).
    done : frozenset of (str, str)
        ``(task id, arm)`` already recorded.
    arms : tuple of str
        The arms, in recording order.
    max_tokens : int
        Of :data:`SETTINGS` (the rest of the settings is fixed).
    """

    tasks_file: str
    model: str
    out: str
    done: frozenset[tuple[str, str]] = frozenset()
    arms: tuple[str, ...] = ARMS
    max_tokens: int = SETTINGS.max_tokens

    def _tasks(self) -> tuple[NotesTask, ...]:
        key = f"tasks:{self.tasks_file}"
        if key not in _LOADED:
            _LOADED[key] = load_tasks(self.tasks_file)
        return _LOADED[key]  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return len(self._tasks())

    def describe(self) -> dict[str, Any]:
        """What identifies the run: the task file, the model file, the arms and the settings.

        Returns
        -------
        dict
        """
        return {"experiment": EXPERIMENT, "tasks_file": Path(self.tasks_file).name, "model": recording_stem(self.model),
                "arms": list(self.arms), "max_tokens": self.max_tokens}

    def _model(self) -> LanguageModel:
        key = f"model:{self.model}"
        if key not in _LOADED:
            _LOADED[key] = open_model(self.model)
        return _LOADED[key]  # type: ignore[no-any-return]

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Run (or skip, when recorded) every arm of tasks ``start`` up to ``stop``; one summary row per task.

        Parameters
        ----------
        start, stop : int
            Task numbers.

        Returns
        -------
        list of dict
        """
        from dataclasses import replace

        from cvlib.models.recording import Recorder

        settings = replace(SETTINGS, max_tokens=self.max_tokens)
        tasks = self._tasks()
        out = []
        for number in range(start, stop):
            task = tasks[number]
            todo = [a for a in self.arms if (task.id, a) not in self.done]
            counts = dict.fromkeys(OUTCOMES, 0)
            if todo:
                recorder = Recorder(self._model(), self.out, EXPERIMENT)
                recorder.begin(f"task {task.id}")
                for arm in todo:
                    response = recorder.complete(build_prompt(task, arm), settings)
                    outcome = classify(task, response)
                    counts[outcome] += 1
                    recorder.record(arm=arm, task=task_record(task), step=None, decision=decision_of(task, response),
                                    outcome={"outcome": outcome, "right": outcome == RIGHT_OUTCOME[arm]})
                recorder.flush()
            out.append({"task": number, "id": task.id, "recorded": len(todo), **counts})
        return out


def runtime_installed() -> bool:
    """Whether the llama.cpp runtime (``xllamacpp``) can be imported, i.e. whether a chapter could record anew.

    Returns
    -------
    bool
    """
    import importlib.util

    return importlib.util.find_spec("xllamacpp") is not None


def prompt_markdown(task: NotesTask) -> str:
    """Every arm's prompt for one task, in full, as Markdown (a chapter shows each prompt once).

    Parameters
    ----------
    task : NotesTask
        The example task.

    Returns
    -------
    str
    """
    blocks = []
    for arm in ARMS:
        turns = build_prompt(task, arm)
        text = "\n\n".join(f"[{role}]\n{content}" for role, content in turns)
        blocks.append(f"**{ARM_LABELS[arm]}** (`{arm}`)\n\n````text\n{text}\n````")
    return "\n\n".join(blocks)
