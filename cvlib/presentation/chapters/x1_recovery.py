"""The chapter "X1: recovery": the budget windows under each recovery model, summarised, drawn and quoted.

:func:`cvlib.experiments.recovery_windows.window_surface` measures, over
depths and change ticks, the window of budgets in which only the
validity-aware executor completes, under each recovery model;
:func:`~cvlib.experiments.recovery_windows.budget_window` does it for one
scenario. This module turns those surfaces into what the chapter shows: the
summary by model and number of actions, the panels of its figure, the
isolated-branches rows, and every number its prose glues.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.rules import RECOVERY_MODELS, ExecutionRules
from cvlib.experiments import recovery_windows as recovery
from cvlib.presentation import extension_figures, tables
from cvlib.scenarios.named import setup_scenario

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from cvlib.presentation.tables import Table

__all__ = ["both", "branch_rows", "branch_table", "figure", "glue_values", "summary", "summary_table"]


def both(single: pd.DataFrame, multi: pd.DataFrame) -> pd.DataFrame:
    """The single-action and the multi-action surfaces in one frame, with whether each cell's width is its doomed work + 1.

    Parameters
    ----------
    single, multi
        :func:`~cvlib.experiments.recovery_windows.window_surface` with one action and with several.

    Returns
    -------
    pandas.DataFrame
        Both surfaces' rows and a ``law_holds`` column.
    """
    import pandas as pd

    frame = pd.concat([single, multi], ignore_index=True)
    frame["law_holds"] = frame["width"] == frame["predicted_pfw"] + 1
    return frame


def summary(single: pd.DataFrame, multi: pd.DataFrame) -> pd.DataFrame:
    """Each recovery model and number of actions: cells, cells with a window, where the law holds, and the windows' sizes.

    Parameters
    ----------
    single, multi
        :func:`~cvlib.experiments.recovery_windows.window_surface` with one action and with several.

    Returns
    -------
    pandas.DataFrame
        One row per (actions, model), the model by its display name.
    """
    out = (
        both(single, multi)
        .groupby(["num_actions", "model"], sort=False)
        .agg(
            cells=("width", "size"),
            with_window=("width", lambda w: int((w > 0).sum())),
            law=("law_holds", "sum"),
            mean_width=("width", "mean"),
            max_width=("width", "max"),
            mean_low=("low", "mean"),
        )
        .reset_index()
    )
    out["model"] = out["model"].map(extension_figures.MODEL_LABELS)
    return out


def summary_table(single: pd.DataFrame, multi: pd.DataFrame) -> Table:
    """:func:`summary` as the chapter shows it.

    Parameters
    ----------
    single, multi
        :func:`~cvlib.experiments.recovery_windows.window_surface` with one action and with several.

    Returns
    -------
    Table
    """
    columns = {
        "num_actions": "Actions",
        "model": "Recovery",
        "cells": "Cells",
        "with_window": "With a window",
        "law": "Width = doomed work + 1",
        "mean_width": "Mean width",
        "max_width": "Widest",
        "mean_low": "Mean lowest budget",
    }
    return tables.table(summary(single, multi), columns, {"mean_width": "mean", "mean_low": "mean"})


def figure(single: pd.DataFrame, multi: pd.DataFrame, num_actions: int) -> Figure:
    """One panel per recovery model and number of actions: each cell's window width.

    Parameters
    ----------
    single, multi
        :func:`~cvlib.experiments.recovery_windows.window_surface` with one action and with ``num_actions``.
    num_actions
        The actions of the multi-action plans.

    Returns
    -------
    matplotlib.figure.Figure
    """
    labels = extension_figures.MODEL_LABELS
    panels = [
        (f"{labels[m]}, {n} action{'s' if n > 1 else ''}", frame[frame.model == m])
        for m in RECOVERY_MODELS
        for n, frame in ((1, single), (num_actions, multi))
    ]
    return extension_figures.window_surface_figure(panels)


def branch_rows(branch_counts: Sequence[int], budget_rule: str) -> pd.DataFrame:
    """Isolated branches (D3) under flat recovery and under redoing the affected steps: each window and the doomed work.

    Parameters
    ----------
    branch_counts
        The numbers of branches.
    budget_rule
        The budget rule of :class:`~cvlib.core.rules.ExecutionRules`.

    Returns
    -------
    pandas.DataFrame
        One row per (branches, model), the model by its display name.
    """
    import pandas as pd

    labels = extension_figures.MODEL_LABELS
    rows = []
    for b in branch_counts:
        setup = setup_scenario("D3", num_branches=b)
        for model in ("flat", "redo_affected"):
            w = recovery.budget_window(setup, ExecutionRules(recovery=model, budget_rule=budget_rule))
            rows.append(
                {
                    "branches": b,
                    "plan_steps": len(setup.plan),
                    "model": labels[model],
                    "window_width": w["width"],
                    "baseline_steps": w["baseline_steps"],
                    "validity_aware_steps": w["validity_aware_steps"],
                    "baseline_pfw": setup.run().baseline.pre_failure_work,
                }
            )
    return pd.DataFrame(rows)


def branch_table(d3: pd.DataFrame) -> Table:
    """:func:`branch_rows` as the chapter shows it.

    Parameters
    ----------
    d3
        :func:`branch_rows`.

    Returns
    -------
    Table
    """
    columns = {
        "branches": "Branches",
        "plan_steps": "Plan steps",
        "model": "Recovery",
        "window_width": "Window width",
        "baseline_steps": "Baseline steps",
        "validity_aware_steps": "Validity-aware steps",
        "baseline_pfw": "Baseline doomed steps",
    }
    return tables.table(d3, columns)


def glue_values(single: pd.DataFrame, multi: pd.DataFrame, d3: pd.DataFrame, num_actions: int) -> dict[str, Any]:
    """Every number the chapter's prose names (glue keys ``X1_...``), for :func:`cvlib.presentation.formatting.glue_all`.

    Parameters
    ----------
    single, multi
        :func:`~cvlib.experiments.recovery_windows.window_surface` with one action and with ``num_actions``.
    d3
        :func:`branch_rows`; the numbers quoted are its largest branch count's.
    num_actions
        The actions of the multi-action plans.

    Returns
    -------
    dict
    """
    if not len(d3):
        raise ParameterError("the isolated-branches rows are empty; give at least one branch count")
    frame = both(single, multi)
    cells = single.pivot_table(
        index=["depth", "change_tick"], columns="model", values=["baseline_steps", "validity_aware_steps"]
    )
    same = (cells["baseline_steps"]["flat"] == cells["baseline_steps"]["redo_affected"]) & (
        cells["validity_aware_steps"]["flat"] == cells["validity_aware_steps"]["redo_affected"]
    )
    no_window = frame[frame["width"] == 0]
    largest = d3["branches"].iloc[-1]
    last = d3[d3.branches == largest].set_index("model")
    flat, redo = extension_figures.MODEL_LABELS["flat"], extension_figures.MODEL_LABELS["redo_affected"]
    drop = multi[multi.model == "redo_affected"]["low"].mean() - multi[multi.model == "subplan"]["low"].mean()
    return {
        "X1_cells": len(frame),
        "X1_cells_with_window": int((frame["width"] > 0).sum()),
        "X1_width_is_pfw_plus_1": int(frame["law_holds"].sum()),
        "X1_chain_cells": len(cells),
        "X1_chain_flat_equals_redo": int(same.sum()),
        "X1_max_width_single": int(single["width"].max()),
        "X1_max_width_multi": int(multi[multi.model != "flat"]["width"].max()),
        "X1_num_actions": num_actions,
        "X1_no_window_flat_multi": int(((no_window.model == "flat") & (no_window.num_actions > 1)).sum()),
        "X1_no_window_other": int(((no_window.model != "flat") | (no_window.num_actions == 1)).sum()),
        "X1_subplan_low_drop": (drop, "mean"),
        "X1_d3_branches": largest,
        "X1_d3_plan_steps": last.loc[flat, "plan_steps"],
        "X1_d3_flat_width": last.loc[flat, "window_width"],
        "X1_d3_redo_width": last.loc[redo, "window_width"],
        "X1_d3_flat_va_steps": last.loc[flat, "validity_aware_steps"],
    }
