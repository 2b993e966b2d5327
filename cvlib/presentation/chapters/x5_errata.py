"""The chapter "X5: errata": the rule sets compared, the sensitivity of each headline, and the law past the grid.

:mod:`cvlib.experiments.errata` recomputes the article's published
quantities under corrected rules and varies each headline one parameter at a
time; :mod:`cvlib.experiments.law_check` sweeps deeper diamonds. This module
turns those results into what the chapter shows: which values each
correction changes, its tables, and every phrase and number its prose glues,
so the notebook holds no wrangling.

The glue functions return their texts already written and in the order the
chapter glued them, so the executed chapter's outputs keep their order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.experiments import errata
from cvlib.presentation import extension_figures, tables
from cvlib.presentation.formatting import plain_words, words, written

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from cvlib.experiments.law_check import DeepCase
    from cvlib.presentation.tables import Table

__all__ = [
    "RULES",
    "change_figure",
    "changed",
    "deep_law_table",
    "deep_summary_table",
    "deep_table",
    "detail",
    "detail_table",
    "errata_table",
    "rule_name",
    "sensitivity_texts",
    "summary_table",
    "table_texts",
]

#: The four rule sets, by :data:`cvlib.experiments.errata.CORRECTIONS` key, as the tables name them.
RULES: dict[str, str] = {
    "original": "Article's rules",
    "strict_budget": "Strict budget",
    "redo_affected": "Redo affected",
    "both": "Both corrections",
}

#: The quantities the chapter quotes from the errata table, by (headline, quantity).
_BUDGET_WINDOW = ("Budget sweep", "budgets where only validity-aware completes (9 down to 4)")
_SCUR = ("A value change", "SCUR baseline / validity-aware")
_D3_STEPS = ("D3 isolation", "validity-aware steps at 1, 4, 8 branches")
_C_HEADLINE = "C completed (baseline / validity-aware)"


def rule_name(rules: str) -> str:
    """A rule set's name as the tables give it (the key itself when it is not one of :data:`RULES`).

    Parameters
    ----------
    rules
        A key of :data:`cvlib.experiments.errata.CORRECTIONS`, or any other name.

    Returns
    -------
    str
    """
    return RULES.get(rules, rules)


def changed(table: pd.DataFrame) -> pd.DataFrame:
    """Which published values each correction changes: one truth column per correction, one row per quantity.

    Parameters
    ----------
    table
        :func:`cvlib.experiments.errata.errata_table`.

    Returns
    -------
    pandas.DataFrame
        Indexed ``"headline: quantity"``; a column for each correction after the original rules.
    """
    import pandas as pd

    names = list(errata.CORRECTIONS)
    missing = [n for n in names if n not in table.columns]
    if missing:
        raise ParameterError(f"the errata table lacks the rule set(s) {missing}; it has {list(table.columns)}")
    frame = pd.DataFrame({n: table[n].astype(str) != table["original"].astype(str) for n in names[1:]})
    frame.index = table["headline"] + ": " + table["quantity"]
    return frame


def change_figure(table: pd.DataFrame) -> Figure:
    """Which values each correction changes, drawn.

    Parameters
    ----------
    table
        :func:`cvlib.experiments.errata.errata_table`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    names = list(errata.CORRECTIONS)[1:]
    return extension_figures.change_figure(changed(table), {n: RULES[n].replace(" ", "\n", 1) for n in names})


def errata_table(table: pd.DataFrame) -> Table:
    """The published quantities under the four rule sets, value by value.

    Parameters
    ----------
    table
        :func:`cvlib.experiments.errata.errata_table`.

    Returns
    -------
    Table
    """
    names = list(errata.CORRECTIONS)
    return tables.table(
        table,
        {"headline": "Headline", "quantity": "Quantity", **{n: RULES[n] for n in names}},
        {n: plain_words for n in names},
        summary=f"The {len(table)} published quantities under the four rule sets, value by value",
    )


