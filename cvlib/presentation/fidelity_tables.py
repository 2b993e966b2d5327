"""Tables of the progressive-fidelity chapters, through the book's one table helper.

Each function takes what :mod:`cvlib.fidelity` computed, reshapes it for a
reader (one row per schedule, condition or form, their display names, means
or sums over seeds) and returns a :class:`~cvlib.presentation.tables.Table`
made by :func:`cvlib.presentation.tables.table`, so its numbers are written by
:mod:`cvlib.presentation.formatting` like every other table in the book. The
display names of schedules, conditions and forms live here too, so every
table, figure and glued sentence says the same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError
from cvlib.fidelity.findings import compare_conditions
from cvlib.fidelity.params import choices_table, default
from cvlib.presentation.tables import Table, table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.fidelity.runner import ScheduleRun

#: Display names of the schedules of Experiment B.
SCHEDULE_LABELS: dict[str, str] = {
    "full_while_feasible": "Flat compactor",
    "age_only": "Age only",
    "pressure_only": "Pressure only",
    "obligation_aware": "Obligation-aware",
    "magic_context_decay": "Magic Context (port)",
    "book_decay": "Book's decay variant",
    "oracle": "Hindsight oracle",
}

#: Display names of Experiment A's conditions.
CONDITION_LABELS: dict[str, str] = {
    "raw": "Full text only",
    "lossy_summary": "Lossy prose summary",
    "flat": "Fair flat compaction",
    "three_forms": "Three forms",
    "tiered_from_source": "Four forms from source",
    "tiered_cascaded": "Four forms, cascaded",
    "oracle": "Hindsight oracle",
}

#: Display names of the forms.
FORM_LABELS: dict[str, str] = {
    "full": "Full text",
    "dense": "Dense rewrite",
    "summary": "Lossy prose summary",
    "record": "Structured record",
    "anchor": "Anchor",
    "compact": "Extractive compaction",
    "record_cascaded": "Record, cascaded",
    "anchor_cascaded": "Anchor, cascaded",
}

#: Every display name above, for :func:`label`.
LABELS: dict[str, str] = {**FORM_LABELS, **CONDITION_LABELS, **SCHEDULE_LABELS}


def label(key: str) -> str:
    """The display name of a schedule, condition or form, so prose, tables and figures use the same words.

    Parameters
    ----------
    key:
        A schedule, condition or form name as the experiments write it.

    Returns
    -------
    str
        Its display name (the key itself if it has none).
    """
    return LABELS.get(key, key)


#: The fidelity chapters' number formats, as the book's quantities.
_KINDS: dict[str, str] = {"share": "share", "count": "count", "tenths": "tenths", "percent": "percent_whole"}


def _table(
    frame: pd.DataFrame,
    columns: Mapping[str, str],
    kinds: Mapping[str, str] | None = None,
    labels: Mapping[str, Mapping[str, str]] | None = None,
) -> Table:
    """``frame``'s ``columns`` under human names, key columns through ``labels``, numbers by their kind."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ParameterError(f"table has no column(s) {missing}; it has {list(frame.columns)}")
    kinds = dict(kinds or {})
    labels = dict(labels or {})
    bad = (set(kinds) | set(labels)) - set(columns)
    if bad:
        raise ParameterError(f"kinds or labels name column(s) {sorted(bad)} that are not shown")
    shown = frame[list(columns)].copy()
    for col, names in labels.items():
        shown[col] = [names.get(v, v) for v in shown[col]]
    return table(shown, dict(columns), {c: _KINDS[k] for c, k in kinds.items()})


