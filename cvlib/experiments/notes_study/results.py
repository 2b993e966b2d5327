"""The notes trials' results: outcomes per task and arm, read back from recordings, and their summaries.

A recording stores each trial's outcome as the recorder classified it; these
functions tabulate them (one row per task and arm), summarise arms with a
share and its interval (:func:`cvlib.core.intervals.proportion_interval`), and
compare models task by task.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cvlib.core.errors import ModelError, ParameterError
from cvlib.core.intervals import proportion_interval
from cvlib.experiments.notes_study.classify import classify
from cvlib.experiments.notes_study.tasks import RULE_KINDS, NotesTask
from cvlib.experiments.notes_study.trials import (
    ARMS,
    EXPERIMENT,
    OUTCOMES,
    RIGHT_OUTCOME,
    STALE_ARMS,
    _arm,
    build_prompt,
    task_record,
)

__all__ = [
    "arm_summary",
    "compare_models",
    "complete_tasks",
    "kind_summary",
    "measured_rates",
    "recording_comparison",
    "replay_outcomes",
    "stale_edit_share",
    "task_grid",
    "task_outcomes",
]


def wilson(count: int, total: int, confidence: float = 0.95) -> tuple[float, float]:
    """The share's interval (:func:`~cvlib.core.intervals.proportion_interval`), kept under the name the summaries use."""
    return proportion_interval(count, total, confidence)


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


def replay_outcomes(tasks: Sequence[NotesTask], recording: str | Path) -> Any:
    """Re-run the recorded trials against a :class:`~cvlib.models.replay.ReplayModel` and classify the answers anew.

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
    from cvlib.models.recording import read_recording
    from cvlib.models.replay import ReplayModel

    known = {t.id: t for t in tasks}
    model = ReplayModel(recording)
    lines = []
    for r in read_recording(recording):
        if r.experiment != EXPERIMENT:
            continue
        task = known.get(r.task["id"])
        if task is None:
            raise ModelError(f"recording {Path(recording).name!r} holds task {r.task['id']!r}, which the task file lacks")
        response = model.complete(build_prompt(task, str(r.arm)), r.settings)
        lines.append({"experiment": EXPERIMENT, "task": task_record(task), "arm": r.arm,
                      "outcome": {"outcome": classify(task, response)}})
    return task_outcomes(lines)


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
