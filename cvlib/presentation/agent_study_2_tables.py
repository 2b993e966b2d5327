"""The agent study's second edition as tables and a figure, for its chapter and for the report card.

One place computes what the chapter (``notebooks/agent_study_2.ipynb``) and
``cvlib study report`` both show, so a reader's own recordings and the book's
give the same numbers: the runs of every recording in a folder, the scripted
references through the same loop (always execute, verify or replan, the
validity-aware executor, and the random policy at the model's own rates in
each arm and order, 200 seeded draws per task), the levels per arm beside
them, the six primary contrasts with their bounds, the probe, the option-order
bias and how much of the pre-registered plan is recorded. Every table can be
restricted to a family group (:data:`GROUPS`), as section 7 of the
pre-registration asks ("every contrast also per family").
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.executors import BASELINE, VALIDITY_AWARE
from cvlib.experiments.agent_study.reference_cache import ReferenceKey
from cvlib.models.recording import read_recording
from cvlib.presentation._study_models import fold_long, model_label, model_table
from cvlib.presentation.formatting import interval_text, verdict
from cvlib.presentation.tables import Table
from cvlib.repository import project_root

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "GROUPS",
    "METRICS",
    "MIN_BOUND_TASKS",
    "REFERENCES",
    "StudyRuns",
    "contrast_rows",
    "contrasts_table",
    "first_answer_agreement",
    "level_rows",
    "levels_figure",
    "levels_table",
    "order_bias_table",
    "probe_rows",
    "probe_levels_table",
    "read_runs",
    "random_label",
    "recording_status",
    "references",
    "sources_in",
]

#: The experiment name of the second edition's recordings (``agent_study_2.<model>.jsonl.gz``).
EXPERIMENT = "agent_study_2"
#: The family groups a table can be restricted to, with how the page names them.
GROUPS: dict[str, str] = {
    "stale": "stale-fact tasks",
    "first": "the first edition's stale-fact tasks",
    "floorless": "floorless tasks",
    "hidden": "floorless: silent changes",
    "false_alarm": "floorless: doubts that prove false",
    "noisy": "floorless: noisy verification",
    "control": "control tasks",
}
_FLOORLESS = ("hidden", "false_alarm", "noisy")
#: The level metrics, primary first, with their names on the page.
METRICS: dict[str, str] = {"discrimination": "Discrimination", "cost_over_aware": "Cost over the validity-aware executor",
                           "cost": "Cost (steps)", "pre_failure_work": "Pre-failure work", "completed": "Completed"}
#: The rule-following references (never recorded), in the order they are shown; they run under the transcript
#: arm, without enforcement. The random reference is shown per arm, at that arm's rates (:func:`random_label`).
REFERENCES: dict[str, str] = {BASELINE: "always execute", "always_verify": "always verify",
                              "always_replan": "always replan", VALIDITY_AWARE: "validity-aware executor"}
#: Below this many tasks a discrimination null is not bounded (pre-registration part 3, section 8).
MIN_BOUND_TASKS = 80
#: Draws of the random reference per task, arm and order (pre-registration part 3, section 6).
RANDOM_DRAWS = 200
#: The committed table of random-reference results, relative to the repository root.
DEFAULT_CACHE = "data/model_trials/agent_study_2_random.csv"


@dataclass(frozen=True)
class StudyRuns:
    """A folder's second-edition runs and references, read once for every table of a page.

    Attributes
    ----------
    runs : pandas.DataFrame
        One row per recorded run (:func:`cvlib.experiments.agent_study.edition2_analysis.edition2_runs`), ``model``
        the recording file's stem and ``recorded`` the model name its calls hold.
    refs : pandas.DataFrame
        :func:`references`: the scripted references per model, arm and order on the recorded tasks.
    probes : pandas.DataFrame
        One row per recorded probe, ``model`` as in ``runs``.
    firsts : pandas.DataFrame
        The ``told`` and ``enforced`` first answers per cell.
    models : tuple of str
        The models read, in the order asked for.
    partial : pandas.DataFrame
        ``model``, ``task``, ``order``: the cells of tasks not yet recorded in every option order their recording
        uses. Section 10 of the pre-registration analyses a task only once all its orders are in, so these are
        counted, never read.
    """

    runs: pd.DataFrame
    refs: pd.DataFrame
    probes: pd.DataFrame
    firsts: pd.DataFrame
    models: tuple[str, ...]
    partial: pd.DataFrame


def sources_in(folder: str | os.PathLike[str], models: Sequence[str] | None = None, *,
               require: bool = False) -> dict[str, list[Path]]:
    """The second edition's recordings in ``folder`` by model (``agent_study_2.<model>.jsonl[.gz]``).

    Parameters
    ----------
    folder : str or os.PathLike
        A folder of recordings (the book's ``data/model_trials`` or a reader's).
    models : sequence of str, optional
        Keep only these models, in this order (a model without a file is left out; the page says so).
    require : bool
        Raise when none is found (a page asked to read a folder that holds no recording of these models).

    Returns
    -------
    dict of str to list of Path
    """
    root = Path(folder) if Path(folder).is_absolute() else project_root() / folder
    if not root.is_dir():
        raise ParameterError(f"no folder of recordings at {str(folder)!r}; expected a folder holding "
                             f"{EXPERIMENT}.<model>.jsonl.gz files")
    found: dict[str, list[Path]] = {}
    for path in sorted(root.iterdir()):
        name = path.name
        for suffix in (".jsonl.gz", ".jsonl"):
            if name.startswith(EXPERIMENT + ".") and name.endswith(suffix):
                found.setdefault(name[len(EXPERIMENT) + 1:-len(suffix)], []).append(path)
    chosen = found if models is None else {m: found[m] for m in models if m in found}
    if require and not chosen:
        wanted = "" if models is None else f" of {', '.join(models)}"
        raise ParameterError(f"no recording{wanted} in {str(folder)!r}; expected {EXPERIMENT}.<model>.jsonl.gz files "
                             f"there (found: {', '.join(sorted(found)) or 'none'})")
    return chosen


def read_runs(sources: Mapping[str, Sequence[Path]], *, draws: int = RANDOM_DRAWS,
              cache: str | os.PathLike[str] | None = DEFAULT_CACHE,
              computed: dict[ReferenceKey, tuple[float, float, float]] | None = None) -> StudyRuns:
    """Every model's runs, probes and first answers, and the references on the tasks each model recorded.

    Parameters
    ----------
    sources : mapping of str to sequence of Path
        :func:`sources_in`.
    draws : int
        Draws of the random reference per task, arm and order.
    cache : str or os.PathLike, optional
        The committed table of random-reference results (relative to the repository root), or None to compute
        every one.
    computed : dict, optional
        Filled with every random-reference result used (:func:`references`).

    Returns
    -------
    StudyRuns
    """
    import pandas as pd

    from cvlib.experiments.agent_study.edition2_analysis import edition2_runs, probe_table
    from cvlib.experiments.agent_study.edition2_predictions import first_answers
    from cvlib.experiments.agent_study.reference_cache import load_reference_cache

    runs, probes, firsts = [], [], []
    partial = [pd.DataFrame(columns=["model", "task", "order"])]
    for model, paths in sources.items():
        records = [r for p in paths for r in read_recording(p, allow_cut_tail=True)]
        mine = edition2_runs(records)
        if mine.empty:
            continue
        # A task enters the analysis once it has every option order its recording uses (section 10: all three in
        # the study): a recorder stopped in the middle of a task leaves cells that are counted but not read, so no
        # level leans on one order, while a reader's run of one order (-T orders=0) or of a prefix is read whole.
        orders = mine.groupby("task")["order"].nunique()
        whole = set(orders[orders == mine["order"].nunique()].index)
        partial.append(mine[~mine["task"].isin(whole)][["task", "order"]].drop_duplicates().assign(model=model))
        mine = mine[mine["task"].isin(whole)]
        if mine.empty:
            continue
        # The page names a model by its file's stem; ``recorded`` keeps the name its calls recorded.
        runs.append(mine.assign(recorded=mine["model"], model=model))
        found = probe_table(records)
        found = found[found["task"].isin(whole)]
        probes.append(found.assign(recorded=found["model"], model=model))
        found = first_answers(records)
        firsts.append(found.assign(recorded=found["model"], model=model))
    cut = pd.concat(partial, ignore_index=True)[["model", "task", "order"]]
    if not runs:
        empty = pd.DataFrame()
        return StudyRuns(empty, empty, empty, empty, (), cut)
    all_runs = pd.concat(runs, ignore_index=True)
    models = tuple(dict.fromkeys(all_runs["model"]))
    table = {} if cache is None else load_reference_cache(project_root() / cache)
    return StudyRuns(all_runs, references(all_runs, draws=draws, cache=table, computed=computed), pd.concat(probes, ignore_index=True),
                     pd.concat(firsts, ignore_index=True), models, cut)


def _counts(part: pd.DataFrame) -> dict[str, int]:
    return {o: int(part[f"answered_{o.lower()}"].sum()) for o in ("EXECUTE", "VERIFY", "REPLAN")}


def references(runs: pd.DataFrame, *, draws: int = RANDOM_DRAWS, cache: Mapping[ReferenceKey, Any] | None = None,
               computed: dict[ReferenceKey, tuple[float, float, float]] | None = None) -> pd.DataFrame:
    """The scripted references on every task a model recorded, per model, arm and order.

    The rule-following references (always execute, verify or replan; the
    validity-aware executor) do not depend on the model, so they are run once
    per task and arm; the random one answers at the model's own rates in that
    arm and order (all its decisions there, every task), as section 6 of the
    pre-registration states.

    Parameters
    ----------
    runs : pandas.DataFrame
        :attr:`StudyRuns.runs`.
    draws : int
        Draws of the random reference per task.
    cache : mapping, optional
        Random-reference results already computed
        (:func:`cvlib.experiments.agent_study.reference_cache.load_reference_cache`); a key it lacks is computed.
    computed : dict, optional
        Filled with every random-reference result used, looked up or computed (to write a new table).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``arm``, ``order``, ``task``, ``group``, ``stale_fact``, ``reference``, ``cost``,
        ``cost_over_aware``, ``pre_failure_work``, ``completed``, ``discrimination`` (by construction: 1 for
        the validity-aware executor, 0 for the others and the random policy, whose answer does not depend on
        the step).
    """
    import pandas as pd

    from cvlib.experiments.agent_study.edition2_analysis import reference_runs
    from cvlib.experiments.agent_study.reference_cache import reference_key
    from cvlib.experiments.agent_study.tasks import AgentTask

    if draws < 1:
        raise ParameterError(f"the random reference needs at least one draw per task, got {draws!r}")
    cache = cache or {}
    tasks = runs.drop_duplicates("task").set_index("task")[["group", "stale_fact"]]
    parsed = {key: AgentTask.from_dict(json.loads(key)) for key in tasks.index}
    fixed: dict[str, pd.DataFrame] = {}
    parts = []
    for (model, arm, order), part in runs.groupby(["model", "arm", "order"], sort=False):
        keys = sorted(set(part["task"]))
        if arm not in fixed:
            fixed[arm] = reference_runs([parsed[k] for k in sorted(parsed)], arm=arm)
        chunk = [fixed[arm][fixed[arm]["task"].isin(keys)]]
        counts = _counts(part)
        total = sum(counts.values())
        if total:
            rates = {o: c / total for o, c in counts.items()}
            found = {k: cache.get(reference_key(k, arm, counts, draws)) for k in keys}
            missing = [k for k, value in found.items() if value is None]
            if missing:
                drawn = reference_runs([parsed[k] for k in missing], arm=arm, rates=rates, draws=draws)
                for r in drawn[drawn["reference"] == "random"].to_dict("records"):
                    found[r["task"]] = (r["cost"], r["pre_failure_work"], r["completed"])
            chunk.append(pd.DataFrame([{"task": k, "reference": "random", "cost": v[0], "pre_failure_work": v[1],
                                        "completed": v[2]} for k, v in found.items() if v is not None]))
            if computed is not None:
                computed.update({reference_key(k, arm, counts, draws): tuple(map(float, v))  # type: ignore[misc]
                                 for k, v in found.items() if v is not None})
        parts.append(pd.concat(chunk, ignore_index=True).assign(model=model, arm=arm, order=int(order)))
    refs = pd.concat(parts, ignore_index=True)
    aware = refs[refs["reference"] == VALIDITY_AWARE].drop_duplicates("task").set_index("task")["cost"]
    refs = refs.assign(cost_over_aware=refs["cost"] - refs["task"].map(aware),
                       group=refs["task"].map(tasks["group"]), stale_fact=refs["task"].map(tasks["stale_fact"]),
                       discrimination=[1.0 if r == VALIDITY_AWARE else 0.0 for r in refs["reference"]])
    return refs[["model", "arm", "order", "task", "group", "stale_fact", "reference", "cost", "cost_over_aware",
                 "pre_failure_work", "completed", "discrimination"]]


def random_label(arm: str) -> str:
    """How the page names the random reference at ``arm``'s answer rates.

    Parameters
    ----------
    arm : str
        The arm whose answer rates the random policy uses.

    Returns
    -------
    str
    """
    return f"random at {arm}'s rates"


def _reference_parts(refs: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The references a level table shows: each rule under the transcript arm, and the random one per arm."""
    from cvlib.experiments.agent_study.edition2_prompts import EVIDENCE_ARMS

    parts = [(label, refs[(refs["reference"] == name) & (refs["arm"] == "transcript")]) for name, label in REFERENCES.items()]
    parts += [(random_label(arm), refs[(refs["reference"] == "random") & (refs["arm"] == arm)]) for arm in EVIDENCE_ARMS]
    return parts