def condition_table(a: pd.DataFrame, metric: str, conditions: tuple[str, ...] | None = None) -> Table:
    """Experiment A at every budget: one row per budget, one column per condition, ``metric`` summed over seeds.

    Parameters
    ----------
    a:
        :func:`~cvlib.fidelity.experiments.sweep_a` rows.
    metric:
        A numeric column, e.g. ``legal_objects`` or ``checks_passed``.
    conditions:
        Columns to show, in order (default: every condition in the table).

    Returns
    -------
    Table
        One row per budget.
    """
    for c in ("budget_fraction", "condition", metric):
        if c not in a.columns:
            raise ParameterError(f"Experiment A table has no column {c!r}")
    conds = tuple(dict.fromkeys(a["condition"])) if conditions is None else tuple(conditions)
    piv = a.pivot_table(index="budget_fraction", columns="condition", values=metric, aggfunc="sum").reindex(columns=list(conds))
    piv = piv.reset_index()
    cols = {"budget_fraction": "Budget (share of full text)", **{c: CONDITION_LABELS.get(c, c) for c in conds}}
    fmts = {"budget_fraction": "share", **{c: "count" for c in conds}}
    return _table(piv, cols, fmts)


#: What each schedule reads and which forms it chooses among, in words (for the chapters' schedule table).
SCHEDULE_NOTES: dict[str, tuple[str, str]] = {
    "full_while_feasible": (
        "budget only: full text until it does not fit, then every object "
        + ("admitted before this turn" if default("keep_recent") == 1 else f"at least {default('keep_recent')} turns old")
        + " is compacted, for good",
        f"full text, extractive compaction to {default('compact_ratio'):.0%} of it",
    ),
    "age_only": (
        "turns since admission, in bands: full, dense, record, anchor below "
        + ", ".join(str(a) for a in default("age_thresholds"))  # type: ignore[union-attr]
        + " turns",
        "the four views",
    ),
    "pressure_only": ("budget only: demotes the largest saving first until the set fits, every turn", "the four views"),
    "obligation_aware": (
        "current obligations and the declared task relation (checks of related objects weigh "
        f"{default('related_weight')}-fold): the richest legal set that fits, found exactly",
        "the four views, legal ones only",
    ),
    "magic_context_decay": (
        "rank from the newest, importance and natural-tier pressure; re-tiers on hard folds",
        "the four views (archived shows as the anchor)",
    ),
    "book_decay": (
        f"turns since admission, importance and full-text pressure; re-tiers every {default('fold_every')} turns",
        "the four views (archived shows as the anchor)",
    ),
    "oracle": ("the hidden probes (hindsight): the most probes passed, then the most objects legal", "every stored form"),
}


def schedule_table() -> Table:
    """The schedules of Experiment B: name, what each reads, which forms it chooses among.

    Returns
    -------
    Table
        One row per schedule.
    """
    import pandas as pd

    df = pd.DataFrame(
        [{"policy": k, "reads": r, "forms": f} for k, (r, f) in SCHEDULE_NOTES.items()]
    )
    return _table(df, {"policy": "Schedule", "reads": "Decides from", "forms": "Chooses among"}, labels={"policy": SCHEDULE_LABELS})


# --- the chapters' tables, one function each -----------------------------------------------------------


def _range(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo} to {hi}"


def migration_table(mig: pd.DataFrame, object_id: str = "migration") -> Table:
    """The migration episode's forms: size, cost, checks, and what the checker caught (rows of ``representation_table``).

    Parameters
    ----------
    mig:
        Rows of :func:`~cvlib.fidelity.experiments.representation_table` (only ``object_id`` rows are shown).
    object_id:
        The object whose forms are shown.

    Returns
    -------
    Table
        One row per form.
    """
    if "object_id" not in mig.columns:
        raise ParameterError(f"representation table has no column 'object_id'; it has {list(mig.columns)}")
    return _table(
        mig[mig["object_id"] == object_id],
        {"form": "Form", "tokens": "Tokens", "generation_tokens": "Generation tokens", "checks_passed": "Checks passed",
         "overclaimed": "Claimed, not found", "unsupported_additions": "Invented values", "contradictions": "Contradictions"},
        labels={"form": FORM_LABELS},
    )


