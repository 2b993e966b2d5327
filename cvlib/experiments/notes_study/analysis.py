"""The pre-registered analysis of the notes study: every answer read as code, shares per arm, paired effects, the real gate.

Every answer in the recordings is read again with
:func:`~cvlib.experiments.notes_study.reading.read_answer` (the reading stored
at recording time is not trusted), so a refined reader re-derives everything.
The first recordings (``notes_trials.<model>.jsonl``) are the unrefutable
variant's greedy runs: their prompts are that variant's, byte for byte. The task is the
unit (``preregistration.md``, part 2): contrasts are paired per task
(:mod:`cvlib.experiments.paired`), and a share gets one Wilson interval per
model, arm and variant, never pooled over arms that share tasks.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.reading import StaleEffect, read_answer
from cvlib.experiments.notes_study.tasks import NotesTask
from cvlib.experiments.notes_study.trials import ARMS, STALE_ARMS
from cvlib.models.recording import read_recording

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ARM_CONTRASTS", "arm_contrasts", "gate_shown", "read_outcomes", "stale_shares", "variant_effects"]

#: Within a variant, each warning against the note shown as fresh (first minus second).
ARM_CONTRASTS: tuple[tuple[str, str], ...] = (
    ("stale_labelled", "dependency_changed"),
    ("stale_verify", "dependency_changed"),
)


def read_outcomes(recordings: Iterable[str | os.PathLike[str]], tasks: Sequence[NotesTask],
                  effects: Mapping[str, StaleEffect]) -> pd.DataFrame:
    """One row per recorded answer, read as code: model, task, variant, repeat, arm, outcome, collateral.

    Parameters
    ----------
    recordings : iterable of str or os.PathLike
        First recordings (``notes_trials``) and study recordings (``notes_study``), any models.
    tasks : sequence of NotesTask
        The tasks.
    effects : Mapping
        The stated stale effects by task id.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    known = {t.id: t for t in tasks}
    rows = []
    for path in recordings:
        for r in read_recording(path):
            if r.experiment not in ("notes_trials", "notes_study"):
                continue
            task = known.get(r.task["id"])
            if task is None:
                raise ParameterError(f"recording {os.fspath(path)!r} holds task {r.task['id']!r}, which the task file lacks")
            reading = read_answer(task, r.response, effects.get(task.id))
            rows.append({
                "model": r.model, "task": task.id, "rule_kind": task.rule_kind,
                "variant": r.task.get("variant", "unrefutable"), "repeat": int(r.task.get("repeat", 0)),
                "arm": str(r.arm), "outcome": reading.outcome, "collateral": len(reading.collateral),
                "stale": reading.outcome == "stale_edit",
            })
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return frame.drop_duplicates(["model", "task", "variant", "repeat", "arm"]).reset_index(drop=True)