def _in_group(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    if group not in GROUPS:
        raise ParameterError(f"unknown family group {group!r}; expected one of {', '.join(GROUPS)}")
    if frame.empty:
        return frame
    if group == "stale":
        return frame[frame["stale_fact"].astype(bool)]
    if group == "floorless":
        return frame[frame["group"].isin(_FLOORLESS)]
    return frame[frame["group"] == group]


def _per_task(frame: pd.DataFrame, metric: str) -> pd.Series:
    """A metric per task, its orders averaged (a task enters with the orders in which the metric is defined)."""
    return frame.groupby("task")[metric].mean().dropna()


def level_rows(study: StudyRuns, group: str = "stale", confidence: float = 0.95) -> pd.DataFrame:
    """Each model's arms and the references: the mean per task of every metric, with its interval.

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.
    group : str
        A key of :data:`GROUPS`.
    confidence : float
        The intervals' level.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``arm`` (an arm, or a reference's name: :data:`REFERENCES`, :func:`random_label`), ``kind`` (``arm`` or
        ``reference``), ``tasks``, ``metric``, ``mean``, ``low``, ``high`` (no interval under ten tasks, nor for
        a reference whose value is the same on every task by construction).
    """
    import pandas as pd

    from cvlib.experiments.agent_study.analysis import MIN_INTERVAL_TASKS
    from cvlib.experiments.agent_study.edition2_prompts import EVIDENCE_ARMS
    from cvlib.experiments.agent_study.results import mean_interval

    columns = ["model", "arm", "kind", "tasks", "metric", "mean", "low", "high"]
    if study.runs.empty:
        return pd.DataFrame(columns=columns)
    runs, refs = _in_group(study.runs, group), _in_group(study.refs, group)
    rows = []
    for model in study.models:
        mine = runs[runs["model"] == model]
        theirs = refs[refs["model"] == model]
        parts = [(arm, "arm", mine[mine["arm"] == arm]) for arm in EVIDENCE_ARMS]
        parts += [(label, "reference", part) for label, part in _reference_parts(theirs)]
        for arm, kind, part in parts:
            if part.empty:
                continue
            for metric in METRICS:
                per_task = _per_task(part, metric)
                if per_task.empty:
                    rows.append({"model": model, "arm": arm, "kind": kind, "tasks": int(part["task"].nunique()),
                                 "metric": metric, "mean": math.nan, "low": math.nan, "high": math.nan})
                    continue
                mean, low, high = mean_interval(per_task.astype(float).tolist(), confidence)
                if len(per_task) < MIN_INTERVAL_TASKS:
                    low = high = math.nan
                rows.append({"model": model, "arm": arm, "kind": kind, "tasks": int(len(per_task)), "metric": metric,
                             "mean": float(mean), "low": float(low), "high": float(high)})
    return pd.DataFrame(rows, columns=columns)


def levels_table(study: StudyRuns, group: str = "stale", confidence: float = 0.95,
                 metrics: Sequence[str] = tuple(METRICS)) -> Table:
    """:func:`level_rows` as the page's table: one row per model and arm or reference, one column per metric.

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.
    group : str
        A key of :data:`GROUPS`.
    confidence : float
        The intervals' level.
    metrics : sequence of str
        Keys of :data:`METRICS`, in the order shown.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ParameterError(f"unknown metric {unknown[0]!r}; expected one of {', '.join(METRICS)}")
    long = level_rows(study, group, confidence)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for r in long.to_dict("records"):
        row = rows.setdefault((r["model"], r["arm"]), {"model": r["model"], "arm": r["arm"], "tasks": 0})
        row["tasks"] = max(row["tasks"], r["tasks"])
        kind = "percent_of" if r["metric"] == "completed" else "mean"
        row[r["metric"]] = interval_text(r["mean"], r["low"], r["high"], kind)
    frame = pd.DataFrame(list(rows.values()), columns=["model", "arm", "tasks", *metrics]).fillna("–")
    level = round(100 * confidence)
    names = {"model": "Model", "arm": "Arm or reference", "tasks": f"Tasks ({GROUPS[group]})",
             **{m: f"{METRICS[m]}, mean ({level} % interval)" for m in metrics}}
    return model_table(frame, names, **fold_long(f"Every level per model, arm and reference, with its {level} % interval",
                                                 len(frame)))


def contrast_rows(study: StudyRuns, group: str = "stale", confidence: float = 0.95,
                  resamples: int = 10_000) -> pd.DataFrame:
    """The six primary contrasts per model (section 7), with the two one-sided tests where an interval holds zero.

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.
    group : str
        A key of :data:`GROUPS`.
    confidence : float
        The intervals' level.
    resamples : int
        Bootstrap resamples (seed 0).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``metric``, ``contrast``, ``tasks``, ``mean``, ``low``, ``high``, ``reading`` (``higher``,
        ``lower``, ``identical on all N tasks``, ``no change larger than ±m`` or ``too few tasks to bound it
        within ±m``; under ten tasks no interval and ``too few tasks (n) to read``; a discrimination null over
        fewer than :data:`MIN_BOUND_TASKS` tasks is not bounded, as section 8 says).
    """
    import pandas as pd

    from cvlib.experiments.agent_study.analysis import MIN_INTERVAL_TASKS
    from cvlib.experiments.agent_study.edition2_analysis import MARGINS, PRIMARY_CONTRASTS, PRIMARY_METRICS, bounded
    from cvlib.experiments.paired import paired_effect

    columns = ["model", "metric", "contrast", "tasks", "mean", "low", "high", "reading"]
    runs = _in_group(study.runs, group)
    rows = []
    for model in study.models:
        mine = runs[runs["model"] == model] if not runs.empty else runs
        for metric in PRIMARY_METRICS:
            for first, second in PRIMARY_CONTRASTS:
                a, b = _per_task(mine[mine["arm"] == first], metric), _per_task(mine[mine["arm"] == second], metric)
                both = a.index.intersection(b.index)
                if both.empty:
                    continue
                diff = (a[both] - b[both]).tolist()
                effect = paired_effect(diff, confidence, resamples)
                low, high = effect.low, effect.high
                reading = verdict(low, high, effect.tasks, min_tasks=MIN_INTERVAL_TASKS)
                if effect.tasks < MIN_INTERVAL_TASKS:
                    low = high = math.nan
                elif low <= 0 <= high and not reading.startswith("identical"):
                    margin = MARGINS[metric]
                    if metric == "discrimination" and effect.tasks < MIN_BOUND_TASKS:
                        reading = f"not bounded: fewer than {MIN_BOUND_TASKS} tasks"
                    else:
                        reading = (f"no change larger than ±{margin:g}" if bounded(diff, margin, resamples)["within"]
                                   else f"too few tasks to bound it within ±{margin:g}")
                rows.append({"model": model, "metric": metric, "contrast": f"{first} − {second}",
                             "tasks": effect.tasks, "mean": effect.mean, "low": low, "high": high,
                             "reading": reading})
    return pd.DataFrame(rows, columns=columns)


def contrasts_table(study: StudyRuns, group: str = "stale", confidence: float = 0.95, resamples: int = 10_000) -> Table:
    """:func:`contrast_rows` as the page's table.

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.
    group : str
        A key of :data:`GROUPS`.
    confidence : float
        The intervals' level.
    resamples : int
        Bootstrap resamples (seed 0).

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    frame = contrast_rows(study, group, confidence, resamples)
    frame = frame.assign(metric=[METRICS[m] for m in frame["metric"]],
                         effect=[interval_text(r["mean"], r["low"], r["high"]) for r in frame.to_dict("records")])
    level = round(100 * confidence)
    return model_table(frame, {"model": "Model", "metric": "Metric", "contrast": "Contrast (first − second)",
                               "tasks": f"Tasks ({GROUPS[group]}, defined in both arms)",
                               "effect": f"Mean paired difference ({level} % interval)", "reading": "Reading"},
                       **fold_long(f"Every paired contrast per model, with its {level} % interval", len(frame)))


def order_bias_table(study: StudyRuns) -> Table:
    """Per model, arm and option, how much more often it is answered when listed first (section 7, Q6).

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.

    Returns
    -------
    cvlib.presentation.tables.Table
        Empty when no task is recorded in all three orders.
    """
    import pandas as pd

    from cvlib.experiments.agent_study.edition2_analysis import order_bias

    columns = {"model": "Model", "arm": "Arm", "option": "Option", "tasks": "Tasks in all three orders",
               "effect": "Share when listed first − when not (95 % interval)"}
    if study.runs.empty:
        return model_table(pd.DataFrame(columns=list(columns)), columns, collapse_after=None)
    frame = pd.concat([order_bias(study.runs, option) for option in ("EXECUTE", "VERIFY", "REPLAN")], ignore_index=True)
    order = {m: k for k, m in enumerate(study.models)}
    frame = frame.sort_values(["model", "option", "arm"], key=lambda s: s.map(order) if s.name == "model" else s,
                              kind="stable")
    frame = frame.assign(effect=[interval_text(r["mean"], r["low"], r["high"]) for r in frame.to_dict("records")])
    return model_table(frame, columns, **fold_long("The option-order bias per model, arm and option", len(frame)))


def probe_rows(study: StudyRuns, confidence: float = 0.95) -> pd.DataFrame:
    """The probe per model and arm on the stale-fact tasks: exact, precision and recall per task, with intervals.

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.
    confidence : float
        The intervals' level.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``arm``, ``tasks``, ``score`` (``exact``, ``precision``, ``recall``), ``mean``, ``low``, ``high``.
    """
    import pandas as pd

    from cvlib.experiments.agent_study.results import mean_interval

    rows = []
    probes = study.probes[study.probes["stale_fact"].astype(bool)] if not study.probes.empty else study.probes
    for model in study.models:
        mine = probes[probes["model"] == model] if not probes.empty else probes
        for arm, part in mine.groupby("arm", sort=False):
            for score in ("exact", "precision", "recall"):
                per_task = part.groupby("task")[score].mean().dropna().astype(float)
                mean, low, high = mean_interval(per_task.tolist(), confidence) if len(per_task) else (math.nan,) * 3
                rows.append({"model": model, "arm": arm, "tasks": int(part["task"].nunique()), "score": score,
                             "mean": mean, "low": low, "high": high})
    return pd.DataFrame(rows, columns=["model", "arm", "tasks", "score", "mean", "low", "high"])


def probe_levels_table(study: StudyRuns, confidence: float = 0.95) -> Table:
    """:func:`probe_rows` as the page's table, one row per model and arm.

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.
    confidence : float
        The intervals' level.

    Returns
    -------
    cvlib.presentation.tables.Table
    """
    import pandas as pd

    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for r in probe_rows(study, confidence).to_dict("records"):
        row = rows.setdefault((r["model"], r["arm"]), {"model": r["model"], "arm": r["arm"], "tasks": r["tasks"]})
        row[r["score"]] = interval_text(r["mean"], r["low"], r["high"])
    frame = pd.DataFrame(list(rows.values()), columns=["model", "arm", "tasks", "exact", "precision", "recall"])
    return model_table(frame, {"model": "Model", "arm": "Arm", "tasks": "Stale-fact tasks", "exact": "Exact",
                               "precision": "Precision per fact", "recall": "Recall per fact"}, collapse_after=None)


def recording_status(study: StudyRuns, planned: Iterable[str], *, tasks: int = 200, orders: int = 3) -> pd.DataFrame:
    """How much of the pre-registered plan each planned model has recorded.

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.
    planned : iterable of str
        The planned models, in the page's order (a model with no recording gets a row of zeros).
    tasks, orders : int
        The plan: tasks per model and option orders per task.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``cells`` (task × order runs recorded whole), ``tasks_all_orders``, ``stale``, ``floorless``,
        ``control`` (tasks recorded in every order, by kind), ``planned_cells``, ``complete``.
    """
    import pandas as pd

    rows = []
    for model in dict.fromkeys([*planned, *study.models]):
        mine = study.runs[study.runs["model"] == model] if not study.runs.empty else study.runs
        cut = study.partial[study.partial["model"] == model]
        if mine.empty:
            rows.append({"model": model, "cells": len(cut), "tasks_all_orders": 0, "stale": 0, "floorless": 0,
                         "control": 0, "planned_cells": tasks * orders, "complete": False})
            continue
        cells = pd.concat([mine[["task", "order"]].drop_duplicates(), cut[["task", "order"]]], ignore_index=True)
        whole = cells.groupby("task")["order"].nunique()
        whole = set(whole[whole == orders].index)
        kinds = mine.drop_duplicates("task").set_index("task").loc[sorted(whole)] if whole else mine.iloc[:0]
        rows.append({"model": model, "cells": len(cells), "tasks_all_orders": len(whole),
                     "stale": int(kinds["stale_fact"].sum()) if len(kinds) else 0,
                     "floorless": int(kinds["group"].isin(_FLOORLESS).sum()) if len(kinds) else 0,
                     "control": int((~kinds["stale_fact"].astype(bool)).sum()) if len(kinds) else 0,
                     "planned_cells": tasks * orders, "complete": len(cells) >= tasks * orders})
    return pd.DataFrame(rows)


def first_answer_agreement(study: StudyRuns) -> pd.DataFrame:
    """Per model, the cells whose ``told`` and ``enforced`` first answers (the same prompt's bytes) are identical.

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``cells`` (with both first answers), ``identical``.
    """
    import pandas as pd

    rows = []
    for model in study.models:
        mine = study.firsts[(study.firsts["model"] == model)].dropna(subset=["told", "enforced"])
        rows.append({"model": model, "cells": len(mine), "identical": int((mine["told"] == mine["enforced"]).sum())})
    return pd.DataFrame(rows, columns=["model", "cells", "identical"])


def levels_figure(study: StudyRuns, group: str = "stale", confidence: float = 0.95) -> Figure:
    """Discrimination and cost over the validity-aware executor per arm, beside the references (the answer's figure).

    Parameters
    ----------
    study : StudyRuns
        :func:`read_runs`.
    group : str
        A key of :data:`GROUPS`.
    confidence : float
        The intervals' level.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.lines import Line2D

    from cvlib.experiments.agent_study.edition2_prompts import EVIDENCE_ARMS
    from cvlib.presentation.style import SERIES, legend_below, new_figure

    numbers = level_rows(study, group, confidence)
    rows = [*EVIDENCE_ARMS, *REFERENCES.values()]
    models = study.models
    n = max(1, len(models))
    fig, axes = new_figure(1, 2, height=0.3 * len(rows) * n + 1.9, sharey=True)
    titles = (("discrimination", "discrimination: EXECUTE share,\nunblocked − blocked steps"),
              ("cost_over_aware", "cost over the validity-aware\nexecutor (steps per task)"))

    def point(model: str, label: str, metric: str) -> tuple[float, float, float] | None:
        hit = numbers[(numbers["model"] == model) & (numbers["arm"] == label) & (numbers["metric"] == metric)]
        if hit.empty or math.isnan(hit["mean"].iloc[0]):
            return None
        return float(hit["mean"].iloc[0]), float(hit["low"].iloc[0]), float(hit["high"].iloc[0])

    for ax, (metric, title) in zip(axes, titles):
        for k, model in enumerate(models):
            colour = SERIES[k % len(SERIES)]
            for i, arm in enumerate(rows):
                y = (len(rows) - 1 - i) * n + (n - 1 - k)
                if arm in EVIDENCE_ARMS:
                    chance = point(model, random_label(arm), metric)
                    if chance is not None:
                        ax.plot(chance[0], y, marker="o", mfc="white", color=colour, ms=6, zorder=2)
                found = point(model, arm, metric)
                if found is None:
                    continue
                mean, low, high = found
                if not math.isnan(low):
                    ax.plot([low, high], [y, y], color=colour, lw=2.2, zorder=3)
                ax.plot(mean, y, marker="o" if arm in EVIDENCE_ARMS else "D", color=colour, ms=5, zorder=4)
        ax.axvline(0, color="#999999", lw=0.8, zorder=1)
        for i in range(1, len(rows)):
            ax.axhline(i * n - 0.5, color="#e3e3e3", lw=0.6, zorder=1)
        ax.set_xlabel(title)
    axes[0].set_yticks([(len(rows) - 1 - i) * n + (n - 1) / 2 for i in range(len(rows))], rows)
    level = round(100 * confidence)
    handles = [Line2D([], [], color=SERIES[k % len(SERIES)], marker="o", lw=2.2, label=model_label(m))
               for k, m in enumerate(models)]
    handles.append(Line2D([], [], color="#555555", marker="o", mfc="white", lw=0, label="random at the arm's rates"))
    handles.append(Line2D([], [], color="#555555", marker="D", lw=0, label="rule (no model)"))
    handles.append(Line2D([], [], color="#555555", lw=0, label=f"mean per task, {level} % interval"))
    legend_below(fig, handles, ncols=2)
    return fig