def form_table(reps: pd.DataFrame) -> Table:
    """Mean per form over objects: tokens, generation tokens under both ledgers, checks, required checks met, undominated share.

    Parameters
    ----------
    reps:
        :func:`~cvlib.fidelity.experiments.representation_table` rows of every object.

    Returns
    -------
    Table
        One row per form.
    """
    d = reps.assign(required_share=reps["required_met"] / reps["required_total"].clip(lower=1))
    per = d.groupby("form", sort=False)[
        ["tokens", "generation_tokens", "own_call_generation_tokens", "checks_passed", "required_share", "earns_place"]
    ].mean()
    per = per.reindex([f for f in FORM_LABELS if f in per.index]).reset_index()
    return _table(
        per,
        {"form": "Form", "tokens": "Tokens", "generation_tokens": "Generation tokens",
         "own_call_generation_tokens": "Own call only", "checks_passed": "Checks passed",
         "required_share": "Required checks met", "earns_place": "Undominated for"},
        {"tokens": "count", "generation_tokens": "count", "own_call_generation_tokens": "count", "checks_passed": "tenths",
         "required_share": "percent", "earns_place": "percent"},
        {"form": FORM_LABELS},
    )


def comparison_table(a: pd.DataFrame, first: str, second: str) -> Table:
    """Experiment A per budget: the range over seeds of ``first`` minus ``second`` (see :func:`~cvlib.fidelity.findings.compare_conditions`).

    Parameters
    ----------
    a:
        :func:`~cvlib.fidelity.experiments.sweep_a` rows.
    first:
        The condition whose advantage is measured.
    second:
        The condition it is compared with.

    Returns
    -------
    Table
        One row per budget.
    """
    import pandas as pd

    cmp = compare_conditions(a, first, second)
    d = pd.DataFrame(
        {
            "budget_fraction": cmp["budget_fraction"],
            "legal": [_range(a, b) for a, b in zip(cmp["legal_min"], cmp["legal_max"])],
            "checks": [_range(a, b) for a, b in zip(cmp["checks_min"], cmp["checks_max"])],
            "seeds": cmp["seeds_first_more_legal"],
        }
    )
    return _table(
        d,
        {"budget_fraction": "Budget", "legal": "Objects kept legal", "checks": "Checks passed",
         "seeds": f"Seeds where {label(first).lower()} keep more legal"},
        {"budget_fraction": "share"},
    )


def cost_by_condition(a: pd.DataFrame) -> Table:
    """Experiment A: mean generation and stored tokens per fixture, per condition.

    Parameters
    ----------
    a:
        :func:`~cvlib.fidelity.experiments.sweep_a` rows.

    Returns
    -------
    Table
        One row per condition.
    """
    cost = a.groupby("condition", sort=False)[["generation_tokens", "storage_tokens"]].mean().reset_index()
    return _table(cost, {"condition": "Condition", "generation_tokens": "Generation tokens", "storage_tokens": "Stored tokens"},
                 {"generation_tokens": "count", "storage_tokens": "count"}, {"condition": CONDITION_LABELS})


def findings_table(found: pd.DataFrame, surv: pd.DataFrame) -> Table:
    """Findings with their basis, verdict at the defaults, survival under the variations, and what was measured.

    Parameters
    ----------
    found:
        A findings table (:func:`~cvlib.fidelity.findings.findings_a` or ``findings_b``).
    surv:
        Its :func:`~cvlib.fidelity.sensitivity.survival` under the variations.

    Returns
    -------
    Table
        One row per finding.
    """
    d = found.merge(surv[["key", "holds_under", "variations", "flips_under"]], on="key")
    d = d.assign(survives=[f"{k} of {n}" for k, n in zip(d["holds_under"], d["variations"])])
    return _table(
        d,
        {"finding": "Finding", "basis": "Basis", "holds": "At defaults", "survives": "Holds under",
         "measure": "Measured", "flips_under": "Comes out the other way under"},
    )


