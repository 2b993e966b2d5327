"""The numbers the two chapters glue into their prose, computed in one place.

Every number in a chapter's text comes from one of these functions, so it is
computed (never typed) and tested like the rest of the library. Keys are the
glue names the notebooks use (``F_A_...`` for Experiment A, ``F_B_...`` for
Experiment B); values are plain Python ints, floats or short strings
(schedule and form names as their keys). How each is written in prose is
:mod:`cvlib.presentation.fidelity_glue`'s business.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .records import Trajectory
    from .runner import ScheduleRun


def _pivot(a: pd.DataFrame, metric: str) -> pd.DataFrame:
    return a.pivot_table(index=["seed", "budget_fraction"], columns="condition", values=metric)


def _budgets(cells: pd.Series) -> list[float]:
    return sorted({float(b) for (_, b), v in cells.items() if v})


def _words(budgets: list[float]) -> str:
    return ", ".join(f"{b:.2f}" for b in budgets) if budgets else "none"


def verdicts(prefix: str, findings: pd.DataFrame, survival: pd.DataFrame | None = None) -> dict[str, object]:
    """Glue values for a findings table: ``{prefix}HOLDS_{KEY}`` ("holds"/"does not hold") and, with a survival table, ``{prefix}SURVIVES_{KEY}``."""
    out: dict[str, object] = {}
    for key, holds in zip(findings["key"], findings["holds"]):
        out[f"{prefix}HOLDS_{key.upper()}"] = "holds" if holds else "does not hold"
    if survival is not None:
        for key, k, n, flips in zip(survival["key"], survival["holds_under"], survival["variations"], survival["flips_under"]):
            out[f"{prefix}SURVIVES_{key.upper()}"] = f"{int(k)} of {int(n)}"
            out[f"{prefix}FLIPS_{key.upper()}"] = flips or "no variation"
        robust = survival[survival["flips_under"] == ""]
        out[f"{prefix}ROBUST"] = int(len(robust))
        out[f"{prefix}FINDINGS"] = int(len(survival))
        out[f"{prefix}VARIATIONS"] = int(survival["variations"].max()) if len(survival) else 0
    return out


def numbers_a(
    a: pd.DataFrame,
    reps: pd.DataFrame,
    dominance: pd.DataFrame,
    nominal: pd.DataFrame,
) -> dict[str, object]:
    """Experiment A's glued numbers.

    Parameters
    ----------
    a:
        :func:`~cvlib.fidelity.experiments.sweep_a`.
    reps:
        :func:`~cvlib.fidelity.experiments.representation_table` rows over the same seeds.
    dominance:
        :func:`~cvlib.fidelity.experiments.cascade_dominance` rows over the same seeds.
    nominal:
        :func:`~cvlib.fidelity.experiments.nominal_order_failures` rows over the same seeds.

    Returns
    -------
    dict
        Glue name to value.
    """
    for name, df, cols in (
        ("Experiment A table", a, ["seed", "budget_fraction", "condition", "legal_objects", "checks_passed", "feasible", "generation_tokens", "objects"]),
        ("representation table", reps, ["form", "generation_tokens", "own_call_generation_tokens", "earns_place", "earns_place_among_source_forms"]),
        ("dominance table", dominance, ["dominates_own_call", "dominates_lineage"]),
        ("nominal-order table", nominal, ["higher", "lower", "dominates", "incomparable"]),
    ):
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise ParameterError(f"{name} lacks column(s) {missing}")
    legal, checks = _pivot(a, "legal_objects"), _pivot(a, "checks_passed")
    feas = _pivot(a, "feasible").astype(bool)
    tier_more = legal["tiered_from_source"] - legal["flat"]
    flat_more_checks = checks["flat"] - checks["tiered_from_source"]
    three_short = legal["tiered_from_source"] - legal["three_forms"]
    three_short_checks = checks["tiered_from_source"] - checks["three_forms"]
    cas = legal["tiered_cascaded"] - legal["tiered_from_source"]
    gen = a.groupby("condition")["generation_tokens"].mean()
    per_form = reps.groupby("form")
    earn = reps[reps["earns_place_among_source_forms"].notna()].groupby("form")["earns_place_among_source_forms"].mean()
    dr = nominal[(nominal["higher"] == "dense") & (nominal["lower"] == "record")]
    seeds = sorted(set(a["seed"]))
    out: dict[str, object] = {
        "F_A_SEEDS": len(seeds),
        "F_A_N_OBJECTS": int(a["objects"].iloc[0]),
        "F_A_CELLS": int(len(legal)),
        "F_A_BUDGETS": int(a["budget_fraction"].nunique()),
        "F_A_TIER_LEGAL_CELLS": int((tier_more > 0).sum()),
        "F_A_TIER_LEGAL_MAX": int(tier_more.max()),
        "F_A_TIER_LEGAL_BUDGETS": _words(_budgets(tier_more > 0)),
        "F_A_FLAT_LEGAL_CELLS": int((tier_more < 0).sum()),
        "F_A_FLAT_CHECK_CELLS": int((flat_more_checks > 0).sum()),
        "F_A_FLAT_CHECK_MAX": int(flat_more_checks.max()),
        "F_A_FLAT_CHECK_BUDGETS": _words(_budgets(flat_more_checks > 0)),
        "F_A_FLAT_CHECK_EVERY_SEED_BUDGETS": _words(
            sorted(
                float(b)
                for b, v in ((flat_more_checks > 0) & feas["tiered_from_source"]).groupby(level="budget_fraction").all().items()
                if v
            )
        ),
        "F_A_FLAT_ONLY_CELLS": int((feas["flat"] & ~feas["tiered_from_source"]).sum()),
        "F_A_FLAT_ONLY_BUDGETS": _words(_budgets(feas["flat"] & ~feas["tiered_from_source"])),
        "F_A_THREE_SHORT_LEGAL": int(three_short.max()),
        "F_A_THREE_SHORT_CHECKS": int(three_short_checks.max()),
        "F_A_THREE_EQUAL_CELLS": int((three_short == 0).sum()),
        "F_A_THREE_SHORT_BUDGETS": _words(_budgets(three_short > 0)),
        "F_A_CASCADE_MORE_CELLS": int((cas > 0).sum()),
        "F_A_CASCADE_FEWER_CELLS": int((cas < 0).sum()),
        "F_A_CASCADE_MORE_BUDGETS": _words(_budgets(cas > 0)),
        "F_A_DOM_OWN_CALL": float(dominance["dominates_own_call"].mean()),
        "F_A_DOM_LINEAGE": float(dominance["dominates_lineage"].mean()),
        "F_A_GEN_CASCADED_RECORD": float(per_form["generation_tokens"].mean()["record_cascaded"]),
        "F_A_GEN_CASCADED_RECORD_OWN_CALL": float(per_form["own_call_generation_tokens"].mean()["record_cascaded"]),
        "F_A_GEN_SOURCE_RECORD": float(per_form["generation_tokens"].mean()["record"]),
        "F_A_GEN_SET_FLAT": float(gen["flat"]),
        "F_A_GEN_SET_THREE": float(gen["three_forms"]),
        "F_A_GEN_SET_TIERED": float(gen["tiered_from_source"]),
        "F_A_GEN_SET_CASCADED": float(gen["tiered_cascaded"]),
        "F_A_NOMINAL_PAIRS": int(len(nominal)),
        "F_A_NOMINAL_FAILS": int((~nominal["dominates"].astype(bool)).sum()),
        "F_A_DENSE_RECORD_INCOMPARABLE": float(dr["incomparable"].mean()) if len(dr) else float("nan"),
    }
    for form in ("dense", "record", "anchor", "compact", "summary"):
        out[f"F_A_{form.upper()}_EARNS"] = float(earn.get(form, float("nan")))
    earn_all = reps.groupby("form")["earns_place"].mean()
    for form in ("record", "record_cascaded"):
        out[f"F_A_{form.upper()}_EARNS_ALL"] = float(earn_all.get(form, float("nan")))
    return out


def numbers_params() -> dict[str, object]:
    """The book's choices that the chapters' prose names, as glue values (``F_P_...``)."""
    from .params import default

    grid = default("compaction_grid")
    ages = default("age_thresholds")
    return {
        "F_P_COMPACT_RATIO": float(default("compact_ratio")),  # type: ignore[arg-type]
        "F_P_GRID_N": len(grid),  # type: ignore[arg-type]
        "F_P_GRID_MIN": float(min(grid)),  # type: ignore[type-var]
        "F_P_GRID_MAX": float(max(grid)),  # type: ignore[type-var]
        "F_P_AGE_THRESHOLDS": ", ".join(str(x) for x in ages),  # type: ignore[union-attr]
        "F_P_RELATED_WEIGHT": int(default("related_weight")),  # type: ignore[arg-type]
        "F_P_FOLD_EVERY": int(default("fold_every")),  # type: ignore[arg-type]
        "F_P_DECLARED_FRACTION": float(default("declared_fraction")),  # type: ignore[arg-type]
        "F_P_MC_FORCE": float(default("mc_force")),  # type: ignore[arg-type]
        "F_P_MC_M1_CAP": float(default("mc_m1_cap")),  # type: ignore[arg-type]
    }


def numbers_migration(mig: pd.DataFrame, object_id: str = "migration") -> dict[str, object]:
    """Glue values for the migration episode's forms: each form's tokens and checks passed, and what the summary overclaimed.

    Parameters
    ----------
    mig:
        Rows of :func:`~cvlib.fidelity.experiments.representation_table`; only ``object_id``'s are read.
    object_id:
        The object whose forms are counted.

    Returns
    -------
    dict
        ``F_A_MIG_...`` glue name to value.
    """
    if "object_id" not in mig.columns or "form" not in mig.columns:
        raise ParameterError(f"representation table lacks 'object_id' or 'form'; it has {list(mig.columns)}")
    rows = mig[mig["object_id"] == object_id].set_index("form")
    if rows.empty:
        raise ParameterError(f"representation table has no rows of object {object_id!r}")
    out: dict[str, object] = {"F_A_MIG_CHECKS_TOTAL": int(rows.loc["full", "checks_total"])}
    for form in ("full", "summary", "record", "compact", "dense", "anchor"):
        out[f"F_A_MIG_{form.upper()}_TOKENS"] = int(rows.loc[form, "tokens"])
        out[f"F_A_MIG_{form.upper()}_CHECKS"] = int(rows.loc[form, "checks_passed"])
    out["F_A_MIG_SUMMARY_OVERCLAIMED"] = int(rows.loc["summary", "overclaimed"])
    out["F_A_MIG_SUMMARY_ADDITIONS"] = int(rows.loc["summary", "unsupported_additions"])
    return out


def numbers_b(b: pd.DataFrame, coupled: pd.DataFrame) -> dict[str, object]:
    """Experiment B's glued numbers (means per trajectory over the sweep unless named a total).

    Parameters
    ----------
    b:
        :func:`~cvlib.fidelity.experiments.sweep_b` at the defaults.
    coupled:
        The same sweep with ``importance_mode="coupled"``.

    Returns
    -------
    dict
        Glue name to value.
    """
    cols = [
        "probe_failures", "failures_declared", "failures_undeclared", "failures_on_infeasible", "legality_violations",
        "infeasible_turns", "regret", "management_tokens", "resident_tokens", "full_text_tokens", "probes_declared",
        "probes_undeclared", "reproducible", "failures_timing", "failures_representation", "failures_selection",
    ]
    for name, df in (("Experiment B table", b), ("coupled Experiment B table", coupled)):
        missing = [c for c in cols + ["policy", "budget_fraction"] if c not in df.columns]
        if missing:
            raise ParameterError(f"{name} lacks column(s) {missing}")
    keys = {
        "obligation_aware": "OA",
        "age_only": "AGE",
        "pressure_only": "PRESSURE",
        "full_while_feasible": "FWF",
        "magic_context_decay": "MAGIC",
        "book_decay": "BOOK",
        "oracle": "ORACLE",
    }
    m = b.groupby("policy")[cols[:-4]].mean()
    tot = b.groupby("policy")[cols].sum(numeric_only=True)
    mc = coupled.groupby("policy")[cols[:-4]].mean()
    out: dict[str, object] = {
        "F_B_N_RUNS": int(len(b)),
        "F_B_N_TRAJECTORIES": int(len(b) // max(1, b["policy"].nunique())),
        "F_B_N_TURNS": int(b["turns"].iloc[0]) if "turns" in b.columns else 0,
        "F_B_PROBES_DECLARED": int(tot.loc["oracle", "probes_declared"]),
        "F_B_PROBES_UNDECLARED": int(tot.loc["oracle", "probes_undeclared"]),
        "F_B_ALL_REPRODUCIBLE": "every" if bool(b["reproducible"].dropna().astype(bool).all()) else "not every",
    }
    for pol, k in keys.items():
        if pol not in m.index:
            continue
        out[f"F_B_{k}_FAILS"] = float(m.loc[pol, "probe_failures"])
        out[f"F_B_{k}_DECLARED"] = float(m.loc[pol, "failures_declared"])
        out[f"F_B_{k}_UNDECLARED"] = float(m.loc[pol, "failures_undeclared"])
        out[f"F_B_{k}_ON_INFEASIBLE"] = float(m.loc[pol, "failures_on_infeasible"])
        out[f"F_B_{k}_ILLEGAL"] = float(m.loc[pol, "legality_violations"])
        out[f"F_B_{k}_INFEASIBLE"] = float(m.loc[pol, "infeasible_turns"])
        out[f"F_B_{k}_FAILS_TOTAL"] = int(tot.loc[pol, "probe_failures"])
        out[f"F_B_{k}_UNDECLARED_TOTAL"] = int(tot.loc[pol, "failures_undeclared"])
        out[f"F_B_{k}_ON_INFEASIBLE_TOTAL"] = int(tot.loc[pol, "failures_on_infeasible"])
        if pol in mc.index:
            out[f"F_B_{k}_FAILS_COUPLED"] = float(mc.loc[pol, "probe_failures"])
            out[f"F_B_{k}_ILLEGAL_COUPLED"] = float(mc.loc[pol, "legality_violations"])
            out[f"F_B_{k}_INFEASIBLE_COUPLED"] = float(mc.loc[pol, "infeasible_turns"])
    oa = m.loc["obligation_aware"]
    out["F_B_OA_REGRET"] = float(oa["regret"])
    out["F_B_OA_SHARE_ON_INFEASIBLE"] = float(tot.loc["obligation_aware", "failures_on_infeasible"] / max(1, tot.loc["obligation_aware", "probe_failures"]))
    out["F_B_OA_SAVED"] = float(oa["full_text_tokens"] - oa["resident_tokens"])
    out["F_B_OA_MANAGEMENT"] = float(oa["management_tokens"])
    out["F_B_TIMING_MAGIC"] = int(tot.loc["magic_context_decay", "failures_timing"])
    out["F_B_TIMING_BOOK"] = int(tot.loc["book_decay", "failures_timing"])
    out["F_B_REPR_FWF"] = int(tot.loc["full_while_feasible", "failures_representation"])
    tight = float(b["budget_fraction"].min())
    at_tight = b[b["budget_fraction"] == tight].groupby("policy")["infeasible_turns"].mean()
    out["F_B_TIGHT"] = tight
    out["F_B_TIGHT_OA_INFEASIBLE"] = float(at_tight["obligation_aware"])
    out["F_B_TIGHT_PRESSURE_INFEASIBLE"] = float(at_tight["pressure_only"])
    by_budget = b.groupby(["budget_fraction", "policy"])["probe_failures"].mean().unstack("policy")
    better = by_budget.index[by_budget["obligation_aware"] < by_budget["pressure_only"]]
    out["F_B_OA_BEATS_PRESSURE_AT"] = ", ".join(f"{x:.2f}" for x in better) if len(better) else "no budget"
    return out


def probe_outcome(run: ScheduleRun, turn: int, object_id: str) -> str:
    """"passes" or "fails" for the probe of ``object_id`` at ``turn`` in a run (a clear error if there is none)."""
    for p in run.probes:
        if p.turn == turn and p.object_id == object_id:
            return "passes" if p.passed else "fails"
    raise ParameterError(f"run {run.policy!r} has no probe of {object_id!r} at turn {turn}")


def fold_turns(policy, run: ScheduleRun) -> list[int]:
    """The turns at which a schedule re-tiered: Magic Context's port by its hard folds, the book's variant by its cadence.

    Parameters
    ----------
    policy:
        The :class:`~cvlib.fidelity.schedules.MagicContextDecay` or
        :class:`~cvlib.fidelity.schedules.BookDecay` that made ``run``.
    run:
        Its run (the snapshots it saw are replayed; nothing is re-run).

    Returns
    -------
    list of int
    """
    if hasattr(policy, "fold_reason"):
        return [s.turn for s in run.snapshots if policy.fold_reason(s) is not None]
    if hasattr(policy, "fold_every"):
        return [t.turn for t in run.turns if t.turn % policy.fold_every == 0]
    raise ParameterError(f"schedule {policy.name!r} has no folds: expected Magic Context's port or the book's decay variant")


def fold_reasons(policy, run: ScheduleRun) -> Mapping[str, int]:
    """How often each hard-fold trigger fired in a run of Magic Context's port."""
    if not hasattr(policy, "fold_reason"):
        raise ParameterError(f"schedule {policy.name!r} is not Magic Context's port")
    out: dict[str, int] = {}
    for s in run.snapshots:
        r = policy.fold_reason(s)
        if r is not None:
            out[r] = out.get(r, 0) + 1
    return out


