"""What each study scores per sample, computed from its recorded lines by the studies' own analyses.

inspect shows levels per arm as the eval runs; the pre-registered paired
contrasts with their intervals are the report card's
(:mod:`cvlib.presentation.study_report`), from the same lines.

The agent study's second edition, per arm of a cell (one task in one option
order), from :func:`cvlib.experiments.agent_study.edition2_analysis.edition2_runs`
(``data/model_trials/preregistration_part3.md``, section 6):

* **discrimination** (primary): the EXECUTE share of the model's answers at
  unblocked steps minus at blocked steps (unscored when the run met only one
  kind of step);
* **cost** (primary): the steps the run used if it completed, else twice its
  budget (:func:`cvlib.experiments.agent_study.edition2.task_cost`), and
  **cost over aware**, that minus the validity-aware executor's cost on the
  same task;
* **pre-failure work** and **completion** (1 or 0), secondary;
* the **probe** (1 when it named exactly the facts not ACTIVE), from
  :func:`~cvlib.experiments.agent_study.edition2_analysis.probe_table`.

The notes study's second edition, per arm of a group, by the frozen reader
(:func:`cvlib.experiments.notes_study.second_reading.read_second`, as the
runner recorded it): **stale edit**, **true edit** (exactly, or with other
changes), **held back** (unchanged) and **declined** (``NO EDIT``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from cvlib.experiments.agent_study.edition2_prompts import EVIDENCE_ARMS
from cvlib.experiments.notes_study.trials import ARMS as NOTES_ARMS
from cvlib.models.recording import CallRecord

__all__ = ["AGENT_METRICS", "NOTES_METRICS", "agent_scores", "notes_scores", "records_of"]

_NAN = math.nan
#: The agent study's per-arm scores, in display order (the two primary metrics first).
AGENT_METRICS: tuple[str, ...] = ("discrimination", "cost", "cost_over_aware", "pre_failure_work", "completed", "probe")
#: The notes study's per-arm scores, in display order.
NOTES_METRICS: tuple[str, ...] = ("stale_edit", "true_edit", "held_back", "declined")


def records_of(lines: Sequence[str]) -> list[CallRecord]:
    """The recorded calls of a sample's JSON lines.

    Parameters
    ----------
    lines : sequence of str
        Recorded lines.

    Returns
    -------
    list of CallRecord
    """
    return [CallRecord.from_dict(json.loads(line)) for line in lines]


def agent_scores(lines: Sequence[str]) -> dict[str, dict[str, float]]:
    """Each metric of :data:`AGENT_METRICS` per arm of one agent-study cell.

    Parameters
    ----------
    lines : sequence of str
        The cell's recorded lines.

    Returns
    -------
    dict
        ``metric -> {arm: value}``; NaN where a value is undefined (discrimination of a run that met one kind of
        step, an arm without a probe), which inspect counts as unscored.
    """
    from cvlib.experiments.agent_study.edition2_analysis import edition2_runs, probe_table

    records = records_of(lines)
    runs = {row["arm"]: row for row in edition2_runs(records).to_dict("records")}
    probes = {row["arm"]: row["exact"] for row in probe_table(records).to_dict("records")}
    out: dict[str, dict[str, float]] = {m: {} for m in AGENT_METRICS}
    for arm in EVIDENCE_ARMS:
        row = runs.get(arm)
        for metric in AGENT_METRICS[:-1]:
            out[metric][arm] = _NAN if row is None else float(row[metric])
        out["probe"][arm] = float(probes[arm]) if arm in probes else _NAN
    return out


def notes_scores(lines: Sequence[str]) -> dict[str, dict[str, float]]:
    """Each metric of :data:`NOTES_METRICS` per arm of one notes-study group, as the frozen reader read each answer.

    Parameters
    ----------
    lines : sequence of str
        The group's recorded lines (each with the reader's outcome, which the runner records).

    Returns
    -------
    dict
        ``metric -> {arm: value}``; NaN for an arm the group did not run (a sampled repeat runs the stale arms only).
    """
    outcomes = {str(r.arm): str(r.outcome["reading"]["outcome"]) for r in records_of(lines)}
    out: dict[str, dict[str, float]] = {m: {} for m in NOTES_METRICS}
    for arm in NOTES_ARMS:
        outcome = outcomes.get(arm)
        out["stale_edit"][arm] = _NAN if outcome is None else float(outcome == "stale_edit")
        out["true_edit"][arm] = _NAN if outcome is None else float(outcome in ("true_exact", "true_collateral"))
        out["held_back"][arm] = _NAN if outcome is None else float(outcome == "unchanged")
        out["declined"][arm] = _NAN if outcome is None else float(outcome == "declined")
    return out