def policy_summary(b: pd.DataFrame) -> Table:
    """Experiment B per schedule, means per trajectory: declared, undeclared and infeasible-turn failures, legality, feasibility, regret.

    Parameters
    ----------
    b:
        :func:`~cvlib.fidelity.experiments.sweep_b` rows.

    Returns
    -------
    Table
        One row per schedule.
    """
    s = b.groupby("policy", sort=False)[
        ["failures_declared", "failures_undeclared", "failures_on_infeasible", "probe_failures", "legality_violations",
         "infeasible_turns", "regret"]
    ].mean().reset_index()
    return _table(
        s,
        {"policy": "Schedule", "failures_declared": "Declared failed", "failures_undeclared": "Undeclared failed",
         "failures_on_infeasible": "Failed on infeasible turns", "probe_failures": "All failed",
         "legality_violations": "Legality violations", "infeasible_turns": "Infeasible turns", "regret": "Regret vs oracle"},
        {"legality_violations": "tenths", "infeasible_turns": "tenths"},
        {"policy": SCHEDULE_LABELS},
    )


def failure_table(b: pd.DataFrame) -> Table:
    """Experiment B per schedule, totals over the sweep: failures by class (classes overlap) and on infeasible turns.

    Parameters
    ----------
    b:
        :func:`~cvlib.fidelity.experiments.sweep_b` rows.

    Returns
    -------
    Table
        One row per schedule.
    """
    c = b.groupby("policy", sort=False)[
        ["probe_failures", "failures_representation", "failures_legality", "failures_selection", "failures_timing",
         "failures_on_infeasible"]
    ].sum().reset_index()
    return _table(
        c,
        {"policy": "Schedule", "probe_failures": "Failed", "failures_representation": "Representation",
         "failures_legality": "Legality", "failures_selection": "Selection", "failures_timing": "Timing",
         "failures_on_infeasible": "On infeasible turns"},
        labels={"policy": SCHEDULE_LABELS},
    )


def cost_table(b: pd.DataFrame) -> Table:
    """Experiment B per schedule, means per trajectory: resident tokens, what they save against full text, management by line, storage.

    Headers are short so the table fits the book's column: *Saved* is full
    text minus resident tokens, *Managing* is generating + validating +
    switching (+ regeneration, zero here), *Storage* is in token-turns.

    Parameters
    ----------
    b:
        :func:`~cvlib.fidelity.experiments.sweep_b` rows.

    Returns
    -------
    Table
        One row per schedule.
    """
    c = b.groupby("policy", sort=False)[
        ["resident_tokens", "full_text_tokens", "management_tokens", "generation_tokens", "validation_tokens",
         "switching_tokens", "storage_token_turns"]
    ].mean().reset_index()
    c = c.assign(saved=c["full_text_tokens"] - c["resident_tokens"])
    cols = ["resident_tokens", "saved", "management_tokens", "generation_tokens", "validation_tokens", "switching_tokens", "storage_token_turns"]
    return _table(
        c,
        {"policy": "Schedule", "resident_tokens": "Resident", "saved": "Saved", "management_tokens": "Managing",
         "generation_tokens": "Generating", "validation_tokens": "Validating", "switching_tokens": "Switching",
         "storage_token_turns": "Storage"},
        {c2: "count" for c2 in cols},
        {"policy": SCHEDULE_LABELS},
    )


def importance_table(b: pd.DataFrame, coupled: pd.DataFrame, policies: tuple[str, ...] = ("magic_context_decay", "book_decay")) -> Table:
    """The importance-reading schedules with importance drawn independently and coupled to obligations: means per trajectory.

    Parameters
    ----------
    b:
        :func:`~cvlib.fidelity.experiments.sweep_b` rows.
    coupled:
        The same sweep with ``importance_mode="coupled"``.
    policies:
        The schedules to show.

    Returns
    -------
    Table
        One row per schedule and way of drawing importance.
    """
    import pandas as pd

    pair = pd.concat([b.assign(importance="independent"), coupled.assign(importance="coupled")])
    pair = pair[pair["policy"].isin(policies)]
    pair = pair.groupby(["policy", "importance"], sort=False)[["probe_failures", "legality_violations", "infeasible_turns"]].mean().reset_index()
    return _table(
        pair,
        {"policy": "Schedule", "importance": "Importance", "probe_failures": "Probes failed",
         "legality_violations": "Legality violations", "infeasible_turns": "Infeasible turns"},
        {"legality_violations": "tenths", "infeasible_turns": "tenths"},
        {"policy": SCHEDULE_LABELS},
    )


