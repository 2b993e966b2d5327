"""Figures of the chapters beyond the article (X1–X5) and of the law at scale.

Same style as :mod:`cvlib.presentation.figures` (:mod:`cvlib.presentation.style`):
the text column's width, panels stacked, text of at least 9 points, human
words in every axis and legend. The executors keep their two colours; the
other categories these chapters need (verification policies, freshness
checkers, recovery models) get colours of their own that never reuse an
executor's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.core.graph import PlanGraph, numeric_id_key
from cvlib.presentation.narrow_figures import redraw_narrow
from cvlib.presentation.style import (
    ACCENTS,
    COLUMN_WIDTH_IN,
    EXECUTOR_COLOURS,
    FONT_SIZES,
    LABELS,
    PALETTE,
    SERIES,
    legend_below,
    new_figure,
    policy_colour,
    policy_label,
)

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure

_NOTE = FONT_SIZES["annotation"]

#: Colours for the verification policies of X2 (none is an executor's colour).
POLICY_COLOURS: dict[str, str] = {"always": SERIES[0], "never": SERIES[4], "expected_cost": SERIES[1]}
#: Names of the verification policies, as a reader sees them.
POLICY_LABELS: dict[str, str] = {"always": "always verify", "never": "never verify", "expected_cost": "verify when it pays"}
#: Colours for the freshness checkers of X4; the baseline keeps the book's baseline colour.
CHECKER_COLOURS: dict[str, str] = {
    "timestamp": SERIES[2],
    "timestamp_laundering": SERIES[1],
    "dependency": SERIES[0],
    "baseline": PALETTE["baseline"],
}
#: Names of the freshness checkers, as a reader sees them.
CHECKER_LABELS: dict[str, str] = {
    "baseline": "baseline (never checks)",
    "timestamp": "timestamp (TTL) checker",
    "timestamp_laundering": "timestamp checker, laundering re-reads",
    "dependency": "dependency-aware checker",
}
#: Names of the recovery models of X1.
MODEL_LABELS: dict[str, str] = {
    "flat": "flat recovery (the article's)",
    "redo_affected": "redo what was affected",
    "subplan": "redo, keep finished actions",
}
#: Names of the per-run measures the X4 figures plot.
METRIC_LABELS: dict[str, str] = {
    "mean_steps": "steps per run",
    "mean_pfw": "doomed steps per run",
    "mean_verifications": "verifications per run",
    "completion_rate": "share of runs completed",
    "mean_scur": "stale-decision share (SCUR)",
}
def window_surface_figure(
    panels: Sequence[tuple[str, pd.DataFrame]], vmax: int | None = None, width: float = COLUMN_WIDTH_IN
) -> Figure:
    """Width of the budget window for each chain depth and change tick, one heatmap per panel.

    Parameters
    ----------
    panels:
        ``(title, surface)`` pairs, a surface being rows of
        :func:`cvlib.experiments.recovery_windows.window_surface` for one
        recovery model and number of actions. Drawn two to a row (one on a phone).
    vmax:
        Top of the colour scale (default: the widest window in any panel).
    width:
        The figure's width in inches (the text column's, or narrower for a phone).

    Returns
    -------
    matplotlib.figure.Figure
        Each cell holds its width in budgets; an empty cell means no window.
    """
    import numpy as np

    if not panels:
        raise ParameterError("window_surface_figure needs at least one panel")
    cols = 2 if len(panels) > 1 and width >= COLUMN_WIDTH_IN else 1
    rows = -(-len(panels) // cols)
    fig, axes = new_figure(rows, cols, height=2.45 * rows + 0.7 + 0.3 * (cols == 1), squeeze=False, sharex=True,
                           sharey=True, width=width)
    if vmax is None:
        vmax = int(max(df["width"].max() for _, df in panels))
    all_depths = sorted({int(d) for _, df in panels for d in df["depth"]})
    all_ticks = sorted({int(t) for _, df in panels for t in df["change_tick"]})
    image = None
    for ax, (title, df) in zip(axes.flat, panels):
        grid = df.pivot(index="depth", columns="change_tick", values="width").reindex(index=all_depths, columns=all_ticks)
        values = grid.to_numpy(dtype=float)
        image = ax.imshow(values, origin="lower", cmap="viridis", vmin=0, vmax=max(vmax, 1), aspect="auto")
        ax.set_xticks(range(len(all_ticks)), [str(c) for c in all_ticks])
        ax.set_yticks(range(len(all_depths)), [str(d) for d in all_depths])
        ax.set_title(title, fontsize=FONT_SIZES["text"])
        ax.grid(False)
        for spine in ax.spines.values():
            spine.set_visible(False)
        for (r, c), value in np.ndenumerate(values):
            if not np.isnan(value):
                ax.text(c, r, f"{int(value)}", ha="center", va="center", fontsize=_NOTE,
                        color="white" if value < 0.6 * vmax else "black")
    if image is None:
        raise ParameterError("the window surface needs at least one panel")
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("change tick")
    for ax in axes[:, 0]:
        ax.set_ylabel("chain depth (steps)")
    label = "window width (budgets where only validity-aware completes)"
    fig.colorbar(image, ax=axes, location="bottom", shrink=0.6 if cols > 1 else 1.0, aspect=40 if cols > 1 else 20,
                 label=label if cols > 1 else "window width (budgets where only\nvalidity-aware completes)")
    return redraw_narrow(fig, lambda narrow: window_surface_figure(panels, vmax, width=narrow))


def policy_figure(sweep: pd.DataFrame, noise_levels: Sequence[float], break_even: Mapping[float, float]) -> Figure:
    """Steps and completion against the prior, per verification policy: measured points over closed-form lines.

    One row of two panels per noise level (mean steps, share completed),
    stacked; a dotted line marks the break-even prior.

    Parameters
    ----------
    sweep:
        :func:`cvlib.experiments.noisy_verification.verification_sweep`'s DataFrame.
    noise_levels:
        The noise levels to draw, one row each.
    break_even:
        The closed-form break-even prior for each noise level.

    Returns
    -------
    matplotlib.figure.Figure
        Two columns, one row per noise level.
    """
    import numpy as np
    from matplotlib.lines import Line2D

    if not len(noise_levels):
        raise ParameterError("policy_figure needs at least one noise level")
    fig, axes = new_figure(len(noise_levels), 2, height=2.3 * len(noise_levels) + 0.9, squeeze=False, sharex=True)
    for row, noise in enumerate(noise_levels):
        rows = sweep[sweep["noise"] == noise]
        for policy, colour in POLICY_COLOURS.items():
            part = rows[rows["policy"] == policy].sort_values("prior")
            if part.empty:
                continue
            for col, (measured, analytic) in enumerate([("mean_steps", "analytic_steps"),
                                                        ("completion_rate", "analytic_completion")]):
                ax = axes[row, col]
                ax.plot(part["prior"], part[analytic], color=colour, linewidth=1.6,
                        linestyle="--" if policy == "expected_cost" else "-")
                ax.scatter(part["prior"], part[measured], color=colour, s=16, zorder=3)
        p_star = break_even.get(noise, np.nan)
        for col in range(2):
            if np.isfinite(p_star):
                axes[row, col].axvline(p_star, color="#555555", linestyle=":", linewidth=1.2)
        axes[row, 0].set_ylabel(f"noise {noise:g}\nsteps per run")
        axes[row, 1].set_ylabel("share completed")
        axes[row, 1].set_ylim(-0.05, 1.05)
    for col in range(2):
        axes[-1, col].set_xlabel("prior probability of a real change")
    handles = [Line2D([], [], color=c, linewidth=1.6, linestyle="--" if p == "expected_cost" else "-",
                      label=POLICY_LABELS[p]) for p, c in POLICY_COLOURS.items()]
    handles += [Line2D([], [], color="#555555", marker="o", linestyle="none", label="measured (dots; lines: closed form)"),
                Line2D([], [], color="#555555", linestyle=":", label="break-even prior")]
    legend_below(fig, handles, ncols=3)
    return fig


def exposure_figure(at_start: pd.DataFrame, later: pd.DataFrame, fitted_later: np.ndarray) -> Figure:
    """Doomed work against exposed size (everything breaking at tick 0), and what a shape fit leaves over.

    Parameters
    ----------
    at_start:
        Rows of :func:`cvlib.experiments.exposure.exposure_sweep` with every break at tick 0.
    later:
        Rows with the breaks at their random ticks.
    fitted_later:
        The fitted doomed work of ``later`` from size, depth and breadth.

    Returns
    -------
    matplotlib.figure.Figure
        Two stacked panels; the points are rasterized inside the SVG so a
        few thousand plans stay a small file.
    """
    import numpy as np

    fig, (top, bottom) = new_figure(2, 1, height=6.4)
    sc = top.scatter(at_start["exposed_size"], at_start["baseline_pfw"], c=at_start["exposed_depth"], cmap="viridis",
                     s=10, rasterized=True)
    limit = float(at_start["exposed_size"].max())
    top.plot([0, limit], [0, limit], color=ACCENTS["law"], linestyle="--", linewidth=1.0, label="PFW = exposed size")
    top.set_xlabel("exposed steps (size)")
    top.set_ylabel("baseline doomed steps")
    top.set_title("Every fact breaks at tick 0", loc="left")
    top.legend(loc="upper left", frameon=False)
    fig.colorbar(sc, ax=top, label="exposed depth (steps)")
    residual = later["baseline_pfw"].to_numpy(dtype=float) - np.asarray(fitted_later, dtype=float)
    bottom.scatter(fitted_later, residual, s=8, color=PALETTE["baseline"], alpha=0.5, rasterized=True)
    bottom.axhline(0, color=ACCENTS["law"], linewidth=0.8)
    bottom.set_xlabel("doomed steps fitted from size, depth and breadth")
    bottom.set_ylabel("measured − fitted (steps)")
    bottom.set_title("Facts break at random ticks", loc="left")
    return fig


def checker_figure(table: pd.DataFrame, x: str, metrics: Sequence[str], hue: str = "checker") -> Figure:
    """One small panel per measure, each series a checker (or a rate of change), two panels to a row.

    Parameters
    ----------
    table:
        Rows of :func:`cvlib.experiments.time_and_operational.ttl_sweep` or
        :func:`~cvlib.experiments.time_and_operational.operational_comparison`.
    x:
        The column on the x axis (``"ttl"``).
    metrics:
        The columns to plot, one panel each (names in :data:`METRIC_LABELS`).
    hue:
        The column that tells series apart: ``"checker"`` (named by
        :data:`CHECKER_LABELS`) or a rate (written as such).

    Returns
    -------
    matplotlib.figure.Figure
        Panels in a grid of two columns, one legend below.
    """
    from matplotlib.lines import Line2D

    if not metrics:
        raise ParameterError("checker_figure needs at least one metric")
    cols = 2 if len(metrics) > 1 else 1
    rows = -(-len(metrics) // cols)
    fig, axes = new_figure(rows, cols, height=2.35 * rows + 0.8, squeeze=False, sharex=True)
    series = list(dict.fromkeys(table[hue]))
    colours = _series_colours(hue, series)
    dashed = {name for name in series if hue == "checker" and name not in CHECKER_COLOURS}
    for ax, metric in zip(axes.flat, metrics):
        for name in series:
            part = table[table[hue] == name].sort_values(x)
            ax.plot(part[x], part[metric], marker="o", markersize=4, color=colours[name],
                    linestyle="--" if name in dashed else "-")
        ax.set_title(METRIC_LABELS.get(metric, metric.replace("_", " ")), fontsize=FONT_SIZES["text"], loc="left")
        if metric in {"completion_rate", "mean_scur"}:
            ax.set_ylim(-0.05, 1.05)
    for ax in axes.flat[len(metrics):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("time to live, TTL (ticks)" if x == "ttl" else x.replace("_", " "))
    handles = [Line2D([], [], color=colours[n], marker="o", markersize=4, linestyle="--" if n in dashed else "-",
                      label=_series_label(hue, n)) for n in series]
    legend_below(fig, handles, ncols=2)
    return fig


def _series_colours(hue: str, series: Sequence[Any]) -> dict[Any, str]:
    """A colour per series: the checkers' own, an executor's (dashed, a free colour if its own is taken), else in turn."""
    if hue != "checker":
        return {name: SERIES[k % len(SERIES)] for k, name in enumerate(series)}
    colours = {name: CHECKER_COLOURS[name] for name in series if name in CHECKER_COLOURS}
    for name in series:
        if name in colours:
            continue
        colour = policy_colour(str(name))
        if colour in colours.values():
            colour = next((c for c in EXECUTOR_COLOURS if c not in colours.values()), colour)
        colours[name] = colour
    return {name: colours[name] for name in series}


def checker_label(name: str) -> str:
    """A row of the operational comparison as a reader names it: a checker, or an executor beside them.

    Parameters
    ----------
    name : str
        A ``checker`` value of :func:`cvlib.experiments.time_and_operational.operational_comparison`.

    Returns
    -------
    str
        :data:`CHECKER_LABELS`' words, or e.g. ``"timestamp-only executor"``.
    """
    return CHECKER_LABELS.get(name, f"{policy_label(name).lower()} executor")


def _series_label(hue: str, name: Any) -> str:
    if hue == "checker":
        return checker_label(str(name))
    if hue == "rate":
        return f"silent-change rate {float(name):g} per tick"
    return str(name)


def change_figure(
    changed: pd.DataFrame, columns: Mapping[str, str] | None = None, wrap: int = 46, width: float = COLUMN_WIDTH_IN
) -> Figure:
    """Which published quantities change under which corrected rule (X5): one row per quantity.

    Parameters
    ----------
    changed:
        A frame of truth values, one row per published quantity (its index
        the quantity's name) and one column per corrected rule set.
    columns:
        Names for the columns as a reader sees them (default: as they are).
    wrap:
        Wrap the quantities' names at this many characters.
    width:
        The figure's width in inches; a phone's (narrower than the column) wraps
        the names at half of ``wrap`` and marks a cell ≠ (changes) or = (same).

    Returns
    -------
    matplotlib.figure.Figure
        A grid of cells, "changes" in colour and "same" in white.
    """
    import textwrap

    import numpy as np
    from matplotlib.colors import ListedColormap

    if changed.empty:
        raise ParameterError("change_figure needs at least one quantity")
    n = len(changed)
    narrow = width < COLUMN_WIDTH_IN
    names = [textwrap.fill(str(i), wrap // 2 if narrow else wrap) for i in changed.index]
    lines = sum(name.count("\n") + 1 for name in names)
    fig, ax = new_figure(height=0.19 * lines + 0.1 * n + 0.9 + 0.4 * narrow, width=width)
    values = changed.to_numpy(dtype=float)
    columns = dict(columns or {})
    ax.imshow(values, cmap=ListedColormap(["#FFFFFF", "#F4B183"]), vmin=0, vmax=1, aspect="auto")
    heads = [columns.get(str(c), str(c)) for c in changed.columns]
    ax.set_xticks(range(len(changed.columns)), [textwrap.fill(h.replace("_", " "), 9) if narrow else h for h in heads])
    ax.xaxis.tick_top()
    ax.set_yticks(range(n), names)
    ax.set_xticks(np.arange(-0.5, len(changed.columns)), minor=True)
    ax.set_yticks(np.arange(-0.5, n), minor=True)
    ax.grid(which="minor", color="#CCCCCC", linewidth=0.8)
    ax.grid(which="major", visible=False)
    ax.tick_params(which="minor", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    marks = ("≠", "=") if narrow else ("changes", "same")
    for (r, c), v in np.ndenumerate(values):
        ax.text(c, r, marks[0] if v else marks[1], ha="center", va="center", fontsize=_NOTE,
                color="black" if v else "#777777")
    if narrow:
        ax.set_xlabel("≠ changes, = same", fontsize=_NOTE)
    return redraw_narrow(fig, lambda phone: change_figure(changed, columns, wrap, width=phone))


def law_at_scale_figure(rows: pd.DataFrame) -> Figure:
    """What was drawn (plan sizes) and how the law fared (predicted against observed doomed work), stacked.

    Parameters
    ----------
    rows:
        :func:`cvlib.sweep`'s rows for a random family (``steps``,
        ``predicted_pfw``, ``baseline_pfw``).

    Returns
    -------
    matplotlib.figure.Figure
        Top: a histogram of plan sizes; bottom: one disc per (predicted,
        observed) pair, its area the number of plans, on linear axes.
    """
    import numpy as np

    if rows.empty:
        raise ParameterError("law_at_scale_figure needs at least one row")
    fig, (top, bottom) = new_figure(2, 1, height=6.4)
    bins = np.arange(0, rows["total_steps"].max() + 5, 5)
    top.hist(rows["total_steps"], bins=bins, color="#8C8C8C")
    top.set_xlabel("plan size (steps)")
    top.set_ylabel("plans")
    top.set_title("The plans drawn", loc="left")
    counts = rows.groupby(["predicted_pfw", "baseline_pfw"]).size().reset_index(name="plans")
    disc = bottom.scatter(counts["predicted_pfw"], counts["baseline_pfw"], s=12 + 4 * np.sqrt(counts["plans"]),
                          color=PALETTE["baseline"], alpha=0.8, label="baseline runs (disc area: plans)")
    limit = int(max(rows["predicted_pfw"].max(), rows["baseline_pfw"].max())) + 1
    line = bottom.plot([0, limit], [0, limit], color=ACCENTS["law"], linewidth=0.8, linestyle="--",
                       label="law: observed = predicted")[0]
    bottom.set_xlabel("doomed steps predicted (structure and break ticks)")
    bottom.set_ylabel("doomed steps observed")
    bottom.set_title("The law against the executor", loc="left")
    legend_below(fig, [disc, line], ncols=2)
    return fig


def _layers(plan: PlanGraph) -> dict[str, tuple[int, int]]:
    """Each step's (layer, row): the layer is its longest path from a source, the row its rank in the layer by numeric id."""
    depth: dict[str, int] = {}
    for step, _ in plan.ordered_steps():
        depth[step.id] = 1 + max((depth[p] for p in step.predecessors), default=-1)
    by_layer: dict[int, list[str]] = {}
    for step_id, layer in depth.items():
        by_layer.setdefault(layer, []).append(step_id)
    return {
        step_id: (layer, row)
        for layer, ids in by_layer.items()
        for row, step_id in enumerate(sorted(ids, key=numeric_id_key))
    }