def numbers_trace(traj: Trajectory, folds: Mapping[str, Sequence[int]], reasons: Mapping[str, int]) -> dict[str, object]:
    """Glue values for the traced trajectory of both decay schedules (:func:`~cvlib.fidelity.experiments.decay_trace`).

    Parameters
    ----------
    traj:
        The traced trajectory.
    folds:
        The turns each schedule re-tiered, by schedule name.
    reasons:
        How often each hard-fold trigger fired in the port's run.

    Returns
    -------
    dict
        ``F_B_TRACE_...`` glue name to value.
    """
    for name in ("magic_context_decay", "book_decay"):
        if name not in folds:
            raise ParameterError(f"the decay trace has no folds of {name!r}; it has {sorted(folds)}")
    return {
        "F_B_TRACE_PORT_FOLDS": len(folds["magic_context_decay"]),
        "F_B_TRACE_BOOK_FOLDS": len(folds["book_decay"]),
        "F_B_TRACE_FORCE_FOLDS": int(reasons.get("force materialization", 0)),
        "F_B_TRACE_DELTA_FOLDS": int(reasons.get("new compartments over the delta cap", 0)),
        "F_B_TRACE_TURNS": traj.n_turns,
    }


def numbers_migration_probes(runs: Mapping[str, ScheduleRun], declared: int = 9, undeclared: int = 10) -> dict[str, object]:
    """Glue values for Experiment B's migration episode: each schedule's declared and undeclared probe of the migration.

    Parameters
    ----------
    runs:
        :func:`~cvlib.fidelity.experiments.run_experiment_b` runs of the migration fixture, by schedule.
    declared, undeclared:
        The turns of the declared and the undeclared probe.

    Returns
    -------
    dict
        ``F_B_MIG_...`` glue name to value; ``F_B_MIG_FWF_FORM`` is the form
        key the flat compactor showed at the declared probe.
    """
    fwf = runs["full_while_feasible"]
    shown = [p.form for p in fwf.probes if p.turn == declared]
    if not shown:
        raise ParameterError(f"run {fwf.policy!r} has no probe at turn {declared}")
    return {
        "F_B_MIG_FWF_T9": probe_outcome(fwf, declared, "migration"),
        "F_B_MIG_FWF_FORM": shown[0],
        "F_B_MIG_OA_T9": probe_outcome(runs["obligation_aware"], declared, "migration"),
        "F_B_MIG_OA_T10": probe_outcome(runs["obligation_aware"], undeclared, "migration"),
        "F_B_MIG_ORACLE_T10": probe_outcome(runs["oracle"], undeclared, "migration"),
        "F_B_MIG_MAGIC_T9": probe_outcome(runs["magic_context_decay"], declared, "migration"),
    }


