"""Tables for the progressive-fidelity chapters: human column names, formatted numbers, no index.

A chapter shows a result table by calling :func:`table` with the columns it
wants and their human names; the returned :class:`TableView` renders as HTML
in the book and as aligned plain text elsewhere, both deterministic (no
memory addresses, no random element ids), so nbval can compare them. The
display names of schedules, conditions and forms live here too, so every
table and figure says the same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError

from .params import default

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Display names of the schedules of Experiment B.
POLICY_LABELS: dict[str, str] = {
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
LABELS: dict[str, str] = {**FORM_LABELS, **CONDITION_LABELS, **POLICY_LABELS}


def label(key: str) -> str:
    """The display name of a schedule, condition or form (the key itself if it has none)."""
    return LABELS.get(key, key)


@dataclass(frozen=True)
class TableView:
    """A formatted table: ``frame`` holds strings under human column names; it displays without an index."""

    frame: pd.DataFrame

    def _repr_html_(self) -> str:
        return self.frame.to_html(index=False, border=0, classes="dataframe fidelity-table", escape=True)

    def __repr__(self) -> str:
        return self.frame.to_string(index=False)


def _fmt(value: object, spec: str | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value != value:  # NaN
        return ""
    if spec is None:
        if isinstance(value, float):
            return f"{value:,.2f}"
        if isinstance(value, int):
            return f"{value:,}"
        return str(value)
    return format(value, spec)


def table(
    df: pd.DataFrame,
    columns: Mapping[str, str],
    formats: Mapping[str, str] | None = None,
    labels: Mapping[str, Mapping[str, str]] | None = None,
) -> TableView:
    """Select, rename and format columns of ``df`` for display.

    Parameters
    ----------
    df:
        The result table.
    columns:
        ``{column: human name}``, in display order; only these are shown.
    formats:
        ``{column: format spec}`` (e.g. ``",.0f"``, ``".2f"``, ``".0%"``);
        unformatted numbers get thousands separators, floats two decimals,
        booleans "yes"/"no".
    labels:
        ``{column: {value: display name}}`` for columns holding keys (a
        schedule's name, a form's name); ``{column: LABELS}`` uses the
        package's own display names.

    Returns
    -------
    TableView
    """
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ParameterError(f"table has no column(s) {missing}; it has {list(df.columns)}")
    formats = dict(formats or {})
    labels = dict(labels or {})
    bad = (set(formats) | set(labels)) - set(columns)
    if bad:
        raise ParameterError(f"formats or labels name column(s) {sorted(bad)} that are not shown")
    out = {}
    for col, name in columns.items():
        names = labels.get(col)
        out[name] = [names.get(v, v) if names is not None else _fmt(v, formats.get(col)) for v in df[col].tolist()]
    import pandas as pd

    return TableView(pd.DataFrame(out))


def condition_table(a: pd.DataFrame, metric: str, conditions: tuple[str, ...] | None = None) -> TableView:
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
    TableView
    """
    for c in ("budget_fraction", "condition", metric):
        if c not in a.columns:
            raise ParameterError(f"Experiment A table has no column {c!r}")
    conds = tuple(dict.fromkeys(a["condition"])) if conditions is None else tuple(conditions)
    piv = a.pivot_table(index="budget_fraction", columns="condition", values=metric, aggfunc="sum").reindex(columns=list(conds))
    piv = piv.reset_index()
    cols = {"budget_fraction": "Budget (share of full text)", **{c: CONDITION_LABELS.get(c, c) for c in conds}}
    fmts = {"budget_fraction": ".2f", **{c: ",.0f" for c in conds}}
    return table(piv, cols, fmts)


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


def schedule_table() -> TableView:
    """The schedules of Experiment B: name, what each reads, which forms it chooses among."""
    import pandas as pd

    df = pd.DataFrame(
        [{"policy": k, "reads": r, "forms": f} for k, (r, f) in SCHEDULE_NOTES.items()]
    )
    return table(df, {"policy": "Schedule", "reads": "Decides from", "forms": "Chooses among"}, labels={"policy": POLICY_LABELS})


# --- the chapters' tables, one function each -----------------------------------------------------------


def _range(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo} to {hi}"


def migration_table(mig: pd.DataFrame) -> TableView:
    """The migration episode's forms: size, cost, checks, and what the checker caught (rows of ``representation_table``)."""
    return table(
        mig,
        {"form": "Form", "tokens": "Tokens", "generation_tokens": "Generation tokens", "checks_passed": "Checks passed",
         "overclaimed": "Claimed, not found", "unsupported_additions": "Invented values", "contradictions": "Contradictions"},
        labels={"form": FORM_LABELS},
    )