def port_table(variants: pd.DataFrame) -> Table:
    """:func:`~cvlib.fidelity.sensitivity.port_variants` for display.

    Parameters
    ----------
    variants:
        :func:`~cvlib.fidelity.sensitivity.port_variants` rows.

    Returns
    -------
    Table
        One row per variant of the port.
    """
    return _table(
        variants,
        {"variant": "Schedule", "probe_failures": "Probes failed", "failures_declared": "Declared failed",
         "failures_undeclared": "Undeclared failed", "legality_violations": "Legality violations",
         "infeasible_turns": "Infeasible turns", "switching_tokens": "Switching tokens"},
        {"legality_violations": "tenths", "infeasible_turns": "tenths", "switching_tokens": "count"},
    )


def outcomes_table(outcomes: pd.DataFrame) -> Table:
    """:func:`~cvlib.fidelity.findings.outcomes_that_count` for display.

    Parameters
    ----------
    outcomes:
        :func:`~cvlib.fidelity.findings.outcomes_that_count` rows.

    Returns
    -------
    Table
        One row per outcome.
    """
    return _table(outcomes, {"outcome": "Outcome", "result": "Our runs", "basis": "Basis", "measure": "Measured"})


def choices() -> Table:
    """Every named choice of :mod:`cvlib.fidelity.params`, for display.

    Returns
    -------
    Table
        One row per named choice.
    """
    return _table(choices_table(), {"name": "Name", "default": "Default", "owner": "Chosen by", "meaning": "What it sets",
                                   "alternatives": "Alternatives tried"})


def probe_table(runs: Mapping[str, ScheduleRun], probes: Mapping[str, tuple[int, str]]) -> Table:
    """Per schedule, "passes" or "fails" for each named probe: ``probes`` maps a column title to (turn, object id).

    Parameters
    ----------
    runs:
        Runs by schedule name (:func:`~cvlib.fidelity.experiments.run_experiment_b`).
    probes:
        Column title to (turn, object id) of the probe it shows.

    Returns
    -------
    Table
        One row per schedule, "passes" or "fails" per probe.
    """
    import pandas as pd

    rows = []
    for name, run in runs.items():
        row = {"policy": name}
        for title, (turn, oid) in probes.items():
            hit = [p for p in run.probes if p.turn == turn and p.object_id == oid]
            if not hit:
                raise ParameterError(f"run {name!r} has no probe of {oid!r} at turn {turn}")
            row[title] = "passes" if hit[0].passed else "fails"
        rows.append(row)
    return _table(pd.DataFrame(rows), {"policy": "Schedule", **{t: t for t in probes}}, labels={"policy": SCHEDULE_LABELS})


def residency_table(
    runs: Mapping[str, ScheduleRun], turn: int, objects: Mapping[str, str], failures: Mapping[str, int] | pd.DataFrame
) -> Table:
    """Per schedule, the form each named object shows at ``turn`` and the schedule's probe failures.


    Parameters
    ----------
    runs:
        Runs by schedule name (:func:`~cvlib.fidelity.experiments.run_experiment_b`).
    turn:
        The turn whose residency is shown.
    objects:
        Object id to its column title.
    failures:
        Each schedule's probe failures: a mapping, or the run table with ``policy`` and ``probe_failures`` columns.

    Returns
    -------
    Table
        One row per schedule.
    """
    import pandas as pd

    if isinstance(failures, pd.DataFrame):
        failures = dict(zip(failures["policy"], failures["probe_failures"]))
    rows = [{"policy": name, **{oid: dict(run.turns[turn].applied)[oid] for oid in objects}, "fails": int(failures[name])}
            for name, run in runs.items()]
    return _table(
        pd.DataFrame(rows),
        {"policy": "Schedule", **dict(objects), "fails": "Probes failed"},
        labels={"policy": SCHEDULE_LABELS, **{oid: FORM_LABELS for oid in objects}},
    )
