"""The chapter "The law at scale": how each number it glues is written.

:mod:`cvlib.presentation.sweep_report` reads the chapter's sweep and the
recorded million-plan run and returns their tables, figure and numbers; this
module says what kind of quantity each number is (:data:`KINDS`) and writes
them, so the notebook holds no formatting of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cvlib.presentation.formatting import fmt

__all__ = ["KINDS", "texts"]

#: How each number the chapter glues is written (:mod:`cvlib.presentation.formatting` kinds); others are counts.
KINDS: dict[str, str] = {
    "law_scale_big_minutes": "tenths",
    "law_scale_big_mismatches": "count",
    "law_scale_big_plans": "count",
    "law_scale_big_rate": "count",
    "law_scale_big_total_steps": "count",
    "law_scale_big_validity_nonzero": "count",
    "law_scale_mismatches": "count",
    "law_scale_multi_break": "count",
    "law_scale_plans": "count",
    "law_scale_plans_with_pfw": "count",
    "law_scale_steps_median": "count",
    "law_scale_total_pfw": "count",
    "law_scale_validity_nonzero": "count",
}


def texts(values: Mapping[str, Any]) -> dict[str, str]:
    """Each value written the book's way: text as it is, a number by its kind in :data:`KINDS`.

    Parameters
    ----------
    values
        :func:`~cvlib.presentation.sweep_report.glue_values` or
        :func:`~cvlib.presentation.sweep_report.recorded_glue_values`.

    Returns
    -------
    dict
        Glue key to text, in the same order, for :func:`cvlib.presentation.formatting.glue_texts`.
    """
    return {
        key: value if isinstance(value, str) else fmt(value, KINDS.get(key, "count")) for key, value in values.items()
    }
