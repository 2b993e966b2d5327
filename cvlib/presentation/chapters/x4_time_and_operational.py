"""The chapter "X4: time and operational checks": its two tables and two figures.

:mod:`cvlib.experiments.time_and_operational` sweeps time-to-live against
rates of change and compares checkers under outages; the chapter's glued
numbers are :mod:`cvlib.presentation.freshness_findings`'. This module shows
the two sweeps as the chapter does, so the notebook holds no wrangling.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cvlib.presentation import extension_figures, tables

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from cvlib.presentation.tables import Table

__all__ = ["operational_figure", "operational_table", "ttl_figure", "ttl_table"]


def ttl_table(ttl_rows: pd.DataFrame, rates: Sequence[float], ttls: Sequence[int]) -> Table:
    """Each rate of change and time-to-live (and the baseline): completion, steps, doomed steps and verifications per run.

    Parameters
    ----------
    ttl_rows
        :func:`~cvlib.experiments.time_and_operational.ttl_sweep`.
    rates, ttls
        The rates and time-to-live values swept.

    Returns
    -------
    Table
    """
    columns = {
        "rate": "Change rate per tick",
        "ttl": "TTL",
        "changed_in_run": "Runs with a change",
        "completion_rate": "Completed",
        "mean_steps": "Steps per run",
        "mean_pfw": "Doomed steps per run",
        "mean_verifications": "Verifications per run",
    }
    formats: dict[str, Any] = {
        "rate": "probability",
        "ttl": lambda t: "baseline" if t == "baseline" else str(t),
        "changed_in_run": "share",
        "completion_rate": "share",
        "mean_steps": "mean",
        "mean_pfw": "mean",
        "mean_verifications": "mean",
    }
    summary = f"{len(ttl_rows)} configurations: {len(rates)} rates of change × {len(ttls)} TTLs, and the baseline"
    return tables.table(ttl_rows, columns, formats, summary=summary)


def ttl_figure(ttl_rows: pd.DataFrame) -> Figure:
    """Steps, doomed steps, verifications and completion against the time-to-live, one line per rate (the baseline left out).

    Parameters
    ----------
    ttl_rows
        :func:`~cvlib.experiments.time_and_operational.ttl_sweep`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    numeric = ttl_rows[ttl_rows.ttl != "baseline"].copy()
    numeric["ttl"] = numeric["ttl"].astype(int)
    return extension_figures.checker_figure(
        numeric, "ttl", ["mean_steps", "mean_pfw", "mean_verifications", "completion_rate"], hue="rate"
    )


def operational_table(ops: pd.DataFrame, ops_ttls: Sequence[int]) -> Table:
    """Each checker and time-to-live under outages: completion, steps, doomed steps, SCUR and verifications per run.

    Parameters
    ----------
    ops
        :func:`~cvlib.experiments.time_and_operational.operational_comparison`.
    ops_ttls
        The time-to-live values compared.

    Returns
    -------
    Table
    """
    shown = ops.assign(checker=ops["checker"].map(extension_figures.checker_label))
    columns = {
        "checker": "Checker",
        "ttl": "TTL",
        "completion_rate": "Completed",
        "mean_steps": "Steps per run",
        "mean_pfw": "Doomed steps per run",
        "mean_scur": "SCUR",
        "mean_verifications": "Verifications per run",
    }
    formats = {
        "completion_rate": "share",
        "mean_steps": "mean",
        "mean_pfw": "mean",
        "mean_scur": "share",
        "mean_verifications": "mean",
    }
    summary = f"{len(ops)} configurations: {ops.checker.nunique()} checkers × {len(ops_ttls)} TTLs"
    return tables.table(shown, columns, formats, summary=summary)


def operational_figure(ops: pd.DataFrame) -> Figure:
    """Doomed steps, SCUR, verifications and completion against the time-to-live, one line per checker.

    Parameters
    ----------
    ops
        :func:`~cvlib.experiments.time_and_operational.operational_comparison`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return extension_figures.checker_figure(
        ops, "ttl", ["mean_pfw", "mean_scur", "mean_verifications", "completion_rate"]
    )
