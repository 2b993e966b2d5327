"""The chapter "Progressive fidelity, Experiment A": the numbers its prose names, and its defaults.

The experiment itself (:func:`cvlib.fidelity.sweep_a`, the representation
sweep, the findings) lives in :mod:`cvlib.fidelity` and returns plain tables;
this module reads from them every value the chapter's text glues (keys
``F_A_...``), so each number in the prose is computed and tested, and the
notebook holds no wrangling of its own. :func:`glue_values` writes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError
from cvlib.presentation.fidelity_glue import glue_values, params_values, verdicts
from cvlib.presentation.fidelity_tables import label

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.fidelity.render import Representation

__all__ = ["SHOWN_FORMS", "chapter_values", "experiment_values", "glue_values", "migration_values", "print_forms"]

#: The migration's forms the chapter prints in full, in order.
SHOWN_FORMS: tuple[str, ...] = ("record", "compact", "summary")


def print_forms(forms: Mapping[str, Representation], names: Sequence[str] = SHOWN_FORMS) -> None:
    """Print some of an object's forms in full, each under its display name and size, so a reader sees what a form keeps.

    Parameters
    ----------
    forms
        Form name to form, as :func:`cvlib.fidelity.object_forms` returns them.
    names
        The forms to print, in order.

    Returns
    -------
    None
        The forms go to standard output, where the notebook shows them; a
        line longer than the text column is continued on the next, indented
        by four spaces (the count of tokens is the form's own).

    Raises
    ------
    ParameterError
        A name is not one of ``forms``.
    """
    missing = [name for name in names if name not in forms]
    if missing:
        raise ParameterError(f"no form(s) {missing} among the object's forms; expected some of {sorted(forms)}")
    import textwrap

    from cvlib.presentation.rerun import COLUMN_CHARS

    for name in names:
        print(f"--- {label(name)} ({forms[name].tokens} tokens)")
        # a line longer than the text column continues on the next, indented (the page never wraps printed text)
        for line in forms[name].text.splitlines():
            print(textwrap.fill(line, COLUMN_CHARS, subsequent_indent="    ", break_on_hyphens=False,
                                drop_whitespace=False) if len(line) > COLUMN_CHARS else line)
        print()


def _pivot(a: pd.DataFrame, metric: str) -> pd.DataFrame:
    return a.pivot_table(index=["seed", "budget_fraction"], columns="condition", values=metric)


def _budgets(cells: pd.Series) -> list[float]:
    return sorted({float(b) for (_, b), v in cells.items() if v})


def _words(budgets: list[float]) -> str:
    return ", ".join(f"{b:.2f}" for b in budgets) if budgets else "none"


def experiment_values(
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
    _check_columns(a, reps, dominance, nominal)
    out = _cell_values(a)
    per_form = reps.groupby("form")
    gen = a.groupby("condition")["generation_tokens"].mean()
    dr = nominal[(nominal["higher"] == "dense") & (nominal["lower"] == "record")]
    out |= {
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
    earn = reps[reps["earns_place_among_source_forms"].notna()].groupby("form")["earns_place_among_source_forms"].mean()
    for form in ("dense", "record", "anchor", "compact", "summary"):
        out[f"F_A_{form.upper()}_EARNS"] = float(earn.get(form, float("nan")))
    earn_all = reps.groupby("form")["earns_place"].mean()
    for form in ("record", "record_cascaded"):
        out[f"F_A_{form.upper()}_EARNS_ALL"] = float(earn_all.get(form, float("nan")))
    return out


#: The columns each of Experiment A's tables must have, by the name an error gives the table.
_COLUMNS: dict[str, tuple[str, ...]] = {
    "Experiment A table": (
        "seed",
        "budget_fraction",
        "condition",
        "legal_objects",
        "checks_passed",
        "feasible",
        "generation_tokens",
        "objects",
    ),
    "representation table": (
        "form",
        "generation_tokens",
        "own_call_generation_tokens",
        "earns_place",
        "earns_place_among_source_forms",
    ),
    "dominance table": ("dominates_own_call", "dominates_lineage"),
    "nominal-order table": ("higher", "lower", "dominates", "incomparable"),
}


def _check_columns(a: pd.DataFrame, reps: pd.DataFrame, dominance: pd.DataFrame, nominal: pd.DataFrame) -> None:
    for (name, cols), df in zip(_COLUMNS.items(), (a, reps, dominance, nominal)):
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise ParameterError(f"{name} lacks column(s) {missing}")


def _cell_values(a: pd.DataFrame) -> dict[str, object]:
    """What the seed-and-budget cells show: where one condition keeps more objects legal, or passes more checks, than another."""
    legal, checks = _pivot(a, "legal_objects"), _pivot(a, "checks_passed")
    feas = _pivot(a, "feasible").astype(bool)
    tier_more = legal["tiered_from_source"] - legal["flat"]
    flat_more_checks = checks["flat"] - checks["tiered_from_source"]
    three_short = legal["tiered_from_source"] - legal["three_forms"]
    three_short_checks = checks["tiered_from_source"] - checks["three_forms"]
    cas = legal["tiered_cascaded"] - legal["tiered_from_source"]
    every_seed = ((flat_more_checks > 0) & feas["tiered_from_source"]).groupby(level="budget_fraction").all()
    return {
        "F_A_SEEDS": len(sorted(set(a["seed"]))),
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
        "F_A_FLAT_CHECK_EVERY_SEED_BUDGETS": _words(sorted(float(b) for b, v in every_seed.items() if v)),
        "F_A_FLAT_ONLY_CELLS": int((feas["flat"] & ~feas["tiered_from_source"]).sum()),
        "F_A_FLAT_ONLY_BUDGETS": _words(_budgets(feas["flat"] & ~feas["tiered_from_source"])),
        "F_A_THREE_SHORT_LEGAL": int(three_short.max()),
        "F_A_THREE_SHORT_CHECKS": int(three_short_checks.max()),
        "F_A_THREE_EQUAL_CELLS": int((three_short == 0).sum()),
        "F_A_THREE_SHORT_BUDGETS": _words(_budgets(three_short > 0)),
        "F_A_CASCADE_MORE_CELLS": int((cas > 0).sum()),
        "F_A_CASCADE_FEWER_CELLS": int((cas < 0).sum()),
        "F_A_CASCADE_MORE_BUDGETS": _words(_budgets(cas > 0)),
    }


def migration_values(mig: pd.DataFrame, object_id: str = "migration") -> dict[str, object]:
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


def chapter_values(
    a: pd.DataFrame,
    reps: pd.DataFrame,
    dominance: pd.DataFrame,
    nominal: pd.DataFrame,
    found: pd.DataFrame,
    surv: pd.DataFrame,
    sensitivity_seeds: Sequence[int],
) -> dict[str, object]:
    """Every number Experiment A's prose names: the experiment's, its verdicts, the sensitivity sweep's size, the book's choices.

    Parameters
    ----------
    a, reps, dominance, nominal:
        :func:`~cvlib.fidelity.experiments.sweep_a` rows and
        :func:`~cvlib.fidelity.experiments.representation_sweep`'s three tables.
    found, surv:
        :func:`~cvlib.fidelity.findings.findings_a` and its
        :func:`~cvlib.fidelity.sensitivity.survival`.
    sensitivity_seeds:
        The seeds of the sensitivity sweep.

    Returns
    -------
    dict
        Glue name to value (not yet glued: pass it to :func:`glue_values`).
    """
    values = experiment_values(a, reps, dominance, nominal)
    values.update(verdicts("F_A_", found, surv))
    values["F_A_SENS_SEEDS"] = len(sensitivity_seeds)
    values.update(params_values())
    return values
