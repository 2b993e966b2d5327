"""The chapter "The law": the cases it checks, its table, the glued counts, the published comparison and the exercise.

The check is :func:`cvlib.check_law`'s; this module builds the chapter's
list of cases from its parameters, says whether that list is the article's
(:data:`cvlib.LAW_CASES`), and writes what the chapter shows of the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cvlib.experiments.law_check import LAW_CASES, check_law
from cvlib.presentation import published, tables
from cvlib.presentation.formatting import words, written

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.presentation.published import Comparison
    from cvlib.presentation.tables import Table

__all__ = ["cases", "comparison", "exercise", "is_published", "law_table", "texts"]


def cases(
    d1_depths: Sequence[int],
    a_depth: int,
    a_ticks: Sequence[int],
    d2_topologies: Sequence[Sequence[int]],
    d3_branches: Sequence[int],
) -> list[tuple[str, str, dict[str, int]]]:
    """The chapter's cases for :func:`cvlib.check_law`: chains, value changes at each tick, named diamonds and isolated branches.

    Parameters
    ----------
    d1_depths
        D1 chain depths.
    a_depth, a_ticks
        Scenario A's depth and the ticks its price changes at.
    d2_topologies
        D2 ``[depth, branching factor, merge factor]`` triples.
    d3_branches
        D3 branch counts.

    Returns
    -------
    list of tuple
        ``(name, scenario, parameters)`` for each case.
    """
    return [
        *((f"D1 chain depth={d}", "D1", {"depth": d}) for d in d1_depths),
        *((f"A depth={a_depth} tick={t}", "A", {"depth": a_depth, "change_tick": t}) for t in a_ticks),
        *(
            (f"D2 ({d},{bf},{mf})", "D2", {"depth": d, "branching_factor": bf, "merge_factor": mf})
            for d, bf, mf in d2_topologies
        ),
        *((f"D3 {b} branch{'es' if b > 1 else ''}", "D3", {"num_branches": b}) for b in d3_branches),
    ]


def is_published(chosen: Sequence[tuple[str, str, dict[str, Any]]]) -> bool:
    """Whether the cases are the article's own (the same scenarios with the same parameters, in order).

    Parameters
    ----------
    chosen
        :func:`cases`.

    Returns
    -------
    bool
    """
    return [(s, p) for _, s, p in chosen] == [(s, p) for _, s, p in LAW_CASES]


def law_table(law: pd.DataFrame) -> Table:
    """One row per case: the closure, the change tick, the law's doomed work, the measured and whether they match.

    Parameters
    ----------
    law
        :func:`cvlib.check_law`.

    Returns
    -------
    Table
    """
    columns = {
        "case": "Case",
        "closure_size": "Steps on the fact",
        "change_tick": "Change tick",
        "expected_pfw": "Law: doomed steps",
        "actual_pfw": "Measured",
        "match": "Match",
    }
    return tables.table(law, columns, summary=f"{len(law)} cases, {int(law['match'].sum())} matching the law")


def texts(law: pd.DataFrame, published_cases: bool) -> dict[str, str]:
    """The counts the chapter's prose names, and whether its cases are the article's, written in the chapter's order.

    Parameters
    ----------
    law
        :func:`cvlib.check_law`.
    published_cases
        :func:`is_published` of the cases.

    Returns
    -------
    dict
        For :func:`cvlib.presentation.formatting.glue_texts`.
    """
    out = written(
        {"law_cases": len(law), "law_matches": int(law["match"].sum()), "law_mismatches": int((~law["match"]).sum())}
    )
    out["law_is_published_list"] = words(published_cases)
    return out


def comparison(law: pd.DataFrame, published_cases: bool) -> Comparison:
    """The article's count of cases and matches beside ours (applying only when the cases are the article's).

    Parameters
    ----------
    law
        :func:`cvlib.check_law`.
    published_cases
        :func:`is_published` of the cases.

    Returns
    -------
    Comparison
    """
    ours = {"cases": len(law), "matches": int(law["match"].sum())}
    rows = [(published.QUANTITY_NAMES[k], published.published("law")[k], v) for k, v in ours.items()]
    return published.comparison(rows, applies=published_cases)


def exercise(a_depth: int) -> dict[str, Any]:
    """The exercise's value change: twice the depth, the price changing one step before the old end.

    Parameters
    ----------
    a_depth
        The chapter's scenario A depth.

    Returns
    -------
    dict
        Glue key (``law_ex_...``) to count, for :func:`cvlib.presentation.formatting.glue_all`.
    """
    ex_depth, ex_tick = 2 * a_depth, a_depth - 1
    ex = check_law([("exercise", "A", {"depth": ex_depth, "change_tick": ex_tick})]).iloc[0]
    return {
        "law_ex_depth": ex_depth,
        "law_ex_tick": ex_tick,
        "law_ex_predicted": ex["expected_pfw"],
        "law_ex_measured": ex["actual_pfw"],
    }
