"""Figures for the "Beyond the article" chapters (X1-X5).

Same look as :mod:`cvlib.presentation.figures` (call :func:`cvlib.presentation.figures.set_style` first);
executor colours come from :data:`cvlib.presentation.figures.PALETTE`, and the extra
categories these chapters need get their own named colours here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from cvlib.presentation.figures import LABELS, PALETTE

#: Colours for verification policies (X2), colour-blind-safe (Okabe-Ito).
POLICY_COLOURS: dict[str, str] = {"always": "#0072B2", "never": "#D55E00", "expected_cost": "#009E73"}
#: Colours for the freshness checkers (X4), colour-blind-safe; the baseline keeps the book's colour.
CHECKER_COLOURS: dict[str, str] = {
    "timestamp": "#E69F00",
    "timestamp_laundering": "#CC79A7",
    "dependency": "#009E73",
    "baseline": PALETTE["baseline"],
}
#: Legend labels for the recovery models (X1).
MODEL_LABELS: dict[str, str] = {"flat": "flat (article)", "redo_affected": "redo affected", "subplan": "sub-plan"}


def window_surface_figure(panels: Sequence[tuple[str, pd.DataFrame]], vmax: int | None = None):
    """One heatmap of budget-window width (depth x change tick) per (title, surface) panel."""
    import matplotlib.pyplot as plt

    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.0 * cols, 3.4 * rows), squeeze=False)
    if vmax is None:
        vmax = int(max(df["width"].max() for _, df in panels))
    all_depths = sorted({int(d) for _, df in panels for d in df["depth"]})
    all_ticks = sorted({int(t) for _, df in panels for t in df["change_tick"]})
    image = None
    for ax, (title, df) in zip(axes.flat, panels):
        grid = df.pivot(index="depth", columns="change_tick", values="width").reindex(index=all_depths, columns=all_ticks)
        image = ax.imshow(grid.to_numpy(dtype=float), origin="lower", cmap="viridis", vmin=0, vmax=vmax, aspect="auto")
        ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns])
        ax.set_yticks(range(len(grid.index)), [str(d) for d in grid.index])
        ax.set_title(title, fontsize=10)
        ax.grid(False)
        for (r, c), value in np.ndenumerate(grid.to_numpy(dtype=float)):
            if not np.isnan(value):
                ax.text(c, r, f"{int(value)}", ha="center", va="center", fontsize=7,
                        color="white" if value < 0.6 * vmax else "black")
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("change tick")
    for ax in axes[:, 0]:
        ax.set_ylabel("depth (steps)")
    fig.colorbar(image, ax=axes, shrink=0.8, label="window width (budgets)")
    return fig


def policy_figure(sweep: pd.DataFrame, noise_levels: Sequence[float], break_even: dict[float, float]):
    """Expected steps and completion rate vs prior, measured points over analytic lines, one column per noise."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(noise_levels), figsize=(4.2 * len(noise_levels), 6.4), squeeze=False, sharex=True)
    for col, noise in enumerate(noise_levels):
        rows = sweep[sweep["noise"] == noise]
        for policy, colour in POLICY_COLOURS.items():
            part = rows[rows["policy"] == policy].sort_values("prior")
            if part.empty:
                continue
            for row, (measured, analytic) in enumerate(
                [("mean_steps", "analytic_steps"), ("completion_rate", "analytic_completion")]
            ):
                ax = axes[row, col]
                ax.plot(part["prior"], part[analytic], color=colour, linewidth=1.6,
                        linestyle="--" if policy == "expected_cost" else "-",
                        label=f"{policy} (analytic)" if col == 0 and row == 0 else None)
                ax.scatter(part["prior"], part[measured], color=colour, s=18, zorder=3,
                           label=f"{policy} (measured)" if col == 0 and row == 0 else None)
        p_star = break_even.get(noise, np.nan)
        for row in range(2):
            if np.isfinite(p_star):
                axes[row, col].axvline(p_star, color="grey", linestyle=":", linewidth=1)
        axes[0, col].set_title(f"noise = {noise:g} (miss = false alarm)", fontsize=10)
        axes[1, col].set_xlabel("prior probability of a real change")
        axes[1, col].set_ylim(-0.05, 1.05)
    axes[0, 0].set_ylabel("mean steps used")
    axes[1, 0].set_ylabel("completion rate")
    fig.legend(loc="lower center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, -0.04))
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def exposure_figure(at_start: pd.DataFrame, later: pd.DataFrame, fitted_later: np.ndarray):
    """Left: PFW against exposed size when everything breaks at the start, coloured by exposed depth.
    Right: with breaks after the start, the residual of a size/depth/breadth fit against the fitted value."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    sc = left.scatter(at_start["exposed_size"], at_start["baseline_pfw"], c=at_start["exposed_depth"], cmap="viridis", s=10)
    top = float(at_start["exposed_size"].max())
    left.plot([0, top], [0, top], color="black", linestyle="--", linewidth=0.8, label="PFW = exposed size")
    left.set_xlabel("exposed size (steps)")
    left.set_ylabel("baseline PFW (steps)")
    left.set_title("everything breaks at tick 0", fontsize=10)
    left.legend(fontsize=8, loc="upper left")
    fig.colorbar(sc, ax=left, label="exposed depth")
    right.scatter(fitted_later, later["baseline_pfw"].to_numpy(dtype=float) - fitted_later, s=8,
                  color=PALETTE["baseline"], alpha=0.5)
    right.axhline(0, color="black", linewidth=0.8)
    right.set_xlabel("fitted PFW from size, depth and breadth")
    right.set_ylabel("residual (steps)")
    right.set_title("breaks at random ticks", fontsize=10)
    fig.tight_layout()
    return fig


def checker_figure(table: pd.DataFrame, x: str, metrics: Sequence[str], hue: str = "checker"):
    """One small panel per metric: metric vs ``x`` for each checker."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(metrics), figsize=(3.6 * len(metrics), 3.4), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        for name, part in table.groupby(hue, sort=False):
            part = part.sort_values(x)
            ax.plot(part[x], part[metric], marker="o", color=CHECKER_COLOURS.get(name), label=str(name))
        ax.set_xlabel(x.replace("_", " "))
        ax.set_title(metric.replace("_", " "), fontsize=10)
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    return fig


__all__ = ["CHECKER_COLOURS", "LABELS", "MODEL_LABELS", "POLICY_COLOURS", "checker_figure", "exposure_figure",
           "policy_figure", "window_surface_figure"]