def numbers_quadrants(df: pd.DataFrame, runs: Mapping[str, ScheduleRun], turn: int = 12) -> dict[str, object]:
    """Glue values for the four-quadrants episode: failures of age-only and obligation-aware, and age-only's state at ``turn``.

    Parameters
    ----------
    df:
        :func:`~cvlib.fidelity.experiments.run_experiment_b` rows of the four-quadrants fixture.
    runs:
        Its runs, by schedule.
    turn:
        The turn whose residency the chapter shows.

    Returns
    -------
    dict
        ``F_B_QUAD_...`` glue name to value; the ``_FORM`` values are form keys.
    """
    if "policy" not in df.columns or "probe_failures" not in df.columns:
        raise ParameterError(f"the four-quadrants table lacks 'policy' or 'probe_failures'; it has {list(df.columns)}")
    age = runs["age_only"]
    if not 0 <= turn < len(age.turns):
        raise ParameterError(f"turn {turn} is outside the run's {len(age.turns)} turns")
    failures = df.set_index("policy")["probe_failures"]
    at = age.turns[turn]
    applied = dict(at.applied)
    return {
        "F_B_QUAD_AGE_FAILS": int(failures["age_only"]),
        "F_B_QUAD_OA_FAILS": int(failures["obligation_aware"]),
        "F_B_QUAD_AGE_OLD_FORM": applied["old_needed"],
        "F_B_QUAD_AGE_RECENT_FORM": applied["recent_complete"],
        "F_B_QUAD_AGE_T12_TOKENS": int(at.resident_tokens),
        "F_B_QUAD_T12_BUDGET": int(at.budget),
        "F_B_QUAD_AGE_T12_STATE": "infeasible" if at.infeasible else "feasible",
    }