def stale_shares(outcomes: pd.DataFrame, confidence: float = 0.95, *, repeat: int = 0) -> pd.DataFrame:
    """Per model, variant and arm: tasks, each outcome's count, and the stale-edit share with its interval.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`read_outcomes`.
    confidence : float
        The interval's level.
    repeat : int
        Which repeat (0: greedy).

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    from cvlib.core.intervals import proportion_interval

    part = outcomes[outcomes["repeat"] == repeat]
    rows = []
    for (model, variant, arm), mine in part.groupby(["model", "variant", "arm"], sort=True):
        n, k = len(mine), int(mine["stale"].sum())
        low, high = proportion_interval(k, n, confidence)
        counts = mine["outcome"].value_counts()
        rows.append({"model": model, "variant": variant, "arm": arm, "tasks": n, "stale": k, "share": k / n,
                     "low": low, "high": high, **{f"n_{o}": int(counts.get(o, 0)) for o in
                                                  ("true_exact", "true_collateral", "unchanged", "other")}})
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame["arm_order"] = frame["arm"].map({a: k for k, a in enumerate(ARMS)})
        frame = frame.sort_values(["model", "variant", "arm_order"]).drop(columns="arm_order").reset_index(drop=True)
    return frame


def _per_task(outcomes: pd.DataFrame, model: str) -> pd.DataFrame:
    mine = outcomes[outcomes["model"] == model]
    return mine.groupby(["task", "variant", "arm"])["stale"].mean().astype(float).unstack(["variant", "arm"])


def variant_effects(outcomes: pd.DataFrame, arms: Sequence[str] = STALE_ARMS, confidence: float = 0.95) -> pd.DataFrame:
    """Refutable minus unrefutable stale-edit share per task and arm (repeats averaged), with the greedy McNemar test.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`read_outcomes`.
    arms : sequence of str
        The arms compared.
    confidence : float
        The interval's level.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``arm``, ``tasks``, ``mean``, ``low``, ``high``, ``only_refutable``, ``only_unrefutable``, ``p_value``.
    """
    import pandas as pd

    from cvlib.experiments.paired import mcnemar_exact, paired_effect

    rows = []
    for model in sorted(outcomes["model"].unique()):
        wide = _per_task(outcomes, model)
        greedy = _per_task(outcomes[outcomes["repeat"] == 0], model)
        for arm in arms:
            a, b = ("refutable", arm), ("unrefutable", arm)
            if a not in wide or b not in wide:
                continue
            diff = (wide[a] - wide[b]).dropna()
            if diff.empty:
                continue
            effect = paired_effect(diff.tolist(), confidence)
            pair = greedy[[a, b]].dropna() if a in greedy and b in greedy else None
            test = mcnemar_exact((pair[a] > 0).tolist(), (pair[b] > 0).tolist()) if pair is not None and len(pair) else None
            rows.append({"model": model, "arm": arm, "tasks": effect.tasks, "mean": effect.mean, "low": effect.low,
                         "high": effect.high, "only_refutable": test.only_first if test else 0,
                         "only_unrefutable": test.only_second if test else 0,
                         "p_value": test.p_value if test else float("nan")})
    return pd.DataFrame(rows, columns=["model", "arm", "tasks", "mean", "low", "high", "only_refutable",
                                       "only_unrefutable", "p_value"])


def arm_contrasts(outcomes: pd.DataFrame, contrasts: Sequence[tuple[str, str]] = ARM_CONTRASTS,
                  confidence: float = 0.95) -> pd.DataFrame:
    """Within each variant, each warning arm minus the note shown as fresh: paired stale-edit share per task.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`read_outcomes`.
    contrasts : sequence of (str, str)
        ``(arm, other arm)``.
    confidence : float
        The interval's level.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    from cvlib.experiments.paired import paired_effect

    rows = []
    for model in sorted(outcomes["model"].unique()):
        wide = _per_task(outcomes, model)
        for variant in ("unrefutable", "refutable"):
            for first, second in contrasts:
                a, b = (variant, first), (variant, second)
                if a not in wide or b not in wide:
                    continue
                diff = (wide[a] - wide[b]).dropna()
                if diff.empty:
                    continue
                effect = paired_effect(diff.tolist(), confidence)
                rows.append({"model": model, "variant": variant, "contrast": f"{first} − {second}",
                             "tasks": effect.tasks, "mean": effect.mean, "low": effect.low, "high": effect.high})
    return pd.DataFrame(rows, columns=["model", "variant", "contrast", "tasks", "mean", "low", "high"])


def gate_shown(tasks: Sequence[NotesTask], folder: str | os.PathLike[str]) -> dict[str, Any]:
    """What the project's notes gate does on the study's release steps: the tasks whose stale note it still shows.

    The tasks were chosen where the dependency-aware gate withheld the note;
    its rules have since become more precise, so on some steps it now shows the
    note (the model then meets it as in the ``dependency_changed`` arm).

    Parameters
    ----------
    tasks : sequence of NotesTask
        The tasks.
    folder : str or os.PathLike
        The release-history tables (``data/code_history``).

    Returns
    -------
    dict
        ``shown`` (task ids, in task order), ``withheld`` (count) and ``wide`` (tasks the wide rule withholds).
    """
    from pathlib import Path

    from cvlib.notes.history import load_history, step_statuses

    statuses = []
    for project in sorted({t.project for t in tasks}):
        mine = [t for t in tasks if t.project == project]
        found = step_statuses(load_history(project, Path(folder)), [(t.from_version, t.to_version, t.path, t.qualname) for t in mine])
        statuses += [(t.id, p, w) for t, p, w in zip(mine, found["precise"], found["wide"])]
    order = {t.id: k for k, t in enumerate(tasks)}
    shown = sorted((i for i, p, _ in statuses if p != "DEPENDENCY_CHANGED"), key=order.__getitem__)
    return {"shown": shown, "withheld": len(statuses) - len(shown),
            "wide": sum(w == "DEPENDENCY_CHANGED" for _, _, w in statuses)}
