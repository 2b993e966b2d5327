"""The pre-registered analysis of the agent-loop study: runs, references, paired effects, probes, position bias.

Everything here reads recordings (``agent_study.<model>.jsonl.gz``) and
computes; nothing is typed. The task is the unit (``preregistration.md``,
section 7): a contrast between two arms is the mean over tasks of the
per-task difference, each task's difference averaged over its repeats, with
a 95 % interval from :func:`scipy.stats.bootstrap` resampling tasks (the
cluster bootstrap by task over repeats). Completion gets McNemar's exact
test on the greedy repeat (:func:`statsmodels.stats.contingency_tables.mcnemar`).
The references (always execute, the validity-aware executor, a seeded random
policy answering at the model's own rates) run on the same tasks here.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, VALIDITY_AWARE, get_policy
from cvlib.core.validation import require_int
from cvlib.experiments.agent_study.design import EXPERIMENT, STUDY_SETTINGS
from cvlib.experiments.agent_study.policy import ModelPolicy
from cvlib.experiments.agent_study.study_prompts import OPTIONS, STUDY_ARMS, StudyPrompts
from cvlib.experiments.agent_study.tasks import AgentTask, run_task
from cvlib.models.recording import CallRecord, canonical, read_recording
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CONTRASTS",
    "METRICS",
    "REFERENCES",
    "RandomAnswers",
    "answer_rates",
    "arm_means",
    "completion_mcnemar",
    "paired_effects",
    "position_bias",
    "probe_accuracy",
    "probe_runs",
    "reference_contrasts",
    "reference_runs",
    "study_runs",
    "task_shares",
    "whole_groups",
    "with_references",
]

#: The pre-registered contrasts (first minus second), Q1 to Q3.
CONTRASTS: tuple[tuple[str, str], ...] = (("labelled", "transcript"), ("told", "labelled"), ("enforced", "told"))
#: The per-run quantities the analysis compares, by column.
METRICS: tuple[str, ...] = ("pre_failure_work", "completed", "verifications", "steps_used", "scur", "execute_blocked")
#: The computed references, in the order the chapter shows them; the random one is per arm, named ``random_<arm>``.
REFERENCES: tuple[str, ...] = (BASELINE, VALIDITY_AWARE, "random")


def _task_key(task: Mapping[str, Any]) -> str:
    return canonical({k: task[k] for k in ("family", "scenario", "params")})


def study_runs(recording: str | os.PathLike[str] | Iterable[CallRecord]) -> pd.DataFrame:
    """One row per recorded run (model, task, repeat, arm): the run's result and how the model answered.

    Parameters
    ----------
    recording : str, os.PathLike or iterable of CallRecord
        A study recording, or its records.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``task`` (canonical), ``stale_fact``, ``repeat``, ``arm``, the run's counters, ``decisions``,
        ``answered_execute`` / ``_verify`` / ``_replan``, ``blocked`` (decisions at steps resting on a fact
        believed not ACTIVE), ``execute_blocked`` (of those, answered EXECUTE), ``overruled``.
    """
    import pandas as pd

    records = read_recording(recording) if isinstance(recording, str | os.PathLike) else list(recording)
    rows: dict[tuple[str, str, int, str], dict[str, Any]] = {}
    for r in records:
        if r.experiment != EXPERIMENT or r.decision.get("probe"):
            continue
        key = (r.model, _task_key(r.task), int(r.task["repeat"]), str(r.arm))
        row = rows.get(key)
        if row is None:
            run = r.outcome["run"]
            row = rows[key] = {
                "model": r.model, "task": key[1], "family": r.task["family"], "stale_fact": bool(r.task["stale_fact"]),
                "repeat": key[2], "arm": key[3], "completed": bool(run["completed"]), "steps_used": run["steps_used"],
                "budget": run["budget"], "replans": run["replans"], "verifications": run["verifications"],
                "pre_failure_work": run["pre_failure_work"], "scur": float(run["scur"]), "decisions": 0,
                "answered_execute": 0, "answered_verify": 0, "answered_replan": 0, "blocked": 0,
                "execute_blocked": 0, "overruled": 0,
            }
        action = r.decision["action"]
        row["decisions"] += 1
        row[f"answered_{action.lower()}"] += 1
        blocked = bool(r.outcome["blocked"])
        row["blocked"] += blocked
        row["execute_blocked"] += blocked and action == "EXECUTE"
        row["overruled"] += bool(r.decision.get("gated"))
    return pd.DataFrame(list(rows.values()))


def answer_rates(runs: pd.DataFrame) -> dict[tuple[str, str], dict[str, float]]:
    """Each model's marginal answer rates per arm (EXECUTE, VERIFY, REPLAN), for the random reference.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`study_runs`.

    Returns
    -------
    dict
        ``(model, arm) -> {action: share}``.
    """
    out = {}
    for (model, arm), part in runs.groupby(["model", "arm"], sort=True):
        counts = {a: float(part[f"answered_{a.lower()}"].sum()) for a in OPTIONS}
        total = sum(counts.values())
        out[(str(model), str(arm))] = {a: c / total for a, c in counts.items()} if total else dict.fromkeys(OPTIONS, 1 / 3)
    return out


class RandomAnswers:
    """A stand-in model that answers at given rates, seeded: the random reference, run through the same policy.

    Parameters
    ----------
    rates : Mapping of str to float
        The share of EXECUTE, VERIFY and REPLAN.
    seed : int
        The draw's seed.
    """

    identity = ModelIdentity("random", "", "reference", "1", content_addressed=False)

    def __init__(self, rates: Mapping[str, float], seed: int) -> None:
        self._actions = list(OPTIONS)
        self._weights = [float(rates.get(a, 0.0)) for a in OPTIONS]
        if sum(self._weights) <= 0:
            raise ParameterError(f"answer rates {dict(rates)!r} sum to nothing; expected shares of {', '.join(OPTIONS)}")
        self._rng = random.Random(seed)

    def prepare(self, settings: GenerationSettings) -> None:
        """Nothing to load."""

    def reset(self) -> None:
        """Nothing to forget."""

    def close(self) -> None:
        """Nothing to free."""

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        """A seeded draw (``VERIFY`` names the first fact of the plan: the check covers the step's facts anyway)."""
        action = self._rng.choices(self._actions, self._weights)[0]
        return "VERIFY F1" if action == "VERIFY" else action


#: The random reference's base seed (section 2 of ``preregistration.md``, "seed 0 per task"). Each task and draw gets
#: its own seed derived from it (:func:`random_seed`): one seed shared by every task gave every task the same
#: draws, so the reference was one draw repeated, not a random policy (with the 1.5B model's rates every task
#: began REPLAN, REPLAN).
RANDOM_SEED = 0
#: Draws of the random reference per task and arm, averaged within the task like a model's repeats.
RANDOM_DRAWS = 20


def random_seed(task: str, draw: int, base: int = RANDOM_SEED) -> int:
    """The random reference's seed for one task and draw, from the base seed, the task's key and the draw.

    Parameters
    ----------
    task : str
        The task's canonical key (the ``task`` column of :func:`study_runs`).
    draw : int
        The draw, from 0.
    base : int
        The base seed.

    Returns
    -------
    int
    """
    digest = hashlib.sha256(f"{base}\n{task}\n{draw}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def reference_runs(tasks: Iterable[str], rates: Mapping[tuple[str, str], Mapping[str, float]] | None = None,
                   draws: int = RANDOM_DRAWS) -> pd.DataFrame:
    """The references on the study's tasks: always execute, the validity-aware executor and, per model and arm, random answers.

    Parameters
    ----------
    tasks : iterable of str
        Canonical tasks (the ``task`` column of :func:`study_runs`).
    rates : Mapping, optional
        :func:`answer_rates`; without it, no random reference.
    draws : int
        Random runs per task, model and arm, each with its own seed (:func:`random_seed`); a paired
        contrast averages them within the task.

    Returns
    -------
    pandas.DataFrame
        ``model`` (empty for the deterministic references), ``task``, ``arm`` (the reference's name, or
        ``random_<arm>``), ``draw`` (0 for the deterministic ones), and the run's counters.
    """
    import pandas as pd

    draws = require_int("draws", draws, minimum=1)
    rows = []
    for key in sorted(set(tasks)):
        task = AgentTask.from_dict(json.loads(key))
        for name in (BASELINE, VALIDITY_AWARE):
            rows.append({"model": "", "task": key, "arm": name, "draw": 0, **_counters(run_task(task, get_policy(name)))})
        for (model, arm), shares in sorted((rates or {}).items()):
            for draw in range(draws):
                answers = RandomAnswers(shares, random_seed(key, draw))
                policy = ModelPolicy(answers, arm, STUDY_SETTINGS, prompts=StudyPrompts())
                rows.append({"model": model, "task": key, "arm": f"random_{arm}", "draw": draw,
                             **_counters(run_task(task, policy))})
    return pd.DataFrame(rows)


def _counters(result: Any) -> dict[str, Any]:
    return {"completed": bool(result.completed), "steps_used": result.steps_used, "verifications": result.verifications,
            "pre_failure_work": result.pre_failure_work, "scur": float(result.scur), "replans": result.replans}


#: Below this many tasks a paired effect gets no interval, its ends are NaN, because a percentile bootstrap over a
#: handful of tasks is far too narrow to mean anything (over two tasks it only ever draws their two values); a page
#: read from a tiny recording says "not computable" instead of quoting it.
MIN_INTERVAL_TASKS = 10


def paired_effects(runs: pd.DataFrame, contrasts: Sequence[tuple[str, str]] = CONTRASTS, metric: str = "pre_failure_work",
                   *, stale_fact: bool | None = True, confidence: float = 0.95, resamples: int = 10_000) -> pd.DataFrame:
    """Each contrast's mean paired difference per task (repeats averaged within a task), with its bootstrap interval.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`study_runs` (and, for a reference, rows with the reference's ``arm`` and the model's name).
    contrasts : sequence of (str, str)
        ``(arm, other arm)``: the difference is the first minus the second.
    metric : str
        A column of ``runs``.
    stale_fact : bool or None
        Only stale-fact tasks (True), only controls (False), or all (None).
    confidence : float
        The interval's level.
    resamples : int
        Bootstrap resamples (seed 0).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``contrast``, ``metric``, ``tasks``, ``mean``, ``low``, ``high``; ``low`` and ``high`` are NaN
        below :data:`MIN_INTERVAL_TASKS` tasks (a page read from a recording of one task says "not computable").
    """
    import pandas as pd

    from cvlib.experiments.paired import paired_effect

    if metric not in runs.columns:
        raise ParameterError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    part = runs if stale_fact is None or "stale_fact" not in runs.columns else runs[runs["stale_fact"] == stale_fact]
    rows = []
    for model in sorted(part["model"].unique()):
        mine = part[part["model"] == model]
        per_task = mine.groupby(["task", "arm"])[metric].mean().astype(float).unstack("arm")
        for first, second in contrasts:
            if first not in per_task or second not in per_task:
                continue
            diff = (per_task[first] - per_task[second]).dropna().tolist()
            if not diff:
                continue
            effect = paired_effect(diff, confidence, resamples)
            low, high = (effect.low, effect.high) if effect.tasks >= MIN_INTERVAL_TASKS else (math.nan, math.nan)
            rows.append({"model": model, "contrast": f"{first} − {second}", "metric": metric, "tasks": effect.tasks,
                         "mean": effect.mean, "low": low, "high": high})
    return pd.DataFrame(rows, columns=["model", "contrast", "metric", "tasks", "mean", "low", "high"])


def completion_mcnemar(runs: pd.DataFrame, first: str, second: str, *, repeat: int = 0,
                       stale_fact: bool | None = True) -> pd.DataFrame:
    """McNemar's exact test of completion between two arms, per model, on one repeat.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`study_runs`.
    first, second : str
        The arms.
    repeat : int
        The repeat (0: greedy).
    stale_fact : bool or None
        As in :func:`paired_effects`.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``tasks``, ``only_first`` and ``only_second`` (the discordant tasks), ``p_value``.
    """
    import pandas as pd

    from cvlib.experiments.paired import mcnemar_exact

    part = runs[runs["repeat"] == repeat]
    if stale_fact is not None:
        part = part[part["stale_fact"] == stale_fact]
    rows = []
    for model in sorted(part["model"].unique()):
        wide = part[part["model"] == model].pivot_table(index="task", columns="arm", values="completed", aggfunc="first")
        if first not in wide or second not in wide:
            continue
        pair = wide[[first, second]].dropna().astype(bool)
        test = mcnemar_exact(pair[first].tolist(), pair[second].tolist())
        rows.append({"model": model, "tasks": test.tasks, "only_first": test.only_first, "only_second": test.only_second,
                     "p_value": test.p_value})
    return pd.DataFrame(rows, columns=["model", "tasks", "only_first", "only_second", "p_value"])


def probe_accuracy(recording: str | os.PathLike[str] | Iterable[CallRecord], confidence: float = 0.95) -> pd.DataFrame:
    """The competence probe: per model and arm, the share of tasks answered exactly right, with its interval.

    Parameters
    ----------
    recording : str, os.PathLike or iterable of CallRecord
        A study recording.
    confidence : float
        The interval's level.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``arm``, ``tasks``, ``correct``, ``share``, ``low``, ``high``.
    """
    import pandas as pd

    from cvlib.core.intervals import proportion_interval

    records = read_recording(recording) if isinstance(recording, str | os.PathLike) else list(recording)
    counts: dict[tuple[str, str], list[int]] = {}
    for r in records:
        if r.experiment == EXPERIMENT and r.decision.get("probe"):
            tally = counts.setdefault((r.model, str(r.arm)), [0, 0])
            tally[0] += bool(r.decision["correct"])
            tally[1] += 1
    rows = []
    for (model, arm), (right, total) in sorted(counts.items(), key=lambda kv: (kv[0][0], STUDY_ARMS.index(kv[0][1]))):
        low, high = proportion_interval(right, total, confidence)
        rows.append({"model": model, "arm": arm, "tasks": total, "correct": right, "share": right / total, "low": low, "high": high})
    return pd.DataFrame(rows, columns=["model", "arm", "tasks", "correct", "share", "low", "high"])


def position_bias(recording: str | os.PathLike[str] | Iterable[CallRecord]) -> pd.DataFrame:
    """How often each answer was chosen when listed first, and when listed second or third (sampled repeats).

    Parameters
    ----------
    recording : str, os.PathLike or iterable of CallRecord
        A study recording.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``answer``, ``first_shown``, ``first_chosen``, ``later_shown``, ``later_chosen``, and the shares.
    """
    import pandas as pd

    records = read_recording(recording) if isinstance(recording, str | os.PathLike) else list(recording)
    tally: dict[tuple[str, str], list[int]] = {}
    for r in records:
        if r.experiment != EXPERIMENT or r.decision.get("probe") or int(r.task["repeat"]) == 0:
            continue
        order = r.decision.get("order") or list(OPTIONS)
        for option in OPTIONS:
            t = tally.setdefault((r.model, option), [0, 0, 0, 0])
            chosen = r.decision["action"] == option
            if order[0] == option:
                t[0] += 1
                t[1] += chosen
            else:
                t[2] += 1
                t[3] += chosen
    rows = []
    for (model, option), (fs, fc, ls, lc) in sorted(tally.items()):
        rows.append({"model": model, "answer": option, "first_shown": fs, "first_chosen": fc, "later_shown": ls,
                     "later_chosen": lc, "first_share": fc / fs if fs else float("nan"),
                     "later_share": lc / ls if ls else float("nan")})
    return pd.DataFrame(rows)


def whole_groups(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs of the groups (model, task, repeat) recorded under all four arms: a recording read while it grows compares fairly.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`study_runs`.

    Returns
    -------
    pandas.DataFrame
        The same columns, only whole groups.
    """
    if runs.empty:
        return runs
    keys = ["model", "task", "repeat"]
    arms = runs[runs["arm"].isin(STUDY_ARMS)].groupby(keys)["arm"].nunique()
    whole = arms[arms == len(STUDY_ARMS)].index
    return runs.set_index(keys).loc[lambda f: f.index.isin(whole)].reset_index()[list(runs.columns)]


def reference_contrasts(arms: Sequence[str] = STUDY_ARMS) -> tuple[tuple[str, str], ...]:
    """Q5's contrasts: each arm minus the baseline, minus the validity-aware executor, minus random answers at its own rates.

    Parameters
    ----------
    arms : sequence of str
        The model's arms.

    Returns
    -------
    tuple of (str, str)
    """
    return tuple((arm, other) for arm in arms for other in (BASELINE, VALIDITY_AWARE, f"random_{arm}"))


def with_references(runs: pd.DataFrame, references: pd.DataFrame) -> pd.DataFrame:
    """The model's runs with the references' runs beside them, as rows of each model, so one paired analysis covers both.

    The deterministic references (model ``""``) are copied to every model
    with the tasks of its runs; the random reference's rows already name
    their model. A deterministic reference has one run per task (repeat 0),
    the random one a run per draw: a task's paired difference averages the
    model's repeats against the mean of the reference's runs.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`study_runs`.
    references : pandas.DataFrame
        :func:`reference_runs` of the same tasks.

    Returns
    -------
    pandas.DataFrame
        ``runs`` and the references, with ``stale_fact`` and ``repeat`` (0) filled in.
    """
    import pandas as pd

    if runs.empty or references.empty:
        return runs
    stale = runs.drop_duplicates("task").set_index("task")["stale_fact"]
    parts = [runs]
    for model in sorted(runs["model"].unique()):
        tasks = set(runs.loc[runs["model"] == model, "task"])
        mine = references[references["task"].isin(tasks) & references["model"].isin(["", model])]
        mine = mine.drop(columns=["draw"], errors="ignore").copy()
        mine["model"] = model
        parts.append(mine)
    out = pd.concat(parts, ignore_index=True)
    out["stale_fact"] = out["task"].map(stale).astype(bool)
    out["repeat"] = out["repeat"].fillna(0).astype(int)
    return out


def arm_means(runs: pd.DataFrame, metric: str, *, stale_fact: bool | None = True) -> pd.DataFrame:
    """Each arm's (and reference's) mean of ``metric`` over tasks, each task's repeats averaged first: the levels beside the effects.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`study_runs`, optionally :func:`with_references`.
    metric : str
        A column.
    stale_fact : bool or None
        As in :func:`paired_effects`.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``arm``, ``tasks``, ``mean``.
    """
    import pandas as pd

    part = runs if stale_fact is None else runs[runs["stale_fact"] == stale_fact]
    if part.empty:
        return pd.DataFrame(columns=["model", "arm", "tasks", "mean"])
    per_task = part.groupby(["model", "arm", "task"])[metric].mean().astype(float)
    out = per_task.groupby(["model", "arm"]).agg(tasks="size", mean="mean").reset_index()
    out["tasks"] = out["tasks"].astype(int)
    return out


def task_shares(runs: pd.DataFrame, confidence: float = 0.95, *, repeat: int = 0,
                stale_fact: bool | None = True) -> pd.DataFrame:
    """Per model and arm, two shares of tasks with Wilson intervals (tasks counted, decisions never pooled).

    * ``execute_blocked``: of the tasks with a decision at a blocked step (a
      fact believed not ACTIVE), the share where the model answered EXECUTE
      at one of them at least once (in ``enforced`` the gate then refused it);
    * ``always_execute``: the share of tasks where every answer was EXECUTE,
      the runs that equal the always-execute baseline's step for step.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`study_runs`.
    confidence : float
        The intervals' level.
    repeat : int
        The repeat (0: greedy), so each task counts once.
    stale_fact : bool or None
        As in :func:`paired_effects`.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``arm``, ``share`` (the name above), ``tasks``, ``count``, ``value``, ``low``, ``high``, and
        ``decisions_share`` (the pooled share of decisions, descriptive only).
    """
    import pandas as pd

    from cvlib.core.intervals import proportion_interval

    part = runs[(runs["repeat"] == repeat) & runs["arm"].isin(STUDY_ARMS)]
    if stale_fact is not None:
        part = part[part["stale_fact"] == stale_fact]
    rows = []
    for (model, arm), mine in part.groupby(["model", "arm"], sort=True):
        at_blocked = mine[mine["blocked"] > 0]
        cases = (("execute_blocked", at_blocked, at_blocked["execute_blocked"] > 0,
                  at_blocked["execute_blocked"].sum() / max(1, at_blocked["blocked"].sum())),
                 ("always_execute", mine, mine["answered_execute"] == mine["decisions"],
                  mine["answered_execute"].sum() / max(1, mine["decisions"].sum())))
        for name, base, hit, pooled in cases:
            n, k = len(base), int(hit.sum())
            low, high = proportion_interval(k, n, confidence) if n else (math.nan, math.nan)
            rows.append({"model": model, "arm": arm, "share": name, "tasks": n, "count": k,
                         "value": k / n if n else math.nan, "low": low, "high": high, "decisions_share": float(pooled)})
    out = pd.DataFrame(rows, columns=["model", "arm", "share", "tasks", "count", "value", "low", "high", "decisions_share"])
    order = {arm: i for i, arm in enumerate(STUDY_ARMS)}
    return out.sort_values(["share", "model", "arm"], key=lambda c: c.map(order) if c.name == "arm" else c,
                           kind="stable").reset_index(drop=True)


def probe_runs(recording: str | os.PathLike[str] | Iterable[CallRecord]) -> pd.DataFrame:
    """The competence probe task by task (``model``, ``task``, ``stale_fact``, ``repeat``, ``arm``, ``correct``), for paired contrasts of P4.

    Parameters
    ----------
    recording : str, os.PathLike or iterable of CallRecord
        A study recording.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    records = read_recording(recording) if isinstance(recording, str | os.PathLike) else list(recording)
    rows = [{"model": r.model, "task": _task_key(r.task), "stale_fact": bool(r.task["stale_fact"]),
             "repeat": int(r.task["repeat"]), "arm": str(r.arm), "correct": float(bool(r.decision["correct"]))}
            for r in records if r.experiment == EXPERIMENT and r.decision.get("probe")]
    return pd.DataFrame(rows, columns=["model", "task", "stale_fact", "repeat", "arm", "correct"])
