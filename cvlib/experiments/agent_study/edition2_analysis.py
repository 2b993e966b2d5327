"""The second edition's analysis: levels and paired contrasts of discrimination and cost, order by order.

Pre-registration part 3 (sections 6 and 7) as code. A recording becomes one
row per run (model, task, order, arm) with the run's counters and the two
halves of discrimination; a task's orders are averaged within the task; arm
contrasts are paired per task with a bootstrap interval over tasks
(:func:`cvlib.experiments.agent_study.analysis.paired_effects`), and a null is
bounded by two one-sided tests (:func:`bounded`). The references run through
the same loop with scripted answers (:func:`reference_runs`).
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, VALIDITY_AWARE, get_policy
from cvlib.experiments.agent_study.analysis import random_seed
from cvlib.experiments.agent_study.edition2 import EXPERIMENT, task_cost
from cvlib.experiments.agent_study.edition2_prompts import EVIDENCE_ARMS, OPTION_ORDERS, EvidencePrompts
from cvlib.experiments.agent_study.policy import ModelPolicy
from cvlib.experiments.agent_study.study_prompts import OPTIONS
from cvlib.experiments.agent_study.tasks import FLOORLESS_FAMILIES, AgentTask, run_task, task_setup
from cvlib.models.recording import CallRecord, canonical, read_recording
from cvlib.models.settings import GenerationSettings, ModelIdentity

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MARGINS",
    "PRIMARY_CONTRASTS",
    "PRIMARY_METRICS",
    "bounded",
    "edition2_runs",
    "order_bias",
    "probe_scores",
    "probe_table",
    "reference_runs",
    "task_group",
]

#: The primary metrics (pre-registration part 3, section 6).
PRIMARY_METRICS: tuple[str, ...] = ("discrimination", "cost_over_aware")
#: The primary contrasts — reading, being told, being stopped.
PRIMARY_CONTRASTS: tuple[tuple[str, str], ...] = (("labelled", "transcript"), ("told", "labelled"), ("enforced", "told"))
#: The equivalence margin of a null for each primary metric, as section 7 states them (cost in steps per task).
MARGINS: dict[str, float] = {"discrimination": 0.10, "cost_over_aware": 0.5}


def task_group(family: str, stale_fact: bool) -> str:
    """The family group a task is reported in: ``first`` (the first edition's stale-fact tasks), a floorless family, or ``control``.

    Parameters
    ----------
    family : str
        The task's family.
    stale_fact : bool
        Whether it is a stale-fact task.

    Returns
    -------
    str
    """
    if not stale_fact:
        return "control"
    return family if family in FLOORLESS_FAMILIES else "first"


def _task_key(task: Mapping[str, Any]) -> str:
    return canonical({k: task[k] for k in ("family", "scenario", "params")})


def _aware_cost(task: Mapping[str, Any], cache: dict[str, int]) -> int:
    key = _task_key(task)
    if key not in cache:
        cache[key] = task_cost(run_task(AgentTask.from_dict(task), get_policy(VALIDITY_AWARE)))
    return cache[key]


def _discrimination(row: Mapping[str, Any]) -> float:
    if not row["blocked"] or not row["unblocked"]:
        return math.nan
    return float(row["execute_unblocked"] / row["unblocked"] - row["execute_blocked"] / row["blocked"])


def edition2_runs(recording: str | os.PathLike[str] | Iterable[CallRecord]) -> pd.DataFrame:
    """One row per recorded run (model, task, order, arm): its counters, cost and discrimination.

    Parameters
    ----------
    recording : str, os.PathLike or iterable of CallRecord
        A second-edition recording, or its records.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``task``, ``family``, ``group`` (:func:`task_group`), ``stale_fact``, ``order``, ``arm``,
        ``completed``, ``steps_used``, ``budget``, ``verifications``, ``replans``, ``pre_failure_work``,
        ``cost``, ``cost_over_aware``, ``decisions``, ``blocked``, ``unblocked``, ``execute_blocked``,
        ``execute_unblocked``, ``answered_execute`` / ``_verify`` / ``_replan``, ``discrimination`` (NaN when
        the run met only one kind of step).
    """
    import pandas as pd

    records = read_recording(recording) if isinstance(recording, str | os.PathLike) else list(recording)
    rows: dict[tuple[str, str, int, str], dict[str, Any]] = {}
    aware: dict[str, int] = {}
    for r in records:
        if r.experiment != EXPERIMENT or r.decision.get("probe"):
            continue
        key = (r.model, _task_key(r.task), int(r.task["order"]), str(r.arm))
        row = rows.get(key)
        if row is None:
            run = r.outcome["run"]
            stale = bool(r.task["stale_fact"])
            cost = run["steps_used"] if run["completed"] else 2 * run["budget"]
            row = rows[key] = {
                "model": r.model, "task": key[1], "family": r.task["family"],
                "group": task_group(r.task["family"], stale), "stale_fact": stale, "order": key[2], "arm": key[3],
                "completed": bool(run["completed"]), "steps_used": run["steps_used"], "budget": run["budget"],
                "verifications": run["verifications"], "replans": run["replans"],
                "pre_failure_work": run["pre_failure_work"], "cost": cost,
                "cost_over_aware": cost - _aware_cost(r.task, aware), "decisions": 0, "blocked": 0, "unblocked": 0,
                "execute_blocked": 0, "execute_unblocked": 0, "answered_execute": 0, "answered_verify": 0,
                "answered_replan": 0,
            }
        action = r.decision["action"]
        row["decisions"] += 1
        row[f"answered_{action.lower()}"] += 1
        side = "blocked" if r.outcome["blocked"] else "unblocked"
        row[side] += 1
        row[f"execute_{side}"] += action == "EXECUTE"
    frame = pd.DataFrame(list(rows.values()))
    if not frame.empty:
        frame["discrimination"] = frame.apply(_discrimination, axis=1)
    return frame


def bounded(differences: Sequence[float], margin: float, resamples: int = 10_000) -> dict[str, Any]:
    """Two one-sided tests of a paired null at ``margin``: is the 90 % interval of the mean difference inside it?

    Parameters
    ----------
    differences : sequence of float
        One difference per task.
    margin : float
        The equivalence margin (positive).
    resamples : int
        Bootstrap resamples (seed 0).

    Returns
    -------
    dict
        ``tasks``, ``low90``, ``high90``, ``margin``, ``within`` (True: "no change larger than the margin").
    """
    from cvlib.experiments.paired import paired_effect

    if not margin > 0:
        raise ParameterError(f"an equivalence margin must be positive, got {margin!r}")
    effect = paired_effect([d for d in differences if not math.isnan(d)], 0.90, resamples)
    return {"tasks": effect.tasks, "low90": effect.low, "high90": effect.high, "margin": margin,
            "within": -margin < effect.low and effect.high < margin}


def order_bias(runs: pd.DataFrame, option: str = "EXECUTE") -> pd.DataFrame:
    """Per model and arm, how much more often ``option`` is answered when it is listed first than when it is not.

    Per task: the option's share of answers in the order that lists it first, minus its mean share in the two
    others; then the mean over tasks with its bootstrap interval.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`edition2_runs`.
    option : str
        One of EXECUTE, VERIFY, REPLAN.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``arm``, ``option``, ``tasks``, ``mean``, ``low``, ``high``.
    """
    import pandas as pd

    from cvlib.experiments.paired import paired_effect

    if option not in OPTIONS:
        raise ParameterError(f"unknown option {option!r}; expected one of {', '.join(OPTIONS)}")
    first = next(k for k, order in enumerate(OPTION_ORDERS) if order[0] == option)
    share = runs.assign(share=runs[f"answered_{option.lower()}"] / runs["decisions"])
    rows = []
    for (model, arm), part in share.groupby(["model", "arm"], sort=True):
        wide = part.pivot_table(index="task", columns="order", values="share")
        if first not in wide or wide.shape[1] < 3:
            continue
        others = [o for o in wide.columns if o != first]
        diff = (wide[first] - wide[others].mean(axis=1)).dropna().tolist()
        if not diff:
            continue
        effect = paired_effect(diff)
        rows.append({"model": model, "arm": arm, "option": option, "tasks": effect.tasks, "mean": effect.mean,
                     "low": effect.low, "high": effect.high})
    return pd.DataFrame(rows, columns=["model", "arm", "option", "tasks", "mean", "low", "high"])


def probe_table(recording: str | os.PathLike[str] | Iterable[CallRecord]) -> pd.DataFrame:
    """One row per recorded probe: model, task, order, arm, exact, precision, recall.

    Parameters
    ----------
    recording : str, os.PathLike or iterable of CallRecord
        A second-edition recording, or its records.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    records = read_recording(recording) if isinstance(recording, str | os.PathLike) else list(recording)
    facts: dict[str, frozenset[str]] = {}
    rows = []
    for r in records:
        if r.experiment != EXPERIMENT or not r.decision.get("probe"):
            continue
        key = _task_key(r.task)
        if key not in facts:
            facts[key] = frozenset(task_setup(AgentTask.from_dict(r.task)).plan.facts)
        scores = probe_scores(r.decision["named"], r.decision["right"], facts[key])
        rows.append({"model": r.model, "task": key, "stale_fact": bool(r.task["stale_fact"]),
                     "order": int(r.task["order"]), "arm": str(r.arm), **scores})
    return pd.DataFrame(rows, columns=["model", "task", "stale_fact", "order", "arm", "exact", "precision", "recall"])


def probe_scores(named: Sequence[str], right: Sequence[str], facts: Collection[str]) -> dict[str, Any]:
    """A probe answer scored exactly and per fact, counting only the plan's fact names it holds.

    The grammar lets a probe answer name only the plan's facts, but an answer cut at the token limit can end
    in part of a name (``F`` for ``F2``); that part names no fact, so it is neither a hit nor a miss. The
    recorder's own scores (``decision["correct"]``, ``precision``, ``recall``) counted it as a name; they are
    kept in the recording as written and this is the score the analysis reads.

    Parameters
    ----------
    named : sequence of str
        The names the answer holds (the recording's ``decision["named"]``).
    right : sequence of str
        The facts not ACTIVE at the probe (``decision["right"]``).
    facts : collection of str
        The plan's facts.

    Returns
    -------
    dict
        ``exact`` (the names are exactly the facts not ACTIVE), ``precision`` and ``recall`` (None where
        undefined).
    """
    kept = sorted(set(named) & set(facts))
    hits = len(set(kept) & set(right))
    return {"exact": set(kept) == set(right), "precision": hits / len(kept) if kept else None,
            "recall": hits / len(right) if right else None}


class _Scripted:
    """Answers by a rule or at given rates, seeded: a reference run through the same policy as the model."""

    identity = ModelIdentity("reference", "0" * 64, "reference", "1")

    def __init__(self, rule: str, facts: Sequence[str], rates: Mapping[str, float] | None = None, seed: int = 0) -> None:
        self.rule, self.facts, self.rates, self.rng = rule, sorted(facts), rates, random.Random(seed)

    def prepare(self, settings: GenerationSettings) -> None:
        """Nothing to load."""

    def reset(self) -> None:
        """Nothing to forget."""

    def close(self) -> None:
        """Nothing to free."""

    def complete(self, messages: Sequence[tuple[str, str]], settings: GenerationSettings) -> str:
        """The rule's answer (a VERIFY names the step's first fact)."""
        action = self.rule
        if self.rates is not None:
            action = self.rng.choices(OPTIONS, weights=[self.rates[o] for o in OPTIONS])[0]
        if action != "VERIFY":
            return action
        step = messages[-1][1].rsplit("rests on ", 1)[-1]
        named = [f for f in self.facts if step.startswith(f)]
        return f"VERIFY {named[0] if named else self.facts[0]}"


def reference_runs(tasks: Iterable[AgentTask], *, arm: str = "transcript",
                   rates: Mapping[str, float] | None = None, draws: int = 200) -> pd.DataFrame:
    """The references on each task: always execute, always verify, always replan, the validity-aware executor, and
    (given ``rates``) the random policy at those rates, averaged over ``draws`` seeded draws per task.

    Parameters
    ----------
    tasks : iterable of AgentTask
        The tasks.
    arm : str
        The arm whose prompts and enforcement the scripted references run under (only ``enforced`` changes what
        they do).
    rates : mapping of str to float, optional
        EXECUTE, VERIFY and REPLAN shares for the random reference.
    draws : int
        Draws of the random reference per task.

    Returns
    -------
    pandas.DataFrame
        ``task``, ``reference``, ``cost``, ``pre_failure_work``, ``completed`` (a share for the random one).
    """
    import pandas as pd

    if arm not in EVIDENCE_ARMS:
        raise ParameterError(f"unknown study arm {arm!r}; expected one of {', '.join(EVIDENCE_ARMS)}")
    settings = GenerationSettings(max_tokens=8)
    rows = []
    for task in tasks:
        facts = sorted(task_setup(task).plan.facts)
        key = _task_key(task.to_dict())
        for name in (BASELINE, VALIDITY_AWARE):
            result = run_task(task, get_policy(name))
            rows.append({"task": key, "reference": name, "cost": task_cost(result),
                         "pre_failure_work": result.pre_failure_work, "completed": float(result.completed)})
        for rule in OPTIONS:
            policy = ModelPolicy(_Scripted(rule, facts), arm, settings, prompts=EvidencePrompts())
            result = run_task(task, policy)
            rows.append({"task": key, "reference": f"always_{rule.lower()}", "cost": task_cost(result),
                         "pre_failure_work": result.pre_failure_work, "completed": float(result.completed)})
        if rates is not None:
            results = [run_task(task, ModelPolicy(_Scripted("", facts, rates, seed=random_seed(key, d)), arm,
                                                  settings, prompts=EvidencePrompts())) for d in range(draws)]
            rows.append({"task": key, "reference": "random",
                         "cost": sum(task_cost(r) for r in results) / draws,
                         "pre_failure_work": sum(r.pre_failure_work for r in results) / draws,
                         "completed": sum(r.completed for r in results) / draws})
    return pd.DataFrame(rows, columns=["task", "reference", "cost", "pre_failure_work", "completed"])