def table_texts(table: pd.DataFrame) -> dict[str, str]:
    """The numbers and phrases the chapter quotes from the errata table, written (glue keys ``X5_...``).

    Parameters
    ----------
    table
        :func:`cvlib.experiments.errata.errata_table`.

    Returns
    -------
    dict
        Glue key to text, in the chapter's order, for :func:`cvlib.presentation.formatting.glue_texts`.
    """
    rows = table.set_index(["headline", "quantity"])
    n_changed = {n: int(flags.sum()) for n, flags in changed(table).items()}
    window = rows.loc[_BUDGET_WINDOW]
    d3 = rows.loc[_D3_STEPS]
    out = written(
        {
            "X5_quantities": len(table),
            "X5_changed_strict": n_changed["strict_budget"],
            "X5_changed_redo": n_changed["redo_affected"],
            "X5_changed_both": n_changed["both"],
        }
    )
    out["X5_scur_redo"] = rows.loc[_SCUR, "redo_affected"]
    out["X5_d3_va_steps_original"] = d3["original"]
    out["X5_d3_va_steps_redo"] = d3["redo_affected"]
    for rules in ("original", "redo_affected", "both"):
        out[f"X5_window_{rules.split('_')[0]}"] = errata.budget_range(window[rules])
    return out


def _differs(frame: pd.DataFrame) -> pd.Series:
    """Whether each variation's result under the correction differs from the article's rules (never, without a correction)."""
    return frame["result"].astype(str) != frame.get("corrected", frame["result"]).astype(str)


def summary_table(sensitivity: Mapping[str, pd.DataFrame]) -> Table:
    """Each headline's one-parameter variations: how many, and how many the correction changes.

    Parameters
    ----------
    sensitivity
        :func:`cvlib.experiments.errata.sensitivity` by headline name, for every headline of
        :data:`cvlib.experiments.errata.HEADLINES`.

    Returns
    -------
    Table
    """
    import pandas as pd

    summary = pd.DataFrame(
        [
            {
                "headline": h.name,
                "published": plain_words(h.published),
                "varied": ", ".join(h.vary),
                "cells": len(frame),
                "differ": int(_differs(frame).sum()),
            }
            for h in errata.HEADLINES
            for frame in [sensitivity[h.name]]
        ]
    )
    columns = {
        "headline": "Headline",
        "published": "Published",
        "varied": "Parameters varied",
        "cells": "Variations",
        "differ": "Differ under the correction",
    }
    return tables.table(summary, columns)


