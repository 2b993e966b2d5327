"""The agent loop's results, read back from a recording: one row per run, and intervals over tasks.

Every recorded decision carries its run's result (``outcome["run"]``), so a
run's row comes from its lines alone: the executor's counters, how many
decisions the model took, how many answers did not parse, and how many
answers the gate overruled. The task, not the decision, is the unit of every
interval: decisions within one run are not independent.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.models.recording import CallRecord, canonical, read_recording

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RUN_COLUMNS", "agent_runs", "balanced", "mean_interval", "task_of"]

#: The columns of :func:`agent_runs`, in order.
RUN_COLUMNS = (
    "executor", "arm", "family", "scenario", "task", "completed", "steps_used", "budget", "replans",
    "verifications", "pre_failure_work", "scur", "decisions", "unparsed", "answered_execute",
    "answered_verify", "answered_replan", "overruled",
)


def agent_runs(recording: str | os.PathLike[str] | Iterable[CallRecord]) -> pd.DataFrame:
    """One row per recorded run (arm and task), in the order the recording first met them.

    Parameters
    ----------
    recording : pathlib.Path or iterable of CallRecord
        An agent-loop recording, or its records.

    Returns
    -------
    pandas.DataFrame
        :data:`RUN_COLUMNS`; ``task`` is the task's canonical JSON.
    """
    import pandas as pd

    records = read_recording(recording) if isinstance(recording, str | os.PathLike) else list(recording)
    rows: dict[tuple[str | None, str], dict[str, Any]] = {}
    for r in records:
        if r.experiment != "agent_loop":
            continue
        key = (r.arm, canonical(r.task))
        run = r.outcome["run"]
        row = rows.get(key)
        if row is None:
            row = rows[key] = {
                "executor": f"model_{r.arm}",
                "arm": r.arm,
                "family": r.task["family"],
                "scenario": r.task["scenario"],
                "task": key[1],
                "completed": bool(run["completed"]),
                "steps_used": run["steps_used"],
                "budget": run["budget"],
                "replans": run["replans"],
                "verifications": run["verifications"],
                "pre_failure_work": run["pre_failure_work"],
                "scur": float(run["scur"]),
                "decisions": 0,
                "unparsed": 0,
                "answered_execute": 0,
                "answered_verify": 0,
                "answered_replan": 0,
                "overruled": 0,
            }
        decision = r.decision
        row["decisions"] += 1
        row["unparsed"] += not decision["parsed"]
        row[f"answered_{decision['action'].lower()}"] += decision["parsed"]
        row["overruled"] += bool(decision.get("gated"))
    return pd.DataFrame(list(rows.values()), columns=list(RUN_COLUMNS))


def balanced(runs: pd.DataFrame, arms: Sequence[str]) -> pd.DataFrame:
    """The runs of the tasks recorded under every one of ``arms`` (a recording cut short is compared fairly).

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`agent_runs`.
    arms : sequence of str
        The arms a task must have.

    Returns
    -------
    pandas.DataFrame
    """
    per_task = runs[runs["arm"].isin(arms)].groupby("task")["arm"].nunique()
    keep = set(per_task[per_task == len(arms)].index)
    return runs[runs["task"].isin(keep) & runs["arm"].isin(arms)].reset_index(drop=True)


def mean_interval(values: Sequence[float], confidence: float = 0.95, *, resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """The mean of ``values`` with a seeded percentile-bootstrap interval (resampling tasks).

    Parameters
    ----------
    values : sequence of float
        One value per task.
    confidence : float
        The interval's level.
    resamples : int
        Bootstrap resamples.
    seed : int
        The resampling seed (the same interval on every run).

    Returns
    -------
    tuple of (float, float, float)
        ``(mean, low, high)``; all NaN for no values.
    """
    data = [float(v) for v in values]
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must be between 0 and 1, got {confidence!r}")
    if not data:
        return math.nan, math.nan, math.nan
    n = len(data)
    mean = sum(data) / n
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(data, k=n)) / n for _ in range(resamples))
    tail = (1 - confidence) / 2
    low = means[min(resamples - 1, max(0, int(math.floor(tail * resamples))))]
    high = means[min(resamples - 1, max(0, int(math.ceil((1 - tail) * resamples)) - 1))]
    return mean, low, high


def task_of(canonical_task: str) -> dict[str, Any]:
    """A task mapping back from its canonical JSON (the ``task`` column).

    Parameters
    ----------
    canonical_task : str
        The column's text.

    Returns
    -------
    dict
    """
    data = json.loads(canonical_task)
    if not isinstance(data, dict):
        raise ParameterError(f"not a recorded task: {canonical_task[:80]!r}")
    return data