#: The outcomes of :func:`~cvlib.fidelity.findings.outcomes_that_count`, in order, by glue key.
OUTCOME_KEYS: tuple[str, ...] = ("FLAT", "TWO", "COST", "CONTRA", "AGE", "SURVIVAL")


def numbers_outcomes(outcomes: pd.DataFrame) -> dict[str, object]:
    """Glue values for the outcomes that count: each one's result, and how many were produced, not produced or untestable.

    Parameters
    ----------
    outcomes:
        :func:`~cvlib.fidelity.findings.outcomes_that_count` rows, in its order.

    Returns
    -------
    dict
        ``F_B_OUTCOME_...`` and ``F_B_OUTCOMES_...`` glue name to value.
    """
    if "result" not in outcomes.columns or len(outcomes) != len(OUTCOME_KEYS):
        raise ParameterError(f"expected {len(OUTCOME_KEYS)} outcomes with a 'result' column; got {len(outcomes)} rows")
    results = [str(r) for r in outcomes["result"]]
    out: dict[str, object] = {f"F_B_OUTCOME_{key}": result for key, result in zip(OUTCOME_KEYS, results)}
    out["F_B_OUTCOMES_PRODUCED"] = sum(r.startswith("produced") for r in results)
    out["F_B_OUTCOMES_NOT_PRODUCED"] = sum(r == "not produced" for r in results)
    out["F_B_OUTCOMES_UNTESTABLE"] = sum(r == "not testable here" for r in results)
    return out