def detail(sensitivity: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Every headline's variations in one frame, each row named by its headline.

    Parameters
    ----------
    sensitivity
        :func:`cvlib.experiments.errata.sensitivity` by headline name.

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    return pd.concat([frame.assign(headline=name) for name, frame in sensitivity.items()], ignore_index=True)


def detail_table(sensitivity: Mapping[str, pd.DataFrame], correction: str) -> Table:
    """All the one-parameter variations, headline by headline, under the article's rules and the correction.

    Parameters
    ----------
    sensitivity
        :func:`cvlib.experiments.errata.sensitivity` by headline name.
    correction
        The rules the variations were also run under.

    Returns
    -------
    Table
    """
    frame = detail(sensitivity)
    columns = {"headline": "Headline", "parameter": "Parameter", "value": "Value", "result": "Article's rules"}
    formats: dict[str, Any] = {"result": plain_words}
    if "corrected" in frame:
        columns["corrected"] = rule_name(correction)
        formats["corrected"] = plain_words
    columns["published_point"] = "Published point"
    return tables.table(
        frame, columns, formats, summary=f"All {len(frame)} one-parameter variations, headline by headline"
    )


def moved(sensitivity: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The variations whose result the correction changes, every headline's together.

    Parameters
    ----------
    sensitivity
        :func:`cvlib.experiments.errata.sensitivity` by headline name.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`detail` that differ (none when no correction was run).
    """
    frame = detail(sensitivity)
    return frame[_differs(frame)]


def sensitivity_texts(sensitivity: Mapping[str, pd.DataFrame], correction: str) -> dict[str, str]:
    """The numbers and phrases the chapter quotes from the sensitivity sweep, written (glue keys ``X5_...``).

    Parameters
    ----------
    sensitivity
        :func:`cvlib.experiments.errata.sensitivity` by headline name.
    correction
        The rules the variations were also run under.

    Returns
    -------
    dict
        Glue key to text, in the chapter's order, for :func:`cvlib.presentation.formatting.glue_texts`.
    """
    frame = detail(sensitivity)
    changed_rows = moved(sensitivity)
    window_rows = sensitivity["Budget window"]
    law = errata.headline_results("original").set_index("quantity")
    out = written(
        {
            "X5_sensitivity_cells": len(frame),
            "X5_sensitivity_moved": len(changed_rows),
            "X5_law_cases": int(law.loc["cases matching (of 15)", "value"]),
        }
    )
    out["X5_correction"] = rule_name(correction).lower()
    only_budget = sorted(set(changed_rows["parameter"])) == ["budget"]
    out["X5_moved_only_by_budget"] = words(
        only_budget, "all of them come from the budget parameter", "not all of them come from the budget parameter"
    )
    out["X5_window_depth6"] = errata.budget_range(plain_words(errata.variation(window_rows, "depth", 6)))
    out["X5_window_tick3"] = errata.budget_range(plain_words(errata.variation(window_rows, "change_tick", 3)))
    out["X5_e1_tick2"] = plain_words(
        errata.variation(sensitivity["E1 steps (baseline / validity-aware)"], "change_tick", 2)
    )
    base = errata.headline("Budget window").base
    c_rows = sensitivity[_C_HEADLINE]
    c_moved = c_rows[(c_rows.parameter == "budget") & _differs(c_rows)]
    out |= written(
        {
            "X5_window_depth": base["depth"],
            "X5_window_tick": base["change_tick"],
            "X5_c_depth": errata.headline(_C_HEADLINE).base["depth"],
            "X5_c_budget": int(c_moved["value"].min()) if len(c_moved) else "–",
        }
    )
    return out


def deep_summary_table(faithful: Sequence[DeepCase], numeric: Sequence[DeepCase]) -> Table:
    """The deep sweep under both tie-breaks: where the action first stops being last, and whether each law holds.

    Parameters
    ----------
    faithful, numeric
        :func:`cvlib.experiments.law_check.deep_sweep` with the article's string order and with numeric order.

    Returns
    -------
    Table
    """
    frame = errata.deep_summary_frame({"string (the article's)": faithful, "numeric": numeric})
    columns = {
        "order": "Tie-break",
        "configurations": "Diamonds",
        "first_depth": "First depth with the action not last",
        "cases": "Action not last",
        "closed_form_mismatches": "Closed form wrong",
        "general_mismatches": "General law wrong",
    }
    return tables.table(frame, columns)


def deep_table(faithful: Sequence[DeepCase]) -> Table:
    """The diamonds whose action is not the last step, with the article's closed form and the general law.

    Parameters
    ----------
    faithful
        :func:`cvlib.experiments.law_check.deep_sweep` with the article's order.

    Returns
    -------
    Table
    """
    frame = errata.deep_frame(faithful)
    columns = {
        "depth": "Depth",
        "branching_factor": "Branching",
        "merge_factor": "Merge",
        "steps": "Steps",
        "action_position": "Steps before the action",
        "never_run": "Steps after it (never run)",
        "measured_pfw": "Measured PFW",
        "article_pfw": "Article's closed form",
        "general_pfw": "General law",
    }
    return tables.table(frame, columns, summary=f"The {len(frame)} diamonds whose action is not the last step")


def deep_law_table(deep_law: pd.DataFrame) -> Table:
    """The law checked on the deep cases: predicted, closed form and measured doomed work.

    Parameters
    ----------
    deep_law
        :func:`cvlib.check_law` on :data:`cvlib.DEEP_LAW_CASES`.

    Returns
    -------
    Table
    """
    columns = {
        "case": "Case",
        "steps": "Steps",
        "action_position": "Steps before the action",
        "law": "Law checked",
        "expected_pfw": "Predicted",
        "closed_form_pfw": "Closed form",
        "actual_pfw": "Measured",
        "match": "Match",
    }
    return tables.table(deep_law, columns)
