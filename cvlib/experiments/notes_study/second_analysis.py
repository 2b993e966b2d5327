"""The second edition's pre-registered readings of its recordings: outcomes, the manipulation check, N1 with its bound.

Every answer is read again from the recording (the reading stored beside it is
not trusted) by the frozen reader, by the strict classifier, and by the echo
check; a group cut short by a recorder still writing is left out. The task is
the unit: contrasts are paired per task over the repeats both sides hold
(:mod:`cvlib.experiments.paired`), and a contrast whose interval holds zero gets
its two one-sided tests (:mod:`~cvlib.experiments.notes_study.equivalence`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study.equivalence import EQUIVALENCE_MARGIN, equivalence
from cvlib.experiments.notes_study.manipulation import echoes_context, manipulation_check
from cvlib.experiments.notes_study.second_design import EXPERIMENT, group_arms, study_groups
from cvlib.experiments.notes_study.second_reading import context_function_names, read_second
from cvlib.experiments.notes_study.strict import strict_reading
from cvlib.experiments.paired import mcnemar_exact, paired_effect
from cvlib.models.recording import read_recording

if TYPE_CHECKING:
    import pandas as pd

    from cvlib.experiments.notes_study.second_tasks import SecondEdition

__all__ = ["HELD_BACK", "VARIANT_CONTRASTS", "read_second_outcomes", "refutability", "taken_models"]

#: The outcomes that hold back from a stale note — the function returned unchanged, or declined in the offered form.
HELD_BACK: tuple[str, ...] = ("unchanged", "declined")
#: The variant contrasts, first minus second — N1 (refutable − placebo), then what the placebo and the refutation each add.
VARIANT_CONTRASTS: tuple[tuple[str, str], ...] = (
    ("refutable", "placebo"),
    ("placebo", "unrefutable"),
    ("refutable", "unrefutable"),
)


def read_second_outcomes(recordings: Iterable[str | os.PathLike[str]], edition: SecondEdition,
                         name: str = "") -> pd.DataFrame:
    """One row per recorded answer: model, task, variant, repeat, arm, the reader's outcome, the strict one, the echo.

    Parameters
    ----------
    recordings : iterable of str or os.PathLike
        Second-edition recordings (``notes_study_2.<model>.jsonl.gz``); lines of other experiments are skipped.
    edition : SecondEdition
        :func:`~cvlib.experiments.notes_study.second_tasks.load_second_edition`.
    name : str
        The model's name in the ``model`` column (empty: the model file each line records).

    Returns
    -------
    pandas.DataFrame
        Whole groups only; ``stale`` and ``held_back`` as booleans.
    """
    import pandas as pd

    groups = {(g.task.id, g.variant): g for g in study_groups(edition.tasks, edition.refutations, edition.rules, (0,))}
    rows = []
    for path in recordings:
        for r in read_recording(path, allow_cut_tail=True):
            if r.experiment != EXPERIMENT:
                continue
            group = groups.get((r.task["id"], r.task["variant"]))
            if group is None:
                raise ParameterError(f"recording {os.fspath(path)!r} holds {r.task['id']!r} {r.task['variant']!r}, which the plan lacks")
            names = context_function_names([group.context.code, group.context.test]) if group.context else frozenset()
            reading = read_second(group.task, r.response, group.rule, names)
            rows.append({
                "model": name or r.model, "task": group.task.id, "rule_kind": group.task.rule_kind,
                "variant": group.variant, "repeat": int(r.task["repeat"]), "arm": str(r.arm),
                "outcome": reading.outcome, "strict": strict_reading(group.task, r.response),
                "echo": echoes_context(group.task, r.response, names), "reason": reading.reason,
            })
    columns = ["model", "task", "rule_kind", "variant", "repeat", "arm", "outcome", "strict", "echo", "reason"]
    frame = pd.DataFrame(rows, columns=columns)
    if frame.empty:
        return frame.assign(stale=pd.Series(dtype=bool), held_back=pd.Series(dtype=bool))
    frame = frame.drop_duplicates(["model", "task", "variant", "repeat", "arm"])
    keys = ["model", "task", "variant", "repeat"]
    held = frame.groupby(keys)["arm"].agg(frozenset)
    whole = {key for key, arms in held.items() if arms >= set(group_arms(int(key[3])))}
    frame = frame[[key in whole for key in zip(*(frame[k] for k in keys))]].reset_index(drop=True)
    return frame.assign(stale=frame["outcome"] == "stale_edit", held_back=frame["outcome"].isin(HELD_BACK))


def taken_models(outcomes: pd.DataFrame) -> set[str]:
    """The models that took the test (:func:`~cvlib.experiments.notes_study.manipulation.manipulation_check`).

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`read_second_outcomes`.

    Returns
    -------
    set of str
    """
    check = manipulation_check(outcomes)
    return set(check.loc[check["took_test"], "model"])


def refutability(outcomes: pd.DataFrame, arms: Sequence[str] = ("stale_labelled", "stale_verify", "dependency_changed"),
                 column: str = "stale", confidence: float = 0.95, margin: float = EQUIVALENCE_MARGIN) -> pd.DataFrame:
    """The variant contrasts per model and stale arm (N1 first), each with its interval, McNemar's test and its TOST.

    A model that did not take the test (more than 5 % of its control answers
    echo the context) keeps its rows, marked ``read`` False: its contrasts are
    shown, never read as an effect of refutation.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`read_second_outcomes`.
    arms : sequence of str
        The stale arms.
    column : str
        ``stale`` (the primary measure) or ``held_back``.
    confidence : float
        The interval's level.
    margin : float
        The equivalence margin.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``contrast``, ``arm``, ``tasks``, ``first_share`` and ``second_share`` (each side's share over
        the paired tasks, so a reader sees the levels the difference is taken between), ``mean``, ``low``,
        ``high``, ``p_value``, ``tost_low``, ``tost_high``, ``verdict`` (the TOST's), ``read``.
    """
    import pandas as pd

    columns = ["model", "contrast", "arm", "tasks", "first_share", "second_share", "mean", "low", "high", "p_value",
               "tost_low", "tost_high", "verdict", "read"]
    if outcomes.empty:
        return pd.DataFrame(columns=columns)
    taken = taken_models(outcomes)
    rows = []
    for model in dict.fromkeys(outcomes["model"]):
        mine = outcomes[outcomes["model"] == model].assign(hit=lambda f: f[column].astype(float))
        wide = mine.set_index(["task", "repeat", "variant", "arm"])["hit"].unstack(["variant", "arm"])
        for first, second in VARIANT_CONTRASTS:
            for arm in arms:
                a, b = (first, arm), (second, arm)
                if a not in wide or b not in wide:
                    continue
                both = wide[[a, b]].dropna()
                if both.empty:
                    continue
                per_task = both.groupby(level="task").mean()
                diff = (per_task[a] - per_task[b]).tolist()
                effect = paired_effect(diff, confidence)
                greedy = both.xs(0, level="repeat") if 0 in both.index.get_level_values("repeat") else both.iloc[:0]
                test = mcnemar_exact((greedy[a] > 0).tolist(), (greedy[b] > 0).tolist()) if len(greedy) else None
                bound = equivalence(diff, margin)
                rows.append({"model": model, "contrast": f"{first} − {second}", "arm": arm, "tasks": effect.tasks,
                             "first_share": float(per_task[a].mean()), "second_share": float(per_task[b].mean()),
                             "mean": effect.mean, "low": effect.low, "high": effect.high,
                             "p_value": test.p_value if test else float("nan"), "tost_low": bound.low,
                             "tost_high": bound.high, "verdict": bound.verdict, "read": model in taken})
    return pd.DataFrame(rows, columns=columns)