def form_table(reps: pd.DataFrame) -> TableView:
    """Mean per form over objects: tokens, generation tokens under both ledgers, checks, required checks met, undominated share."""
    d = reps.assign(required_share=reps["required_met"] / reps["required_total"].clip(lower=1))
    per = d.groupby("form", sort=False)[
        ["tokens", "generation_tokens", "first_edition_generation_tokens", "checks_passed", "required_share", "earns_place"]
    ].mean()
    per = per.reindex([f for f in FORM_LABELS if f in per.index]).reset_index()
    return table(
        per,
        {"form": "Form", "tokens": "Tokens", "generation_tokens": "Generation tokens",
         "first_edition_generation_tokens": "First edition charged", "checks_passed": "Checks passed",
         "required_share": "Required checks met", "earns_place": "Undominated for"},
        {"tokens": ".0f", "generation_tokens": ".0f", "first_edition_generation_tokens": ".0f", "checks_passed": ".1f",
         "required_share": ".0%", "earns_place": ".0%"},
        {"form": FORM_LABELS},
    )


def comparison_table(a: pd.DataFrame, first: str, second: str) -> TableView:
    """Experiment A per budget: the range over seeds of ``first`` minus ``second`` (see :func:`~cvlib.fidelity.findings.compare_conditions`)."""
    import pandas as pd

    from .findings import compare_conditions

    cmp = compare_conditions(a, first, second)
    d = pd.DataFrame(
        {
            "budget_fraction": cmp["budget_fraction"],
            "legal": [_range(a, b) for a, b in zip(cmp["legal_min"], cmp["legal_max"])],
            "checks": [_range(a, b) for a, b in zip(cmp["checks_min"], cmp["checks_max"])],
            "seeds": cmp["seeds_first_more_legal"],
        }
    )
    return table(
        d,
        {"budget_fraction": "Budget", "legal": "Objects kept legal", "checks": "Checks passed",
         "seeds": f"Seeds where {label(first).lower()} keep more legal"},
        {"budget_fraction": ".2f"},
    )


def cost_by_condition(a: pd.DataFrame) -> TableView:
    """Experiment A: mean generation and stored tokens per fixture, per condition."""
    cost = a.groupby("condition", sort=False)[["generation_tokens", "storage_tokens"]].mean().reset_index()
    return table(cost, {"condition": "Condition", "generation_tokens": "Generation tokens", "storage_tokens": "Stored tokens"},
                 {"generation_tokens": ",.0f", "storage_tokens": ",.0f"}, {"condition": CONDITION_LABELS})


def findings_table(found: pd.DataFrame, surv: pd.DataFrame) -> TableView:
    """Findings with their basis, verdict at the defaults, survival under the variations, and what was measured."""
    d = found.merge(surv[["key", "holds_under", "variations", "flips_under"]], on="key")
    d = d.assign(survives=[f"{k} of {n}" for k, n in zip(d["holds_under"], d["variations"])])
    return table(
        d,
        {"finding": "Finding", "basis": "Basis", "holds": "At defaults", "survives": "Holds under",
         "measure": "Measured", "flips_under": "Comes out the other way under"},
    )


def policy_summary(b: pd.DataFrame) -> TableView:
    """Experiment B per schedule, means per trajectory: declared, undeclared and infeasible-turn failures, legality, feasibility, regret."""
    s = b.groupby("policy", sort=False)[
        ["failures_declared", "failures_undeclared", "failures_on_infeasible", "probe_failures", "legality_violations",
         "infeasible_turns", "regret"]
    ].mean().reset_index()
    return table(
        s,
        {"policy": "Schedule", "failures_declared": "Declared failed", "failures_undeclared": "Undeclared failed",
         "failures_on_infeasible": "Failed on infeasible turns", "probe_failures": "All failed",
         "legality_violations": "Legality violations", "infeasible_turns": "Infeasible turns", "regret": "Regret vs oracle"},
        {"legality_violations": ".1f", "infeasible_turns": ".1f"},
        {"policy": POLICY_LABELS},
    )


def failure_table(b: pd.DataFrame) -> TableView:
    """Experiment B per schedule, totals over the sweep: failures by class (classes overlap) and on infeasible turns."""
    c = b.groupby("policy", sort=False)[
        ["probe_failures", "failures_representation", "failures_legality", "failures_selection", "failures_timing",
         "failures_on_infeasible"]
    ].sum().reset_index()
    return table(
        c,
        {"policy": "Schedule", "probe_failures": "Failed", "failures_representation": "Representation",
         "failures_legality": "Legality", "failures_selection": "Selection", "failures_timing": "Timing",
         "failures_on_infeasible": "On infeasible turns"},
        labels={"policy": POLICY_LABELS},
    )


