"""The progressive-fidelity chapters' glued numbers, written the book's way.

:mod:`cvlib.fidelity.numbers` computes each value a chapter's prose names;
this module says what kind of quantity each one is (:data:`KINDS`), writes it
with :func:`cvlib.presentation.formatting.glue`, and writes a form's key as
its display name, so a chapter glues all of its numbers in one call and holds
no formatting of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cvlib.fidelity.numbers import numbers_a, numbers_b, numbers_outcomes, numbers_params, verdicts
from cvlib.presentation.fidelity_tables import label
from cvlib.presentation.formatting import glue, glue_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The quantity each non-count glue value is (every other number is a count).
KINDS: dict[str, str] = {
    # Experiment A: shares of objects, written as whole percentages; mean tokens as counts
    "F_A_ANCHOR_EARNS": "percent_whole",
    "F_A_COMPACT_EARNS": "percent_whole",
    "F_A_DENSE_EARNS": "percent_whole",
    "F_A_DENSE_RECORD_INCOMPARABLE": "percent_whole",
    "F_A_DOM_OWN_CALL": "percent_whole",
    "F_A_DOM_LINEAGE": "percent_whole",
    "F_A_RECORD_CASCADED_EARNS_ALL": "percent_whole",
    "F_A_RECORD_EARNS": "percent_whole",
    "F_A_RECORD_EARNS_ALL": "percent_whole",
    "F_A_SUMMARY_EARNS": "percent_whole",
    # Experiment B: means per trajectory, and tenths for the rarer legality counts
    "F_B_AGE_FAILS": "mean",
    "F_B_AGE_ILLEGAL": "tenths",
    "F_B_BOOK_FAILS": "mean",
    "F_B_BOOK_FAILS_COUPLED": "mean",
    "F_B_BOOK_ILLEGAL": "tenths",
    "F_B_BOOK_ILLEGAL_COUPLED": "tenths",
    "F_B_BOOK_INFEASIBLE": "tenths",
    "F_B_FWF_FAILS": "mean",
    "F_B_MAGIC_DECLARED": "mean",
    "F_B_MAGIC_FAILS": "mean",
    "F_B_MAGIC_FAILS_COUPLED": "mean",
    "F_B_MAGIC_ILLEGAL": "tenths",
    "F_B_MAGIC_ILLEGAL_COUPLED": "tenths",
    "F_B_MAGIC_INFEASIBLE": "tenths",
    "F_B_MAGIC_UNDECLARED": "mean",
    "F_B_OA_DECLARED": "mean",
    "F_B_OA_FAILS": "mean",
    "F_B_OA_ILLEGAL": "tenths",
    "F_B_OA_SHARE_ON_INFEASIBLE": "percent_whole",
    "F_B_OA_UNDECLARED": "mean",
    "F_B_PRESSURE_DECLARED": "mean",
    "F_B_PRESSURE_FAILS": "mean",
    "F_B_PRESSURE_ILLEGAL": "tenths",
    "F_B_PRESSURE_UNDECLARED": "mean",
    "F_B_TIGHT": "mean",
    "F_B_TIGHT_OA_INFEASIBLE": "tenths",
    "F_B_TIGHT_PRESSURE_INFEASIBLE": "tenths",
    # the book's choices that are shares
    "F_P_COMPACT_RATIO": "percent_whole",
    "F_P_DECLARED_FRACTION": "percent_whole",
    "F_P_GRID_MAX": "percent_whole",
    "F_P_GRID_MIN": "percent_whole",
    "F_P_MC_FORCE": "percent_whole",
    "F_P_MC_M1_CAP": "percent_whole",
}

#: Glue values that hold a form's key, written as its display name in lower case.
FORM_KEYS: frozenset[str] = frozenset({"F_B_MIG_FWF_FORM", "F_B_QUAD_AGE_OLD_FORM", "F_B_QUAD_AGE_RECENT_FORM"})


def glue_values(values: Mapping[str, object]) -> None:
    """Glue every value of a chapter, each written as its kind of quantity.

    Parameters
    ----------
    values:
        Glue name to value, as :mod:`cvlib.fidelity.numbers` returns them:
        numbers are written by their kind in :data:`KINDS` (a count unless
        named there), text as it is, a form's key (:data:`FORM_KEYS`) as its
        display name.

    Returns
    -------
    None
    """
    for key, value in values.items():
        if key in FORM_KEYS:
            glue_text(key, label(str(value)).lower())
        elif isinstance(value, str):
            glue_text(key, value)
        else:
            glue(key, value, KINDS.get(key, "count"))


def experiment_a_values(
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
    values = numbers_a(a, reps, dominance, nominal)
    values.update(verdicts("F_A_", found, surv))
    values["F_A_SENS_SEEDS"] = len(sensitivity_seeds)
    values.update(numbers_params())
    return values


def experiment_b_values(
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
    values = numbers_b(sweep, coupled)
    values.update(verdicts("F_B_", found, surv))
    values.update(numbers_params())
    values.update(numbers_outcomes(outcomes))
    return values
