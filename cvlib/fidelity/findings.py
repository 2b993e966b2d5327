"""The chapters' findings, each computed from a run and labelled by what makes it true.

A finding holds *by construction* when the way a schedule or condition is
written guarantees it whatever the data (the obligation-aware schedule admits
no illegal form because it only ever chooses among legal forms); it holds *by
measurement* when it could have come out the other way and the runs say how
it did. The chapters state which, and the sensitivity sweep
(:mod:`cvlib.fidelity.sensitivity`) re-computes every finding under changed
choices.

Each ``findings_*`` function returns one row per finding: ``key``,
``finding`` (a sentence), ``basis`` (``construction`` or ``measurement``),
``holds`` (bool) and ``measure`` (the numbers behind the verdict, in words).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def _row(key: str, finding: str, basis: str, holds: bool, measure: str) -> dict:
    return {"key": key, "finding": finding, "basis": basis, "holds": bool(holds), "measure": measure}


def _need(df: pd.DataFrame, cols: list[str], what: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ParameterError(f"{what} lacks column(s) {missing}; pass the table its function returns")


def _cells(a: pd.DataFrame, metric: str) -> pd.DataFrame:
    return a.pivot_table(index=["seed", "budget_fraction"], columns="condition", values=metric)


def findings_a(a: pd.DataFrame, dominance: pd.DataFrame | None = None) -> pd.DataFrame:
    """Experiment A's findings from :func:`~cvlib.fidelity.experiments.sweep_a` (and optionally cascade dominance).

    Parameters
    ----------
    a:
        Experiment A over one or more seeds.
    dominance:
        :func:`~cvlib.fidelity.experiments.cascade_dominance` rows (any
        number of seeds), for the ledger finding; omitted when None.

    Returns
    -------
    pandas.DataFrame
        One row per finding.
    """
    import pandas as pd

    _need(a, ["seed", "budget_fraction", "condition", "legal_objects", "checks_passed", "feasible"], "Experiment A table")
    legal, checks, feas = _cells(a, "legal_objects"), _cells(a, "checks_passed"), _cells(a, "feasible").astype(bool)
    n = len(legal)
    tier_vs_flat_legal = legal["tiered_from_source"] - legal["flat"]
    flat_vs_tier_checks = checks["flat"] - checks["tiered_from_source"]
    three_short_legal = legal["tiered_from_source"] - legal["three_forms"]
    three_short_checks = checks["tiered_from_source"] - checks["three_forms"]
    cas_more = legal["tiered_cascaded"] - legal["tiered_from_source"]
    cas_budgets = sorted({b for (_, b), d in cas_more.items() if d > 0})
    flat_only = feas["flat"] & ~feas["tiered_from_source"]
    rows = [
        _row(
            "tiered_more_legal",
            "At some budget the four-form tiered set keeps more objects legal than the fair flat compaction",
            "measurement",
            (tier_vs_flat_legal > 0).any(),
            f"more at {int((tier_vs_flat_legal > 0).sum())} of {n} (seed, budget) cells, by up to "
            f"{int(tier_vs_flat_legal.max())} objects; fewer at {int((tier_vs_flat_legal < 0).sum())}",
        ),
        _row(
            "flat_more_checks",
            "At some budget the fair flat compaction passes more checks than the tiered set",
            "measurement",
            (flat_vs_tier_checks > 0).any(),
            f"more at {int((flat_vs_tier_checks > 0).sum())} of {n} cells, by up to {int(flat_vs_tier_checks.max())} checks",
        ),
        _row(
            "flat_fits_smaller",
            "The flat compaction fits budgets where the tiered set cannot fit at all",
            "measurement",
            flat_only.any(),
            f"{int(flat_only.sum())} of {n} cells",
        ),
        _row(
            "three_forms_match",
            "The three forms {full, record, anchor} keep as many objects legal as the four-form set at every budget",
            "measurement",
            (three_short_legal <= 0).all(),
            f"largest shortfall {int(three_short_legal.max())} legal objects and {int(three_short_checks.max())} checks; "
            f"equal legal objects at {int((three_short_legal == 0).sum())} of {n} cells",
        ),
        _row(
            "cascade_more_legal",
            "At some budget the cascaded set keeps more objects legal than the set generated from the source",
            "measurement",
            bool(cas_budgets),
            f"at {int((cas_more > 0).sum())} of {n} cells (budgets {', '.join(f'{b:.2f}' for b in cas_budgets) or 'none'}), "
            f"fewer at {int((cas_more < 0).sum())}",
        ),
    ]
    if dominance is not None:
        _need(dominance, ["dominates_own_call", "dominates_lineage"], "cascade dominance table")
        first, now = float(dominance["dominates_own_call"].mean()), float(dominance["dominates_lineage"].mean())
        rows.append(
            _row(
                "cascade_no_longer_dominates",
                "Under the corrected ledger the cascaded record no longer dominates the source record",
                "measurement",
                now == 0.0,
                f"dominates for {now:.0%} of objects (first-edition ledger: {first:.0%})",
            )
        )
    return pd.DataFrame(rows)


def findings_b(b: pd.DataFrame) -> pd.DataFrame:
    """Experiment B's findings from :func:`~cvlib.fidelity.experiments.sweep_b` (means per trajectory over the sweep).

    Parameters
    ----------
    b:
        Experiment B over seeds and budgets, every schedule included.

    Returns
    -------
    pandas.DataFrame
        One row per finding.
    """
    import pandas as pd

    cols = [
        "policy",
        "probe_failures",
        "failures_declared",
        "failures_declared_feasible",
        "failures_undeclared",
        "failures_on_infeasible",
        "legality_violations",
        "infeasible_turns",
        "management_tokens",
        "resident_tokens",
        "full_text_tokens",
    ]
    _need(b, cols, "Experiment B table")
    m = b.groupby("policy")[cols[1:]].mean()
    tot = b.groupby("policy")[cols[1:]].sum()
    missing = {"obligation_aware", "pressure_only", "age_only", "full_while_feasible", "magic_context_decay", "book_decay"} - set(m.index)
    if missing:
        raise ParameterError(f"Experiment B table lacks schedule(s) {sorted(missing)}")
    oa, po, ao, fw, mc, bd = (m.loc[k] for k in ("obligation_aware", "pressure_only", "age_only", "full_while_feasible", "magic_context_decay", "book_decay"))
    return pd.DataFrame(_obligation_aware_rows(oa, po, tot) + _comparison_rows(oa, ao, fw, mc, bd))


def _obligation_aware_rows(oa: pd.Series, po: pd.Series, tot: pd.DataFrame) -> list[dict]:
    """Experiment B's findings about the obligation-aware schedule itself, against pressure-only."""
    share_infeasible = tot.loc["obligation_aware", "failures_on_infeasible"] / max(1, tot.loc["obligation_aware", "probe_failures"])
    return [
        _row(
            "oa_legal",
            "The obligation-aware schedule never admits an illegal form",
            "construction",
            tot.loc["obligation_aware", "legality_violations"] == 0,
            f"{int(tot.loc['obligation_aware', 'legality_violations'])} violations over the sweep "
            f"(pressure-only {po.legality_violations:.1f} per trajectory)",
        ),
        _row(
            "oa_declared_only_infeasible",
            "The obligation-aware schedule fails a declared probe only on an infeasible turn",
            "construction",
            tot.loc["obligation_aware", "failures_declared_feasible"] == 0,
            f"{int(tot.loc['obligation_aware', 'failures_declared_feasible'])} declared failures on feasible turns over the sweep: "
            "a declared probe is an obligation, and only a turn where no legal set fits can break one",
        ),
        _row(
            "oa_declared",
            "On declared probes the obligation-aware schedule fails fewer than pressure-only",
            "measurement",
            oa.failures_declared < po.failures_declared,
            f"{oa.failures_declared:.2f} vs {po.failures_declared:.2f} per trajectory",
        ),
        _row(
            "oa_undeclared",
            "On undeclared probes the obligation-aware schedule fails fewer than pressure-only",
            "measurement",
            oa.failures_undeclared < po.failures_undeclared,
            f"{oa.failures_undeclared:.2f} vs {po.failures_undeclared:.2f} per trajectory",
        ),
        _row(
            "oa_beats_pressure",
            "Counting every probe, the obligation-aware schedule fails fewer than pressure-only",
            "measurement",
            oa.probe_failures < po.probe_failures,
            f"{oa.probe_failures:.2f} vs {po.probe_failures:.2f} per trajectory",
        ),
        _row(
            "oa_failures_infeasible",
            "Most of the obligation-aware schedule's failures fall on infeasible turns",
            "measurement",
            share_infeasible > 0.5,
            f"{share_infeasible:.0%} of its failures",
        ),
        _row(
            "oa_more_infeasible",
            "The obligation-aware schedule has more infeasible turns than pressure-only",
            "measurement",
            oa.infeasible_turns > po.infeasible_turns,
            f"{oa.infeasible_turns:.1f} vs {po.infeasible_turns:.1f} per trajectory",
        ),
    ]