def tie_break_figure(plan: PlanGraph, tie_breaks: Sequence[str] = ("string", "numeric")) -> Figure:
    """A plan drawn layer by layer, once per tie-break, each step marked by whether the baseline reaches it.

    The baseline executes the order up to its first action and stops there
    (under the article's rules), so a step placed after the action is never
    executed. Drawing the same plan under each tie-break shows where the
    string order puts the action too early.

    Parameters
    ----------
    plan:
        The plan (a small diamond: every step and link is drawn).
    tie_breaks:
        Tie-breaks (:data:`cvlib.core.graph.TIE_BREAKS`), one panel each, top to bottom.

    Returns
    -------
    matplotlib.figure.Figure
        Layers left to right; filled markers run before the action, the star
        is the action, hollow markers come after it and never run.
    """
    if not tie_breaks:
        raise ParameterError("tie_break_figure needs at least one tie-break")
    where = _layers(plan)
    rows = 1 + max(row for _, row in where.values())
    fig, axes = new_figure(len(tie_breaks), 1, height=(1.1 + 0.32 * rows) * len(tie_breaks) + 0.5, squeeze=False)
    titles = {"string": "Ids compared as strings (the article's order)", "numeric": "Ids compared as numbers"}
    handles: list[Any] = []
    for ax, tie_break in zip(axes[:, 0], tie_breaks):
        ordered = plan.with_tie_break(tie_break)
        order = ordered.topological_order()
        first = ordered.run_columns().actions[0]
        for step in plan:
            x1, y1 = where[step.id]
            for p in step.predecessors:
                x0, y0 = where[p]
                ax.plot([x0, x1], [y0, y1], color="#CCCCCC", linewidth=0.5, zorder=1)
        groups = {"ran": order[:first], "action": order[first : first + 1], "after": order[first + 1 :]}
        styles = {
            "ran": {"color": PALETTE["baseline"], "marker": "o", "s": 26, "label": "run before the action"},
            "action": {"color": ACCENTS["law"], "marker": "*", "s": 170, "label": "the action"},
            "after": {"facecolor": "white", "edgecolor": ACCENTS["law"], "marker": "o", "s": 34,
                      "label": "after it: never run"},
        }
        drawn = []
        for name, ids in groups.items():
            xs = [where[i][0] for i in ids]
            ys = [where[i][1] for i in ids]
            drawn.append(ax.scatter(xs, ys, zorder=3, linewidth=0.9, **styles[name]))
        if not handles:
            handles = drawn
        action_x, action_y = where[order[first]]
        after = len(order) - 1 - first
        ax.annotate(f"the action: {first} steps before it, {after} after it", (action_x, action_y),
                    xytext=(-10, 9), textcoords="offset points", ha="right", va="bottom", fontsize=_NOTE)
        ax.set_title(titles.get(tie_break, tie_break), loc="left")
        ax.set_xlabel("layer")
        ax.set_ylabel("step in layer")
        ax.set_ylim(rows - 0.5, -2.2)
        layers = 1 + max(layer for layer, _ in where.values())
        ax.set_xlim(-0.5, layers - 0.5)
        ax.set_xticks(range(layers))
        ax.set_yticks([])
        ax.grid(False)
    legend_below(fig, handles, ncols=3)
    return fig


__all__ = [
    "CHECKER_COLOURS",
    "CHECKER_LABELS",
    "LABELS",
    "METRIC_LABELS",
    "MODEL_LABELS",
    "POLICY_COLOURS",
    "POLICY_LABELS",
    "change_figure",
    "checker_figure",
    "checker_label",
    "exposure_figure",
    "law_at_scale_figure",
    "policy_figure",
    "tie_break_figure",
    "window_surface_figure",
]
