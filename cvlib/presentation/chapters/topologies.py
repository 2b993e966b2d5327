"""The chapter "D2: topologies": its named plans, its grid by depth, the glued numbers and the published comparison.

The runs are the library's (:func:`cvlib.run_scenario` on D2,
:func:`cvlib.topology_grid`); this module turns them into what the chapter
shows: the three named topologies as rows, the grid summarised depth by
depth, every number its prose names, and the article's numbers beside ours.
The notebook only calls these, so it holds no wrangling.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.experiments import article
from cvlib.presentation import published, tables
from cvlib.presentation.formatting import listing
from cvlib.scenarios.named import run_scenario

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from cvlib.presentation.published import Comparison
    from cvlib.presentation.tables import Table

__all__ = [
    "NAMED_COLUMNS",
    "GRID_COLUMNS",
    "by_depth",
    "comparison",
    "depth_table",
    "exercise",
    "grid_table",
    "named_rows",
    "named_table",
    "numbers",
    "texts",
]

#: Titles of the named topologies' table, by column.
NAMED_COLUMNS: dict[str, str] = {
    "label": "Topology",
    "total_steps": "Plan steps",
    "closure_size": "Steps on the fact",
    "invalidation_depth": "Invalidation depth",
    "baseline_pfw": "Baseline doomed steps",
    "validity_aware_pfw": "Validity-aware doomed steps",
}

#: Titles of the grid's table, by column.
GRID_COLUMNS: dict[str, str] = {
    "depth": "Depth",
    "branching_factor": "Branching",
    "merge_factor": "Merging",
    "closure_size": "Steps on the fact",
    "predicted_pfw": "Law: doomed steps",
    "baseline_pfw": "Baseline doomed steps",
    "validity_aware_pfw": "Validity-aware doomed steps",
}


def _row(depth: int, branching: int, merging: int, seed: int) -> dict[str, Any]:
    return article.run_row(run_scenario("D2", depth=depth, branching_factor=branching, merge_factor=merging, seed=seed))


def named_rows(topologies: Sequence[Sequence[int]], seed: int) -> pd.DataFrame:
    """One D2 run per named topology, labelled ``(depth, branching, merging)``.

    Parameters
    ----------
    topologies
        ``[depth, branching factor, merge factor]`` triples.
    seed
        The generator's wiring seed.

    Returns
    -------
    pandas.DataFrame
        A ``label`` column, then :func:`cvlib.experiments.article.run_row`'s columns.

    Raises
    ------
    ParameterError
        A topology is not three numbers.
    """
    import pandas as pd

    bad = [t for t in topologies if len(t) != 3]
    if bad:
        raise ParameterError(f"each topology is [depth, branching factor, merge factor]; got {bad}")
    return pd.DataFrame({"label": f"({d}, {bf}, {mf})", **_row(d, bf, mf, seed)} for d, bf, mf in topologies)


def named_table(named: pd.DataFrame) -> Table:
    """The named topologies, one row each.

    Parameters
    ----------
    named
        :func:`named_rows`.

    Returns
    -------
    Table
    """
    return tables.table(named, NAMED_COLUMNS)


def grid_table(grid: pd.DataFrame) -> Table:
    """Every configuration of the grid, one row each.

    Parameters
    ----------
    grid
        :func:`cvlib.topology_grid`'s DataFrame.

    Returns
    -------
    Table
    """
    return tables.table(grid, GRID_COLUMNS, summary=f"All {len(grid)} configurations, one row each")


def _off_law(grid: pd.DataFrame) -> pd.Series:
    """Whether the baseline's doomed work differs from the law's closure size − 1, configuration by configuration."""
    return grid["baseline_pfw"] != grid["closure_size"] - 1


def by_depth(grid: pd.DataFrame) -> pd.DataFrame:
    """The grid summarised depth by depth: how many configurations, their closures, how many are off the law.

    Parameters
    ----------
    grid
        :func:`cvlib.topology_grid`'s DataFrame.

    Returns
    -------
    pandas.DataFrame
        One row per depth: ``configs``, ``smallest`` and ``largest`` closure,
        ``off_law`` (configurations whose doomed work is not the law's) and
        ``validity_max`` (the validity-aware executor's most doomed steps).
    """
    frame = grid.assign(off_law=_off_law(grid))
    return (
        frame.groupby("depth")
        .agg(
            configs=("off_law", "size"),
            smallest=("closure_size", "min"),
            largest=("closure_size", "max"),
            off_law=("off_law", "sum"),
            validity_max=("validity_aware_pfw", "max"),
        )
        .reset_index()
    )


def depth_table(grid: pd.DataFrame) -> Table:
    """:func:`by_depth` as the chapter shows it.

    Parameters
    ----------
    grid
        :func:`cvlib.topology_grid`'s DataFrame.

    Returns
    -------
    Table
    """
    columns = {
        "depth": "Depth",
        "configs": "Configurations",
        "smallest": "Smallest closure",
        "largest": "Largest closure",
        "off_law": "Off the law",
        "validity_max": "Most validity-aware doomed steps",
    }
    return tables.table(by_depth(grid), columns)


def _total_mismatches(grid: pd.DataFrame) -> int:
    """Configurations whose doomed work is not the plan's steps − 1 (the article's reading of the law)."""
    return int((grid["baseline_pfw"] != grid["total_steps"] - 1).sum())


def numbers(grid: pd.DataFrame) -> dict[str, int]:
    """The counts the chapter's prose names about the grid (glue keys ``D2_grid_...``).

    Parameters
    ----------
    grid
        :func:`cvlib.topology_grid`'s DataFrame.

    Returns
    -------
    dict
        Glue key to count, for :func:`cvlib.presentation.formatting.glue_all`.
    """
    return {
        "D2_grid_configs": len(grid),
        "D2_grid_mismatches": int(_off_law(grid).sum()),
        "D2_grid_total_mismatches": _total_mismatches(grid),
        "D2_grid_validity_nonzero": int((grid["validity_aware_pfw"] != 0).sum()),
        "D2_grid_min_size": int(grid["closure_size"].min()),
        "D2_grid_max_size": int(grid["closure_size"].max()),
    }


def texts(named: pd.DataFrame) -> dict[str, str]:
    """The lists the chapter's prose names about the named topologies (glue keys ``D2_topology_...``).

    Parameters
    ----------
    named
        :func:`named_rows`.

    Returns
    -------
    dict
        Glue key to text, for :func:`cvlib.presentation.formatting.glue_texts`.
    """
    return {
        "D2_topology_labels": listing(named["label"], last=" and "),
        "D2_topology_nodes": listing(named["total_steps"], last=" and "),
        "D2_topology_pfw": listing(named["baseline_pfw"], last=" and "),
    }


def comparison(named: pd.DataFrame, grid: pd.DataFrame, params: Mapping[str, Any]) -> Comparison:
    """The article's D2 numbers beside ours.

    Parameters
    ----------
    named, grid
        :func:`named_rows` and :func:`cvlib.topology_grid`'s DataFrame.
    params
        The chapter's parameters, which decide whether the published numbers describe this run.

    Returns
    -------
    Comparison
    """
    ours = {
        "nodes": [int(n) for n in named["total_steps"]],
        "baseline_pfw": [int(p) for p in named["baseline_pfw"]],
        "grid_configs": len(grid),
        "grid_mismatches": _total_mismatches(grid),
    }
    return published.compare("D2", ours, params=dict(params))


def exercise(
    grid_depths: Sequence[int], grid_branching: Sequence[int], seed: int
) -> tuple[dict[str, Any], dict[str, str]]:
    """The exercise's plan, one past the grid's deepest and widest, and what the law and the run say of it.

    Parameters
    ----------
    grid_depths, grid_branching
        The grid's depths and branching factors.
    seed
        The generator's wiring seed.

    Returns
    -------
    tuple of dict
        Glue key to count (``D2_ex_...``) and glue key to text (the plan's label).
    """
    ex = (max(grid_depths) + 1, max(grid_branching) + 1, 1)
    row = _row(*ex, seed)
    counts = {
        "D2_ex_closure": row["closure_size"],
        "D2_ex_predicted": row["closure_size"] - 1,
        "D2_ex_measured": row["baseline_pfw"],
        "D2_ex_validity": row["validity_aware_pfw"],
    }
    return counts, {"D2_ex_label": ", ".join(str(v) for v in ex)}
