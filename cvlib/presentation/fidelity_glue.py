"""What the two progressive-fidelity chapters share in writing their glued numbers.

:mod:`cvlib.fidelity` computes and returns plain results; each chapter's
module (:mod:`cvlib.presentation.chapters.fidelity_experiment_a` and
:mod:`~cvlib.presentation.chapters.fidelity_experiment_b`) picks out the
values its prose names. This module holds what both need: what kind of
quantity each value is (:data:`KINDS`) and :func:`glue_values`, which writes
every value the book's way with :func:`cvlib.presentation.formatting.glue`,
the verdicts of a findings table, and the book's choices the prose names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

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
        Glue name to value, as the chapters' modules return them:
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


def verdicts(prefix: str, findings: pd.DataFrame, survival: pd.DataFrame | None = None) -> dict[str, object]:
    """Glue values for a findings table, each finding's verdict and, with a survival table, how many variations it survives.

    Parameters
    ----------
    prefix
        The chapter's glue prefix (``"F_A_"`` or ``"F_B_"``).
    findings
        :func:`~cvlib.fidelity.findings.findings_a` or :func:`~cvlib.fidelity.findings.findings_b`.
    survival
        Its :func:`~cvlib.fidelity.sensitivity.survival`, or None.

    Returns
    -------
    dict
        ``{prefix}HOLDS_{KEY}`` ("holds" or "does not hold") for each finding; with a survival table also
        ``{prefix}SURVIVES_{KEY}``, ``{prefix}FLIPS_{KEY}``, and the counts ``ROBUST``, ``FINDINGS`` and ``VARIATIONS``.
    """
    out: dict[str, object] = {}
    for key, holds in zip(findings["key"], findings["holds"]):
        out[f"{prefix}HOLDS_{key.upper()}"] = "holds" if holds else "does not hold"
    if survival is not None:
        for key, k, n, flips in zip(
            survival["key"], survival["holds_under"], survival["variations"], survival["flips_under"]
        ):
            out[f"{prefix}SURVIVES_{key.upper()}"] = f"{int(k)} of {int(n)}"
            out[f"{prefix}FLIPS_{key.upper()}"] = flips or "no variation"
        robust = survival[survival["flips_under"] == ""]
        out[f"{prefix}ROBUST"] = int(len(robust))
        out[f"{prefix}FINDINGS"] = int(len(survival))
        out[f"{prefix}VARIATIONS"] = int(survival["variations"].max()) if len(survival) else 0
    return out


def params_values() -> dict[str, object]:
    """The book's choices that the chapters' prose names, as glue values (``F_P_...``).

    Returns
    -------
    dict
        Glue name to the choice's default in :mod:`cvlib.fidelity.params`.
    """
    from cvlib.fidelity.params import default

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
