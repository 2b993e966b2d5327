"""The chapter "What the published trials say": its tables, glued numbers and the provenance of every number.

The counts and what they imply are the notes package's
(:mod:`cvlib.notes.trials`: the published counts with their intervals, the
policies' rates, expected stale edits per release; :mod:`cvlib.notes.replay`:
the staleness measured on release histories); this module writes them for the
page: counts in words, intervals as ranges, glued numbers as
``{key: (value, kind)}`` for :func:`cvlib.presentation.formatting.glue_all`.
The formatting is this module's own (:mod:`cvlib.presentation.formatting`),
so the notebook passes no formatting function into the science.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from cvlib.core.errors import ParameterError
from cvlib.notes.languages import languages
from cvlib.notes.trials import ARM_NAMES
from cvlib.presentation.chapters.notes_release_history import Numbers, key, project_name
from cvlib.presentation.formatting import fmt, listing, span

__all__ = [
    "COLUMN_KINDS",
    "POLICIES",
    "QUOTED_ARMS",
    "arms_table",
    "expected_numbers",
    "expected_table",
    "formats",
    "provenance_table",
    "rule_kind_table",
    "trial_numbers",
]

#: The policies of the per-release table, in display order.
POLICIES: tuple[str, ...] = ("warn with a label", "verify first", "symbol-only gate", "dependency-aware gate")


#: The arms the prose quotes, by glue-key stem, each as (study, model, arm).
QUOTED_ARMS: dict[str, tuple[str, str, str]] = {
    "label_glm": ("ungated", "GLM 5.2", "stale_labelled"), "label_sonnet": ("ungated", "Sonnet 4.6", "stale_labelled"),
    "verify_glm": ("ungated", "GLM 5.2", "stale_verify"), "verify_sonnet": ("ungated", "Sonnet 4.6", "stale_verify"),
    "true_glm": ("ungated", "GLM 5.2", "true_note"), "true_sonnet": ("ungated", "Sonnet 4.6", "true_note"),
    "gated_true": ("gated", "Sonnet 4.6", "true_note"), "gated_stale": ("gated", "Sonnet 4.6", "stale"),
    "control_glm": ("ungated", "GLM 5.2", "control"),
}


#: The kind of quantity of the columns of the arms table (the rest are counts or words).
COLUMN_KINDS: dict[str, str] = {"Share": "percent", "Wilson low": "percent", "Wilson high": "percent"}


def formats(frame: pd.DataFrame) -> dict[str, str]:
    """The formats of a table of this module: :data:`COLUMN_KINDS`, and ``"mean"`` for the per-release columns.

    Parameters
    ----------
    frame
        A table returned by a function of this module.

    Returns
    -------
    dict
        Column -> kind: the columns :data:`COLUMN_KINDS` knows, and the
        expected stale edits and true notes withheld of :func:`expected_table`
        (the verify-first column is a range already written as text).
    """
    out = {c: COLUMN_KINDS[c] for c in frame.columns if c in COLUMN_KINDS}
    out.update({c: "mean" for c in frame.columns
                if c.endswith("true notes withheld") or c.capitalize() in (p.capitalize() for p in POLICIES)
                and c != "Verify first"})
    return out


def _arm(arms: pd.DataFrame, study: str, model: str, arm: str) -> pd.Series:
    hit = arms[(arms["study"] == study) & (arms["model"] == model) & (arms["arm"] == arm)]
    if hit.empty:
        raise ParameterError(f"the trial counts have no arm {arm!r} of model {model!r} in study {study!r}")
    return hit.iloc[0]


def arms_table(arms: pd.DataFrame) -> pd.DataFrame:
    """The arms with their counts in words and Wilson intervals in percent.

    Parameters
    ----------
    arms
        The rows of table ``arms`` of :func:`cvlib.notes.trials.with_intervals`.

    Returns
    -------
    DataFrame
        Study, model, arm, outcome, ``"k of n unit"``, share and interval in percent, and whether the count is published.
    """
    count = [f"{fmt(c)} of {fmt(n)} {u}" for c, n, u in zip(arms["count"], arms["total"], arms["unit"])]
    return pd.DataFrame({"Study": arms["study"], "Model": arms["model"], "Arm": arms["arm"].map(ARM_NAMES),
                         "Outcome": arms["outcome"], "Count": count, "Share": 100 * arms["share"],
                         "Wilson low": 100 * arms["low"], "Wilson high": 100 * arms["high"], "Count is": arms["status"]})


def trial_numbers(counts: pd.DataFrame, confidence: float) -> Numbers:
    """The numbers the trials chapter glues about the published counts (arms, rule kinds, run sizes).

    Parameters
    ----------
    counts
        :func:`cvlib.notes.trials.with_intervals` of the published counts.
    confidence
        Of the Wilson intervals.

    Returns
    -------
    dict
        ``key -> (value, kind)``.
    """
    arms = counts[counts["table"] == "arms"]
    out: Numbers = {}
    for stem, (study, model, arm) in QUOTED_ARMS.items():
        row = _arm(arms, study, model, arm)
        out[f"N_{stem}_count"] = (int(row["count"]), "count")
        out[f"N_{stem}_total"] = (int(row["total"]), "count")
        out[f"N_{stem}_pct"] = (100 * float(row["share"]), "percent")
        out[f"N_{stem}_low"] = (100 * float(row["low"]), "tenths")
        out[f"N_{stem}_high"] = (100 * float(row["high"]), "percent")
    out["N_confidence_pct"] = (int(round(100 * confidence)), "count")
    runs = counts[counts["table"] == "run_size"]
    out["N_trials_all"] = (int(runs["count"].sum()), "count")
    out["N_gated_run"] = (int(runs.loc[runs["study"] == "gated", "count"].sum()), "count")
    kinds = counts[counts["table"] == "rule_kind"]
    ordering = kinds[kinds["rule_kind"] == "Ordering"]
    out["N_ordering_tasks"] = (int(ordering["total"].iloc[0]), "count")
    out["N_ordering_bad"] = (int(ordering["count"].sum()), "count")
    out["N_ordering_high"] = (100 * float(ordering["high"].max()), "percent")
    api = kinds[(kinds["rule_kind"] == "API contract") & (kinds["model"] == "GLM 5.2")].iloc[0]
    out["N_api_tasks"] = (int(api["total"]), "count")
    out["N_api_glm_bad"] = (int(api["count"]), "count")
    return out


def rule_kind_table(counts: pd.DataFrame) -> pd.DataFrame:
    """Verify-first tasks with a stale edit by the kind of rule, per model, with Wilson intervals.

    Parameters
    ----------
    counts
        :func:`cvlib.notes.trials.with_intervals` of the published counts.

    Returns
    -------
    DataFrame
        One row per kind of rule; per model the tasks with a stale edit and the interval written as a range.
    """
    kinds = counts[counts["table"] == "rule_kind"]
    order = list(dict.fromkeys(kinds["rule_kind"]))
    out = pd.DataFrame({"Kind of rule": order,
                        "Tasks": [int(kinds[kinds["rule_kind"] == k]["total"].iloc[0]) for k in order]})
    for model in sorted(kinds["model"].unique()):
        mine = kinds[kinds["model"] == model].set_index("rule_kind")
        out[f"{model}: tasks with a stale edit"] = [int(mine.loc[k, "count"]) for k in order]
        out[f"{model}: Wilson interval"] = [span([100 * mine.loc[k, "low"], 100 * mine.loc[k, "high"]], "percent") for k in order]
    return out


def expected_table(expected: pd.DataFrame) -> pd.DataFrame:
    """Expected stale edits per release step per 100 notes, per (project, model) and policy, and true notes withheld.

    Parameters
    ----------
    expected
        :func:`cvlib.notes.trials.expected_stale_edits` per (project, model).

    Returns
    -------
    DataFrame
        One row per (project, model); the verify-first column is its range written as text.
    """
    rows = []
    for (project, model), mine in expected.groupby(["project", "model"], sort=False):
        by = mine.set_index("policy")
        row: dict[str, Any] = {"Project": project_name(str(project)), "Model": model}
        for policy in POLICIES:
            if policy == "verify first":
                row[policy.capitalize()] = span([by.loc[policy, "stale_low"], by.loc[policy, "stale_high"]], "mean")
            else:
                row[policy.capitalize()] = float(by.loc[policy, "stale_edits"])
        for policy in POLICIES[2:]:
            row[f"{policy.capitalize()}: true notes withheld"] = float(by.loc[policy, "true_withheld"])
        rows.append(row)
    return pd.DataFrame(rows)


def expected_numbers(expected: pd.DataFrame, counts: pd.DataFrame, wrong_share: float) -> Numbers:
    """The per-release numbers the trials chapter glues, pooled and per language.

    Parameters
    ----------
    expected
        :func:`cvlib.notes.trials.expected_stale_edits` per (project, model).
    counts
        The status counts it was computed from (:func:`cvlib.notes.replay.step_counts`).
    wrong_share
        The share of notes on changed code counted as wrong (1.0 on the page: not measured, so an upper bound).

    Returns
    -------
    dict
        ``key -> (value, kind)``.
    """
    out: Numbers = {"N_wrong_share": (float(wrong_share), "share")}
    pooled = expected.set_index(["project", "model", "policy"])
    for model, tag in [("GLM 5.2", "glm"), ("Sonnet 4.6", "sonnet")]:
        out[f"N_exp_label_{tag}"] = (float(pooled.loc[("all", model, "warn with a label"), "stale_edits"]), "mean")
        out[f"N_exp_verify_{tag}_low"] = (float(pooled.loc[("all", model, "verify first"), "stale_low"]), "mean")
        out[f"N_exp_verify_{tag}_high"] = (float(pooled.loc[("all", model, "verify first"), "stale_high"]), "mean")
        out[f"N_exp_symbol_gate_{tag}"] = (float(pooled.loc[("all", model, "symbol-only gate"), "stale_edits"]), "mean")
    out["N_exp_gate"] = (float(pooled.loc[("all", "GLM 5.2", "dependency-aware gate"), "stale_edits"]), "mean")
    out["N_true_withheld"] = (float(pooled.loc[("all", "GLM 5.2", "dependency-aware gate"), "true_withheld"]), "mean")
    out["N_true_withheld_symbol"] = (float(pooled.loc[("all", "GLM 5.2", "symbol-only gate"), "true_withheld"]), "mean")
    for group in sorted(set(expected["project"]) & {language.name for language in languages()}):
        out[f"N_exp_symbol_gate_glm_{key(group)}"] = (
            float(pooled.loc[(group, "GLM 5.2", "symbol-only gate"), "stale_edits"]), "mean")
        out[f"N_true_withheld_{key(group)}"] = (
            float(pooled.loc[(group, "GLM 5.2", "dependency-aware gate"), "true_withheld"]), "mean")
    all_row = counts.set_index("project").loc["all"]
    out["N_changed_per100"] = (100 * float(all_row["CHANGED"]) / float(all_row["notes"]), "mean")
    out["N_depchanged_per100"] = (100 * float(all_row["DEPENDENCY_CHANGED"]) / float(all_row["notes"]), "mean")
    out["N_moved_per100"] = (100 * float(all_row["RENAMED"] + all_row["AMBIGUOUS"]) / float(all_row["notes"]), "mean")
    out["N_notes_steps"] = (int(all_row["notes"]), "count")
    return out


def provenance_table(arms: pd.DataFrame, wrong_share: float) -> pd.DataFrame:
    """Which number of the trials chapter is whose: published, implied, ours measured, ours assumed.

    Parameters
    ----------
    arms
        The rows of table ``arms`` of :func:`cvlib.notes.trials.with_intervals`.
    wrong_share
        The share of notes on changed code counted as wrong (1.0 on the page: not measured, so an upper bound).

    Returns
    -------
    DataFrame
        ``Number``, ``Whose``, ``How``.
    """
    true_counts = [_arm(arms, "ungated", m, "true_note")["count"] for m in ("GLM 5.2", "Sonnet 4.6")]
    total = _arm(arms, "ungated", "GLM 5.2", "true_note")["total"]
    rows = [
        ("trial counts: control, stale labelled, verify-first (tasks), gated", "published", "the source, quoted row by row in the data file"),
        (f"true-note counts of the ungated study ({listing(true_counts, last=' and ')} of {fmt(total)})",
         "implied", "the one count that rounds to the published percentage"),
        ("Wilson intervals", "ours", "computed from the counts"),
        ("per-trial range of the verify-first rate", "ours", "bounds from the per-task counts (one or two bad trials per bad task)"),
        ("notes CHANGED, DEPENDENCY_CHANGED, RENAMED, MISSING per release", "ours, measured",
         "replay of the committed PyPI release tables (wheels for Python, sdists for Rust)"),
        (f"wrong_share = {fmt(wrong_share, 'share')}", "not measured",
         "no trial measures it (every stale note in the trials was written to be wrong); 1.00 counts every note on "
         "changed code as wrong, so stale edits are upper bounds and true notes withheld lower bounds; swept in the figure"
         if wrong_share == 1.0 else
         "a reader's value: no trial measures it (every stale note in the trials was written to be wrong); swept in the figure"),
        ("a note shown as fresh is acted on at the true-note rate", "ours, assumed",
         "the published true-note share, for the symbol-only gate's unlabelled stale notes (the local-model trials "
         "measure this factor for small models, in the arm that shows the stale note as fresh)"),
        ("one exposure per note per release", "ours, assumed", "an agent edits each changed symbol once per release"),
        ("expected stale edits and true notes withheld", "ours", "the product of the rows above"),
    ]
    return pd.DataFrame(rows, columns=["Number", "Whose", "How"])