def _comparison_rows(oa: pd.Series, ao: pd.Series, fw: pd.Series, mc: pd.Series, bd: pd.Series) -> list[dict]:
    """Experiment B's findings comparing the other schedules with the obligation-aware one and Magic Context's port with the book's variant."""
    saved = oa.full_text_tokens - oa.resident_tokens
    return [
        _row(
            "age_worse",
            "Age-only fails more probes than the obligation-aware schedule",
            "measurement",
            ao.probe_failures > oa.probe_failures,
            f"{ao.probe_failures:.2f} vs {oa.probe_failures:.2f} per trajectory",
        ),
        _row(
            "flat_worse",
            "The flat compactor fails more probes than the obligation-aware schedule",
            "measurement",
            fw.probe_failures > oa.probe_failures,
            f"{fw.probe_failures:.2f} vs {oa.probe_failures:.2f} per trajectory",
        ),
        _row(
            "port_vs_variant",
            "Magic Context's port fails fewer probes than the book's variant",
            "measurement",
            mc.probe_failures < bd.probe_failures,
            f"{mc.probe_failures:.2f} vs {bd.probe_failures:.2f} per trajectory; legality violations "
            f"{mc.legality_violations:.1f} vs {bd.legality_violations:.1f}; infeasible turns {mc.infeasible_turns:.1f} vs {bd.infeasible_turns:.1f}",
        ),
        _row(
            "tiers_pay",
            "The obligation-aware schedule saves more resident tokens than it spends managing its forms",
            "measurement",
            saved > oa.management_tokens,
            f"saves {saved:,.0f} resident tokens against full text, spends {oa.management_tokens:,.0f} "
            "(generation, validation, switching) per trajectory",
        ),
    ]