def cost_table(b: pd.DataFrame) -> TableView:
    """Experiment B per schedule, means per trajectory: resident tokens, what they save against full text, management by line, storage.

    Headers are short so the table fits the book's column: *Saved* is full
    text minus resident tokens, *Managing* is generating + validating +
    switching (+ regeneration, zero here), *Storage* is in token-turns.
    """
    c = b.groupby("policy", sort=False)[
        ["resident_tokens", "full_text_tokens", "management_tokens", "generation_tokens", "validation_tokens",
         "switching_tokens", "storage_token_turns"]
    ].mean().reset_index()
    c = c.assign(saved=c["full_text_tokens"] - c["resident_tokens"])
    cols = ["resident_tokens", "saved", "management_tokens", "generation_tokens", "validation_tokens", "switching_tokens", "storage_token_turns"]
    return table(
        c,
        {"policy": "Schedule", "resident_tokens": "Resident", "saved": "Saved", "management_tokens": "Managing",
         "generation_tokens": "Generating", "validation_tokens": "Validating", "switching_tokens": "Switching",
         "storage_token_turns": "Storage"},
        {c2: ",.0f" for c2 in cols},
        {"policy": POLICY_LABELS},
    )


def importance_table(b: pd.DataFrame, coupled: pd.DataFrame, policies: tuple[str, ...] = ("magic_context_decay", "book_decay")) -> TableView:
    """The importance-reading schedules with importance drawn independently and coupled to obligations: means per trajectory."""
    import pandas as pd

    pair = pd.concat([b.assign(importance="independent"), coupled.assign(importance="coupled")])
    pair = pair[pair["policy"].isin(policies)]
    pair = pair.groupby(["policy", "importance"], sort=False)[["probe_failures", "legality_violations", "infeasible_turns"]].mean().reset_index()
    return table(
        pair,
        {"policy": "Schedule", "importance": "Importance", "probe_failures": "Probes failed",
         "legality_violations": "Legality violations", "infeasible_turns": "Infeasible turns"},
        {"legality_violations": ".1f", "infeasible_turns": ".1f"},
        {"policy": POLICY_LABELS},
    )


def port_table(variants: pd.DataFrame) -> TableView:
    """:func:`~cvlib.fidelity.sensitivity.port_variants` for display."""
    return table(
        variants,
        {"variant": "Schedule", "probe_failures": "Probes failed", "failures_declared": "Declared failed",
         "failures_undeclared": "Undeclared failed", "legality_violations": "Legality violations",
         "infeasible_turns": "Infeasible turns", "switching_tokens": "Switching tokens"},
        {"legality_violations": ".1f", "infeasible_turns": ".1f", "switching_tokens": ",.0f"},
    )


def outcomes_table(outcomes: pd.DataFrame) -> TableView:
    """:func:`~cvlib.fidelity.findings.outcomes_that_count` for display."""
    return table(outcomes, {"outcome": "Outcome", "result": "Our runs", "basis": "Basis", "measure": "Measured"})


def choices() -> TableView:
    """Every named choice of :mod:`cvlib.fidelity.params`, for display."""
    from .params import choices_table

    return table(choices_table(), {"name": "Name", "default": "Default", "owner": "Chosen by", "meaning": "What it sets",
                                   "alternatives": "Alternatives tried"})


def probe_table(runs: Mapping, probes: Mapping[str, tuple[int, str]]) -> TableView:
    """Per schedule, "passes" or "fails" for each named probe: ``probes`` maps a column title to (turn, object id)."""
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
    return table(pd.DataFrame(rows), {"policy": "Schedule", **{t: t for t in probes}}, labels={"policy": POLICY_LABELS})


def residency_table(runs: Mapping, turn: int, objects: Mapping[str, str], failures: Mapping[str, int]) -> TableView:
    """Per schedule, the form each named object shows at ``turn`` and the schedule's probe failures.

    ``objects`` maps an object id to its column title; ``failures`` maps a schedule to its failures.
    """
    import pandas as pd

    rows = [{"policy": name, **{oid: dict(run.turns[turn].applied)[oid] for oid in objects}, "fails": int(failures[name])}
            for name, run in runs.items()]
    return table(
        pd.DataFrame(rows),
        {"policy": "Schedule", **dict(objects), "fails": "Probes failed"},
        labels={"policy": POLICY_LABELS, **{oid: FORM_LABELS for oid in objects}},
    )
