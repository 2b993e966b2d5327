"""The chapter "Progressive fidelity, Experiment B": the numbers its prose names, and its defaults.

The schedules, the sweeps, the findings and the traced runs live in
:mod:`cvlib.fidelity` and return plain tables and runs; this module reads
from them every value the chapter's text glues (keys ``F_B_...``) and holds
the chapter's own choices of what to show (which probes, which quadrants, at
which turn), so the notebook holds no wrangling of its own.
:func:`glue_values` writes the values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError
from cvlib.fidelity.numbers import probe_outcome
from cvlib.presentation.fidelity_glue import glue_values, params_values, verdicts

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.fidelity.records import Trajectory
    from cvlib.fidelity.runner import ScheduleRun

__all__ = [
    "MIGRATION_PROBES",
    "OUTCOME_KEYS",
    "QUADRANTS",
    "QUADRANT_TURN",
    "chapter_values",
    "glue_values",
    "migration_probe_values",
    "outcome_values",
    "quadrant_values",
    "sweep_values",
    "trace_values",
]

#: The migration's probes the chapter tabulates, each column title with its (turn, object).
MIGRATION_PROBES: dict[str, tuple[int, str]] = {
    "Turn 9 (declared)": (9, "migration"),
    "Turn 10 (undeclared)": (10, "migration"),
}

#: The four-quadrants fixture's objects, by id, with the names the chapter gives them.
QUADRANTS: dict[str, str] = {
    "old_needed": "Old, needed",
    "old_not_needed": "Old, not needed",
    "recent_needed": "Recent, needed",
    "recent_complete": "Recent, complete",
}

#: The turn whose residency the four-quadrants table shows.
QUADRANT_TURN = 12


def sweep_values(b: pd.DataFrame, coupled: pd.DataFrame) -> dict[str, object]:
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
        "probe_failures",
        "failures_declared",
        "failures_undeclared",
        "failures_on_infeasible",
        "legality_violations",
        "infeasible_turns",
        "regret",
        "management_tokens",
        "resident_tokens",
        "full_text_tokens",
        "probes_declared",
        "probes_undeclared",
        "reproducible",
        "failures_timing",
        "failures_representation",
        "failures_selection",
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
    out["F_B_OA_SHARE_ON_INFEASIBLE"] = float(
        tot.loc["obligation_aware", "failures_on_infeasible"] / max(1, tot.loc["obligation_aware", "probe_failures"])
    )
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


def trace_values(traj: Trajectory, folds: Mapping[str, Sequence[int]], reasons: Mapping[str, int]) -> dict[str, object]:
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


def migration_probe_values(
    runs: Mapping[str, ScheduleRun], declared: int = 9, undeclared: int = 10
) -> dict[str, object]:
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


def quadrant_values(df: pd.DataFrame, runs: Mapping[str, ScheduleRun], turn: int = QUADRANT_TURN) -> dict[str, object]:
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


def outcome_values(outcomes: pd.DataFrame) -> dict[str, object]:
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


def chapter_values(
    sweep: pd.DataFrame, coupled: pd.DataFrame, found: pd.DataFrame, surv: pd.DataFrame, outcomes: pd.DataFrame
) -> dict[str, object]:
    """Every number Experiment B's closing sections name: the sweep's, its verdicts, the book's choices, the outcomes.

    Parameters
    ----------
    sweep, coupled:
        :func:`~cvlib.fidelity.experiments.sweep_b` at the defaults and with coupled importance.
    found, surv:
        :func:`~cvlib.fidelity.findings.findings_b` and its :func:`~cvlib.fidelity.sensitivity.survival`.
    outcomes:
        :func:`~cvlib.fidelity.findings.outcomes_that_count`.

    Returns
    -------
    dict
        Glue name to value (not yet glued: pass it to :func:`glue_values`).
    """
    values = sweep_values(sweep, coupled)
    values.update(verdicts("F_B_", found, surv))
    values.update(params_values())
    values.update(outcome_values(outcomes))
    return values
