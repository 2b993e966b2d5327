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

__all__ = [
    "ARM_CONTRASTS",
    "MIN_TASKS",
    "NOT_RECORDED",
    "PREDICTIONS",
    "TOO_FEW",
    "arm_contrasts",
    "audit_agreement",
    "coverage",
    "gate_effect",
    "gate_shown",
    "kind_counts",
    "model_contrast",
    "other_reasons",
    "predictions",
    "read_outcomes",
    "stale_shares",
    "study_outcomes",
    "variant_effects",
    "whole_groups",
]

#: Within a variant, each warning against the note shown as fresh (first minus second).
ARM_CONTRASTS: tuple[tuple[str, str], ...] = (
    ("stale_labelled", "dependency_changed"),
    ("stale_verify", "dependency_changed"),
)


def read_outcomes(recordings: Iterable[str | os.PathLike[str]], tasks: Sequence[NotesTask],
                  effects: Mapping[str, StaleEffect], name: str = "") -> pd.DataFrame:
    """One row per recorded answer, read as code: model, task, variant, repeat, arm, outcome, collateral, reason.

    Parameters
    ----------
    recordings : iterable of str or os.PathLike
        First recordings (``notes_trials``) and study recordings (``notes_study``), any models.
    tasks : sequence of NotesTask
        The tasks.
    effects : Mapping
        The stated stale effects by task id.
    name : str
        The model's name in the ``model`` column (empty: the model file's name each line records).

    Returns
    -------
    pandas.DataFrame
        A last line cut short by a recorder still writing is left out.
    """
    import pandas as pd

    known = {t.id: t for t in tasks}
    rows = []
    for path in recordings:
        for r in read_recording(path, allow_cut_tail=True):
            if r.experiment not in ("notes_trials", "notes_study"):
                continue
            task = known.get(r.task["id"])
            if task is None:
                raise ParameterError(f"recording {os.fspath(path)!r} holds task {r.task['id']!r}, which the task file lacks")
            reading = read_answer(task, r.response, effects.get(task.id))
            rows.append({
                "model": name or r.model, "task": task.id, "rule_kind": task.rule_kind,
                "variant": r.task.get("variant", "unrefutable"), "repeat": int(r.task.get("repeat", 0)),
                "arm": str(r.arm), "outcome": reading.outcome, "collateral": len(reading.collateral),
                "stale": reading.outcome == "stale_edit", "reason": reading.reason,
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
        frame["model_order"] = frame["model"].map({m: k for k, m in enumerate(_models(part))})
        frame["variant_order"] = frame["variant"].map({"unrefutable": 0, "refutable": 1})
        frame = (frame.sort_values(["model_order", "variant_order", "arm_order"])
                 .drop(columns=["arm_order", "model_order", "variant_order"]).reset_index(drop=True))
    return frame


def _models(outcomes: pd.DataFrame) -> list[str]:
    """The models in the order they first appear (the caller's order, not the alphabet's)."""
    return list(dict.fromkeys(outcomes["model"])) if len(outcomes) else []


def _per_task(outcomes: pd.DataFrame, model: str, outcome: str = "stale_edit") -> pd.DataFrame:
    """One row per task, one column per (variant, arm): the share of the task's repeats with ``outcome``."""
    mine = outcomes[outcomes["model"] == model].assign(hit=lambda f: (f["outcome"] == outcome).astype(float))
    return mine.groupby(["task", "variant", "arm"])["hit"].mean().unstack(["variant", "arm"])


def _paired_difference(outcomes: pd.DataFrame, model: str, first: tuple[str, str], second: tuple[str, str],
                       outcome: str = "stale_edit") -> pd.Series:
    """Per task, the share of ``outcome`` in ``first`` minus in ``second`` ((variant, arm) each), over the repeats both hold.

    A task's repeats are averaged only over the repeats recorded on both sides:
    the greedy repeat is the only one of some arms (``withheld``), and a
    recording cut part-way holds a sampled repeat in one variant before the
    other, so averaging each side over its own repeats would set greedy
    answers against a mixture of greedy and sampled ones.
    """
    import pandas as pd

    mine = outcomes[outcomes["model"] == model].assign(hit=lambda f: (f["outcome"] == outcome).astype(float))
    wide = mine.set_index(["task", "repeat", "variant", "arm"])["hit"].unstack(["variant", "arm"])
    if first not in wide or second not in wide:
        return pd.Series(dtype=float)
    both = wide[[first, second]].dropna()
    per_task = both.groupby(level="task").mean()
    return per_task[first] - per_task[second]


def variant_effects(outcomes: pd.DataFrame, arms: Sequence[str] = STALE_ARMS, confidence: float = 0.95,
                    outcome: str = "stale_edit") -> pd.DataFrame:
    """Refutable minus unrefutable share of ``outcome`` per task and arm (the repeats both variants hold averaged), with the greedy McNemar test.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`read_outcomes`.
    arms : sequence of str
        The arms compared.
    confidence : float
        The interval's level.
    outcome : str
        The outcome counted: ``stale_edit`` (the primary metric) or ``unchanged`` (held back).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``arm``, ``tasks``, ``mean``, ``low``, ``high``, ``only_refutable``, ``only_unrefutable``, ``p_value``.
    """
    import pandas as pd

    from cvlib.experiments.paired import mcnemar_exact, paired_effect

    rows = []
    for model in _models(outcomes):
        greedy = _per_task(outcomes[outcomes["repeat"] == 0], model, outcome)
        for arm in arms:
            a, b = ("refutable", arm), ("unrefutable", arm)
            diff = _paired_difference(outcomes, model, a, b, outcome)
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
    for model in _models(outcomes):
        for variant in ("unrefutable", "refutable"):
            for first, second in contrasts:
                diff = _paired_difference(outcomes, model, (variant, first), (variant, second))
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


def whole_groups(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Only the groups (model, task, variant, repeat) that hold every arm of their repeat.

    A recording still being written ends in a group under way; its first arms
    would compare other tasks than its last ones, so the analysis leaves it out.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`read_outcomes`.

    Returns
    -------
    pandas.DataFrame
    """
    from cvlib.experiments.notes_study.design import group_arms

    if outcomes.empty:
        return outcomes
    keys = ["model", "task", "variant", "repeat"]
    held = outcomes.groupby(keys)["arm"].agg(frozenset)
    whole = {key for key, arms in held.items() if arms >= set(group_arms(int(key[3])))}
    return outcomes[[key in whole for key in zip(*(outcomes[k] for k in keys))]].reset_index(drop=True)


def study_outcomes(sources: Mapping[str, Sequence[str | os.PathLike[str]]], tasks: Sequence[NotesTask],
                   effects: Mapping[str, StaleEffect]) -> pd.DataFrame:
    """Every model's answers read as code, named by the caller, whole groups only, models in the mapping's order.

    Parameters
    ----------
    sources : Mapping
        A model's name -> its recordings (the first recording and the study's; a model with none is left out).
    tasks : sequence of NotesTask
        The tasks.
    effects : Mapping
        The stated stale effects by task id.

    Returns
    -------
    pandas.DataFrame
        As :func:`read_outcomes`; empty (with its columns) when nothing is recorded.
    """
    import pandas as pd

    columns = ["model", "task", "rule_kind", "variant", "repeat", "arm", "outcome", "collateral", "stale", "reason"]
    frames = [read_outcomes(paths, tasks, effects, name=model) for model, paths in sources.items() if paths]
    frames = [whole_groups(f) for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)[columns]


def coverage(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Tasks recorded whole per model, variant and repeat: the n every share and effect of the page rests on.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`study_outcomes`.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``variant``, ``repeat``, ``tasks``, ``answers``.
    """
    import pandas as pd

    rows = []
    for model in _models(outcomes):
        mine = outcomes[outcomes["model"] == model]
        for (variant, repeat), part in mine.groupby(["variant", "repeat"]):
            rows.append({"model": model, "variant": variant, "repeat": int(repeat), "tasks": part["task"].nunique(),
                         "answers": len(part)})
    frame = pd.DataFrame(rows, columns=["model", "variant", "repeat", "tasks", "answers"])
    if frame.empty:
        return frame
    order = {m: k for k, m in enumerate(_models(outcomes))}
    frame = frame.assign(o=frame["model"].map(order), v=frame["variant"].map({"unrefutable": 0, "refutable": 1}))
    return frame.sort_values(["o", "v", "repeat"]).drop(columns=["o", "v"]).reset_index(drop=True)


def model_contrast(outcomes: pd.DataFrame, first: str, second: str, arm: str = "true_note", outcome: str = "true_exact",
                   variant: str = "unrefutable", confidence: float = 0.95) -> dict[str, Any]:
    """One model against another on the same tasks (greedy): the paired difference in ``outcome`` and McNemar's test.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`study_outcomes`.
    first, second : str
        The models (first minus second).
    arm, outcome, variant : str
        What is compared.
    confidence : float
        The interval's level.

    Returns
    -------
    dict
        ``tasks``, ``first``, ``second`` (tasks with the outcome), ``mean``, ``low``, ``high``, ``p_value``;
        ``tasks`` 0 (and NaN elsewhere) when the two share no task.
    """
    from cvlib.experiments.paired import mcnemar_exact, paired_effect

    part = outcomes[(outcomes["arm"] == arm) & (outcomes["variant"] == variant) & (outcomes["repeat"] == 0)]
    wide = part.assign(hit=part["outcome"] == outcome).pivot_table(index="task", columns="model", values="hit",
                                                                  aggfunc="max")
    nan = float("nan")
    if first not in wide or second not in wide:
        return {"tasks": 0, "first": 0, "second": 0, "mean": nan, "low": nan, "high": nan, "p_value": nan}
    pair = wide[[first, second]].dropna().astype(bool)
    if pair.empty:
        return {"tasks": 0, "first": 0, "second": 0, "mean": nan, "low": nan, "high": nan, "p_value": nan}
    effect = paired_effect((pair[first].astype(float) - pair[second].astype(float)).tolist(), confidence)
    test = mcnemar_exact(pair[first].tolist(), pair[second].tolist())
    return {"tasks": len(pair), "first": int(pair[first].sum()), "second": int(pair[second].sum()), "mean": effect.mean,
            "low": effect.low, "high": effect.high, "p_value": test.p_value}


def gate_effect(outcomes: pd.DataFrame, shown: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """The real gate beside the ideal one, per model and variant (greedy): stale edits where it shows and where it withholds.

    The real gate shows the stale note, as fresh, on the ``shown`` tasks (the
    model meets it there as in ``dependency_changed``) and withholds it on the
    rest (``withheld``). The ideal gate withholds it everywhere (the
    ``withheld`` arm on every task). Their paired difference per task is
    what the real gate costs.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`study_outcomes`.
    shown : sequence of str
        The tasks whose stale note the real gate shows (:func:`gate_shown`).
    confidence : float
        The intervals' level.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``variant``, ``tasks``, ``shown``, ``shown_stale`` (stale edits on the shown tasks) with
        ``shown_low``/``shown_high``, ``real_stale`` (stale edits over all tasks under the real gate),
        ``ideal_stale``, and the paired ``mean``/``low``/``high`` of real minus ideal.
    """
    import pandas as pd

    from cvlib.core.intervals import proportion_interval
    from cvlib.experiments.paired import paired_effect

    columns = ["model", "variant", "tasks", "shown", "shown_stale", "shown_low", "shown_high", "real_stale",
               "ideal_stale", "mean", "low", "high"]
    greedy = outcomes[(outcomes["repeat"] == 0) & outcomes["arm"].isin(("dependency_changed", "withheld"))]
    rows = []
    for model in _models(greedy):
        for variant in ("unrefutable", "refutable"):
            part = greedy[(greedy["model"] == model) & (greedy["variant"] == variant)]
            wide = part.pivot_table(index="task", columns="arm", values="stale", aggfunc="max")
            if part.empty or not {"dependency_changed", "withheld"} <= set(wide.columns):
                continue
            wide = wide.dropna().astype(bool)
            is_shown = wide.index.isin(list(shown))
            real = wide["dependency_changed"].where(is_shown, wide["withheld"])
            n_shown, k_shown = int(is_shown.sum()), int(wide["dependency_changed"][is_shown].sum())
            low, high = proportion_interval(k_shown, n_shown, confidence) if n_shown else (float("nan"), float("nan"))
            effect = paired_effect((real.astype(float) - wide["withheld"].astype(float)).tolist(), confidence)
            rows.append({"model": model, "variant": variant, "tasks": len(wide), "shown": n_shown, "shown_stale": k_shown,
                         "shown_low": low, "shown_high": high, "real_stale": int(real.sum()),
                         "ideal_stale": int(wide["withheld"].sum()), "mean": effect.mean, "low": effect.low,
                         "high": effect.high})
    return pd.DataFrame(rows, columns=columns)


def kind_counts(outcomes: pd.DataFrame, arm: str = "stale_verify") -> pd.DataFrame:
    """Per model and kind of rule (greedy, tasks with both variants): stale edits and held-back answers in each variant.

    The source read its verify-arm failures by the kind of rule a note touched;
    here the same count is made with and without the code that refutes the note.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`study_outcomes`.
    arm : str
        The arm counted.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``rule_kind``, ``tasks``, and per variant ``stale_<variant>`` and ``unchanged_<variant>``.
    """
    import pandas as pd

    from cvlib.experiments.notes_study.tasks import RULE_KINDS

    columns = ["model", "rule_kind", "tasks", "stale_unrefutable", "stale_refutable", "unchanged_unrefutable",
               "unchanged_refutable"]
    part = outcomes[(outcomes["repeat"] == 0) & (outcomes["arm"] == arm)]
    rows = []
    for model in _models(part):
        mine = part[part["model"] == model]
        wide = mine.pivot_table(index=["task", "rule_kind"], columns="variant", values="outcome", aggfunc="first")
        if not {"unrefutable", "refutable"} <= set(wide.columns):
            continue
        wide = wide.dropna().reset_index()
        for kind in RULE_KINDS:
            cell = wide[wide["rule_kind"] == kind]
            if cell.empty:
                continue
            row: dict[str, Any] = {"model": model, "rule_kind": kind, "tasks": len(cell)}
            for variant in ("unrefutable", "refutable"):
                row[f"stale_{variant}"] = int((cell[variant] == "stale_edit").sum())
                row[f"unchanged_{variant}"] = int((cell[variant] == "unchanged").sum())
            rows.append(row)
    return pd.DataFrame(rows, columns=columns)


#: How the reader's reasons for ``other`` are grouped, by the reason's first words.
_OTHER_KINDS: tuple[tuple[str, str], ...] = (
    ("the answer has no fenced code block", "no code block"),
    ("no function named", "no function of that name"),
    ("the answer's one function is a test", "a test instead of the function"),
    ("the code does not parse", "code does not parse"),
    ("changes that are neither edit", "changes that are neither edit"),
)


def other_reasons(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Why answers were ``other``, per model and variant (greedy): no code block, no function, unparsable, other changes.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`study_outcomes`.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``variant``, ``answers``, ``other`` and one count column per kind of reason.
    """
    import pandas as pd

    names = [name for _, name in _OTHER_KINDS]
    rows = []
    greedy = outcomes[outcomes["repeat"] == 0]
    for model in _models(greedy):
        for variant in ("unrefutable", "refutable"):
            part = greedy[(greedy["model"] == model) & (greedy["variant"] == variant)]
            if part.empty:
                continue
            other = part[part["outcome"] == "other"]["reason"]
            row: dict[str, Any] = {"model": model, "variant": variant, "answers": len(part), "other": len(other)}
            for start, name in _OTHER_KINDS:
                row[name] = int(other.str.startswith(start).sum())
            rows.append(row)
    return pd.DataFrame(rows, columns=["model", "variant", "answers", "other", *names])


def audit_agreement(audit: str | os.PathLike[str], outcomes: pd.DataFrame) -> pd.DataFrame:
    """The hand audit beside the reader: one row per audited answer, with both verdicts.

    Parameters
    ----------
    audit : str or os.PathLike
        ``notes_audit.csv`` (``model`` by recording stem, ``task``, ``arm``, ``variant``, ``verdict``).
    outcomes : pandas.DataFrame
        :func:`study_outcomes`, with the models named by recording stem (the audited answers are greedy ones,
        repeat 0, of either variant).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``task``, ``arm``, ``variant``, ``audit``, ``reader`` (``–`` when the answer is not in
        ``outcomes``), ``agree``.
    """
    import pandas as pd

    hand = pd.read_csv(audit, dtype=str, keep_default_na=False)
    hand = hand[hand["verdict"] != ""].reset_index(drop=True)  # a row drawn but not judged yet
    hand["audit"] = hand["verdict"].replace({"stale": "stale_edit"})
    greedy = outcomes[outcomes["repeat"] == 0]
    read = greedy.set_index(["model", "task", "arm", "variant"])["outcome"]
    keys = list(zip(hand["model"], hand["task"], hand["arm"], hand["variant"]))
    hand["reader"] = [read.get(k, "–") for k in keys]
    hand["agree"] = hand["audit"] == hand["reader"]
    return hand[["model", "task", "arm", "variant", "audit", "reader", "agree"]]


#: The pre-registered predictions (``preregistration.md`` part 2, section 2.6), by name, in words.
PREDICTIONS: dict[str, str] = {
    "NP1": "for the 1.5B model, refutable − unrefutable stale-edit share shown as fresh at most −0.15 (interval below 0); "
           "a smaller drop for the 0.5B model; none told from zero for SmolLM2-135M",
    "NP2": "within the unrefutable variant, neither the label nor the verify rule lowers the stale-edit share by more "
           "than 0.10 for either Qwen model",
    "NP3": "withheld and control: stale edits in at most 5 % of tasks for each model",
    "NP4": "the 1.5B model makes the true edit exactly in more tasks than the 0.5B model",
}
#: A prediction's verdict when what it needs is not recorded.
NOT_RECORDED = "not recorded yet"


#: A prediction's verdict when its measure rests on fewer tasks than :data:`MIN_TASKS`.
TOO_FEW = "too few tasks to judge"
#: The fewest tasks a verdict is given on (a reader's two-task recording gets none).
MIN_TASKS = 5


def _verdict(holds: bool) -> str:
    return "holds" if holds else "does not hold"


def predictions(outcomes: pd.DataFrame, small: str, mid: str, large: str, confidence: float = 0.95) -> pd.DataFrame:
    """Each pre-registered prediction checked, one row per prediction and model (or pair), with what it rests on.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        :func:`study_outcomes`.
    small, mid, large : str
        The names of SmolLM2-135M, Qwen2.5-Coder-0.5B and -1.5B in ``outcomes``.
    confidence : float
        The intervals' level.

    Returns
    -------
    pandas.DataFrame
        ``prediction``, ``model``, ``measure`` (what was measured), ``tasks``, ``mean``, ``low``, ``high``, ``verdict``
        (``holds``, ``does not hold``, :data:`TOO_FEW` or :data:`NOT_RECORDED`).
    """
    import pandas as pd

    nan = float("nan")
    rows: list[dict[str, Any]] = []
    effects = variant_effects(outcomes, ("dependency_changed",), confidence) if len(outcomes) else pd.DataFrame()
    fresh = {r["model"]: r for _, r in effects.iterrows()}

    def add(name: str, model: str, measure: str, row: Mapping[str, Any] | None, verdict: str) -> None:
        if row is not None and int(row["tasks"]) < MIN_TASKS:
            verdict = TOO_FEW
        rows.append({"prediction": name, "model": model, "measure": measure, "tasks": int(row["tasks"]) if row is not None else 0,
                     "mean": float(row["mean"]) if row is not None else nan,
                     "low": float(row["low"]) if row is not None else nan,
                     "high": float(row["high"]) if row is not None else nan, "verdict": verdict})

    measure = "refutable − unrefutable, stale-edit share shown as fresh"
    big = fresh.get(large)
    add("NP1", large, measure, big, NOT_RECORDED if big is None else _verdict(big["mean"] <= -0.15 and big["high"] < 0))
    half = fresh.get(mid)
    add("NP1", mid, measure + " (a smaller drop than the 1.5B model's)", half,
        NOT_RECORDED if half is None or big is None else _verdict(half["mean"] > big["mean"]))
    tiny = fresh.get(small)
    add("NP1", small, measure + " (not told from zero)", tiny,
        NOT_RECORDED if tiny is None else _verdict(tiny["low"] <= 0 <= tiny["high"]))
    contrasts = arm_contrasts(outcomes, confidence=confidence) if len(outcomes) else pd.DataFrame()
    for model in (mid, large):
        for first, second in ARM_CONTRASTS:
            hit = (contrasts[(contrasts["model"] == model) & (contrasts["variant"] == "unrefutable")
                             & (contrasts["contrast"] == f"{first} − {second}")] if len(contrasts) else contrasts)
            row = hit.iloc[0] if len(hit) else None
            add("NP2", model, f"{first} − {second}, unrefutable", row,
                NOT_RECORDED if row is None else _verdict(row["mean"] >= -0.10))
    shares = stale_shares(outcomes, confidence) if len(outcomes) else pd.DataFrame()
    for model in (small, mid, large):
        for arm in ("withheld", "control"):
            for variant in ("unrefutable", "refutable"):
                hit = (shares[(shares["model"] == model) & (shares["arm"] == arm) & (shares["variant"] == variant)]
                       if len(shares) else shares)
                row = hit.iloc[0] if len(hit) else None
                shown = None if row is None else {"tasks": row["tasks"], "mean": row["share"], "low": row["low"], "high": row["high"]}
                add("NP3", model, f"stale-edit share, {arm}, {variant}", shown,
                    NOT_RECORDED if row is None else _verdict(row["share"] <= 0.05))
    for variant in ("unrefutable", "refutable"):
        pair = model_contrast(outcomes, large, mid, variant=variant, confidence=confidence) if len(outcomes) else {"tasks": 0}
        row = pair if pair["tasks"] else None
        add("NP4", f"{large} − {mid}", f"true edit made exactly, true note, {variant}", row,
            NOT_RECORDED if row is None else _verdict(pair["first"] > pair["second"]))
    return pd.DataFrame(rows, columns=["prediction", "model", "measure", "tasks", "mean", "low", "high", "verdict"])