def _count_words(k: int, n: int) -> str:
    if k == n:
        return "produced"
    if k == 0:
        return "not produced"
    return f"produced at {k} of {n} budgets"


def outcomes_that_count(a: pd.DataFrame, reps: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """The chapter's six "outcomes that count", each with the measurement we have and whether our runs produce it.

    Parameters
    ----------
    a:
        :func:`~cvlib.fidelity.experiments.sweep_a` (one or more seeds).
    reps:
        :func:`~cvlib.fidelity.experiments.representation_table` rows (one or more seeds).
    b:
        :func:`~cvlib.fidelity.experiments.sweep_b`.

    Returns
    -------
    pandas.DataFrame
        ``outcome``, ``measure``, ``result`` (words), ``basis``.
    """
    import pandas as pd

    _need(reps, ["form", "earns_place_among_source_forms", "contradictions", "contradicts"], "representation table")
    legal, checks = _cells(a, "legal_objects"), _cells(a, "checks_passed")
    feas = _cells(a, "feasible").astype(bool)
    both = feas["flat"] & feas["tiered_from_source"]
    matches = (legal["flat"] >= legal["tiered_from_source"]) & (checks["flat"] >= checks["tiered_from_source"])
    n_cells, k_match = int(both.sum()), int((matches & both).sum())
    src = reps[reps["form"].isin(["full", "dense", "summary", "record", "anchor", "compact"])]
    earn = src.groupby("form")["earns_place_among_source_forms"].mean()
    n_earn = int((earn > 0.5).sum())
    earners = ", ".join(sorted(earn[earn > 0.5].index))
    three_short = (legal["tiered_from_source"] - legal["three_forms"]).max()
    m = b.groupby("policy")[["probe_failures", "legality_violations", "resident_tokens", "management_tokens", "full_text_tokens"]].mean()
    oa, fw, ao = m.loc["obligation_aware"], m.loc["full_while_feasible"], m.loc["age_only"]
    summ = reps[reps["form"] == "summary"]
    contra_rate = float(summ["contradictions"].gt(0).mean())
    others = sum(
        len([x for x in str(c).split(",") if x and x != "summary"]) for c in reps.loc[reps["form"] != "summary", "contradicts"]
    ) // 2
    rows = [
        {
            "outcome": "Flat compaction matches tiered rendering at equal active budgets",
            "measure": (
                f"the fair flat compaction keeps as many objects legal and passes as many checks as the tiered set at "
                f"{k_match} of {n_cells} (seed, budget) cells where both fit (Experiment A)"
            ),
            "result": _count_words(k_match, n_cells).replace("budgets", "cells"),
            "basis": "measurement",
        },
        {
            "outcome": "Only two representations earn a place",
            "measure": (
                f"{n_earn} of {len(earn)} source forms are undominated operating points for most objects ({earners}); "
                f"the three-form set is at most {int(three_short)} legal objects short of the four-form set"
            ),
            "result": "produced" if n_earn <= 2 else "not produced",
            "basis": "measurement",
        },
        {
            "outcome": "Tiers cost more to create than they save",
            "measure": (
                f"obligation-aware: management {oa.management_tokens:,.0f} tokens vs {oa.full_text_tokens - oa.resident_tokens:,.0f} "
                f"resident tokens saved against full text (flat compactor: {fw.management_tokens:,.0f} vs "
                f"{fw.full_text_tokens - fw.resident_tokens:,.0f}); means per trajectory, one generation token counted as one resident token"
            ),
            "result": "produced" if oa.management_tokens > oa.full_text_tokens - oa.resident_tokens else "not produced",
            "basis": "measurement",
        },
        {
            "outcome": "Cross-representation contradictions are frequent",
            "measure": (
                f"only the lossy prose template contradicts another form ({contra_rate:.0%} of objects), because its status "
                f"swaps were written in; {others} contradicting pairs among all other forms, which are verbatim or templated"
            ),
            "result": "not testable here",
            "basis": "construction",
        },
        {
            "outcome": "Age-only matches the policy-aware schedule",
            "measure": (
                f"mean probe failures: age-only {ao.probe_failures:.2f} vs obligation-aware {oa.probe_failures:.2f}; "
                f"legality violations {ao.legality_violations:.1f} vs {oa.legality_violations:.1f}"
            ),
            "result": "produced"
            if ao.probe_failures <= oa.probe_failures and ao.legality_violations <= oa.legality_violations
            else "not produced",
            "basis": "measurement",
        },
        {
            "outcome": "Survival improves without behavioural benefit",
            "measure": "no model consumes the context: a probe passes exactly when its checks survive",
            "result": "not testable here",
            "basis": "construction",
        },
    ]
    return pd.DataFrame(rows)


def compare_conditions(a: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    """Per budget, how far ``first`` is ahead of ``second`` in Experiment A: the range over seeds of the differences.

    Parameters
    ----------
    a:
        :func:`~cvlib.fidelity.experiments.sweep_a` rows.
    first, second:
        Two conditions.

    Returns
    -------
    pandas.DataFrame
        ``budget_fraction``, ``legal_min``, ``legal_max``, ``checks_min``,
        ``checks_max`` (``first`` minus ``second``; positive: ``first`` ahead)
        and ``seeds_first_more_legal``.
    """
    import pandas as pd

    _need(a, ["seed", "budget_fraction", "condition", "legal_objects", "checks_passed"], "Experiment A table")
    for c in (first, second):
        if c not in set(a["condition"]):
            raise ParameterError(f"condition {c!r} is not in the table; it has {sorted(set(a['condition']))}")
    legal, checks = _cells(a, "legal_objects"), _cells(a, "checks_passed")
    d = pd.DataFrame({"legal": legal[first] - legal[second], "checks": checks[first] - checks[second]}).reset_index()
    g = d.groupby("budget_fraction")
    return pd.DataFrame(
        {
            "legal_min": g["legal"].min(),
            "legal_max": g["legal"].max(),
            "checks_min": g["checks"].min(),
            "checks_max": g["checks"].max(),
            "seeds_first_more_legal": g["legal"].apply(lambda s: int((s > 0).sum())),
        }
    ).reset_index().astype({"legal_min": int, "legal_max": int, "checks_min": int, "checks_max": int})


#: Short column titles for Experiment B's findings (for the sensitivity figure), in display order.
SHORT_B: dict[str, str] = {
    "oa_legal": "never illegal",
    "oa_declared_only_infeasible": "declared: only infeasible",
    "oa_declared": "declared: fewer",
    "oa_undeclared": "undeclared: fewer",
    "oa_beats_pressure": "all probes: fewer",
    "oa_failures_infeasible": "fails mostly infeasible",
    "oa_more_infeasible": "more infeasible",
    "age_worse": "age-only worse",
    "flat_worse": "flat worse",
    "port_vs_variant": "port beats variant",
    "tiers_pay": "tiers pay",
}
