"""The figures of the chapters that reproduce the article, in the book's one style.

Each function takes results cvlib computed (a trace, a sweep DataFrame) and
returns a matplotlib :class:`~matplotlib.figure.Figure` drawn for the text
column (:mod:`cvlib.presentation.style`): a notebook ends a cell with it and
the page shows it at its natural size. Nothing here computes a result.

The style's names (:data:`~cvlib.presentation.style.PALETTE`,
:data:`~cvlib.presentation.style.LABELS`, :data:`~cvlib.presentation.style.ACCENTS`,
:func:`~cvlib.presentation.style.set_style`) are re-exported here, so ``cv.figures.set_style()`` and
``cv.figures.PALETTE`` keep working.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cvlib.core.errors import ParameterError
from cvlib.presentation.narrow_figures import redraw_narrow
from cvlib.presentation.style import (
    ACCENTS,
    COLUMN_WIDTH_IN,
    FONT_SIZES,
    LABELS,
    PALETTE,
    legend_below,
    new_figure,
    policy_colours,
    policy_label,
    set_style,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from cvlib.core.trace import Trace
    from cvlib.scenarios.setup import ScenarioRun

_NOTE = FONT_SIZES["annotation"]

#: How each scenario of the law's cases is named on the law figure.
SCENARIO_NAMES: dict[str, str] = {
    "D1": "Chains (D1)",
    "A": "Value change (A), change ticks 0–3",
    "D2": "Named topologies (D2)",
    "D3": "Isolated branches (D3)",
}


# -- the mechanism ---------------------------------------------------------------------


def mechanism_figure(
    traces: Mapping[str, Trace],
    markers: Sequence[tuple[int, str]] = (),
    budget: int | None = None,
    title: str | None = None,
    width: float = COLUMN_WIDTH_IN,
) -> Figure:
    """Each executor's step trace on one time axis, one lane each (top to bottom in order): the article's mechanism diagram.

    Every spent step is a box: a light box is a step on facts that still hold,
    a hatched box is doomed work (pre-failure work), ``?`` a paid
    verification, a solid box the action (``✗`` when it fails), a grey bar the
    replan. Dashed vertical lines mark when the world changed, so the reader
    sees the lanes run identically until then and diverge after.

    Parameters
    ----------
    traces:
        ``{"baseline": Trace, "validity_aware": Trace}`` from :func:`cvlib.core.trace.trace_both`
        (any executors, any number of them: one lane each, in the mapping's order).
    markers:
        ``(tick, label)`` pairs to mark, e.g. ``[(1, "price $420 → $610")]``:
        the moments the world changes. Labels are stacked so they never overlap.
    budget:
        Draw the step budget as a dotted line (None: do not).
    title:
        A title above the lanes (None: none; the caption usually says it).
    width:
        The figure's width in inches: the text column's, or a phone's
        (:data:`cvlib.presentation.narrow_figures.NARROW_WIDTH_IN`), where the
        steps are narrower and the legend one entry a line.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, 6.5 in wide.
    """
    from matplotlib.patches import Patch

    if not traces:
        raise ParameterError("mechanism_figure needs at least one trace, e.g. cv.trace.trace_both(setup)")
    names = list(traces)
    colours = policy_colours(names)
    markers = sorted(markers)
    total = max([e.end for t in traces.values() for e in t.entries] + [budget or 0, 1] + [t for t, _ in markers])
    unit = (width - 1.6) / (total + 1.7)  # inches per step, roughly
    placed, label_rows = _place_markers(markers, unit)
    lanes_top = len(names) - 0.6
    fig, ax = new_figure(height=2.9 + 0.28 * label_rows + 0.75 * max(len(names) - 2, 0) + (0.5 if width < COLUMN_WIDTH_IN else 0),
                         width=width)
    lanes = {name: len(names) - 1 - k for k, name in enumerate(names)}
    longest = max((len(e.step_id) for t in traces.values() for e in t.entries), default=0)
    label_boxes = 0.62 * _NOTE / 72 * longest <= 0.9 * unit  # step ids only where they fit under their box
    for name, lane in lanes.items():
        _draw_lane(ax, traces[name], lane, colours[name], unit, label_boxes)
    top = lanes_top + 0.32 * label_rows
    for tick, text, row in placed:
        ax.axvline(tick, ymax=(lanes_top + 0.32 * row + 0.12 + 0.8) / (top + 0.8), color=ACCENTS["event"],
                   linestyle="--", linewidth=1.4)
        # "$" would start matplotlib mathtext: prices must print as typed.
        # a white ground, so a later marker's line passes behind the label, not through it
        ax.text(tick + 0.08, lanes_top + 0.32 * row + 0.12, text.replace("$", r"\$"), color=ACCENTS["event"],
                fontsize=_NOTE, va="center", ha="left", zorder=5,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.6})
    if budget is not None:
        ax.axvline(budget, color="#333333", linestyle=":", linewidth=1.4)
        ax.text(budget - 0.08, -0.62, f"budget {budget}", fontsize=_NOTE, color="#333333", va="center", ha="right")
    ax.set_xlim(-0.2, total + 1.5)
    ax.set_ylim(-0.8, top + 0.1)
    ax.set_yticks(list(lanes.values()), [policy_label(name) for name in lanes])
    for tick, name in zip(ax.get_yticklabels(), lanes):
        tick.set_color(colours[name])
        tick.set_fontweight("bold")
    ax.set_xlabel("steps spent (the world's clock, in ticks)" if width >= COLUMN_WIDTH_IN else "steps spent (ticks)")
    ax.grid(axis="y", visible=False)
    ax.spines["left"].set_visible(False)
    handles = [
        Patch(facecolor="#888888", alpha=0.3, label="step on facts that hold"),
        Patch(facecolor="white", edgecolor="#444444", hatch="///", label="doomed step (pre-failure work)"),
        Patch(facecolor="white", edgecolor="#444444", label="verification (?)"),
        Patch(facecolor="#444444", label="action (✗: failed)"),
        Patch(facecolor=ACCENTS["replan"], label="replan"),
    ]
    legend_below(fig, handles, ncols=3 if width >= COLUMN_WIDTH_IN else 1)
    if title:
        ax.set_title(title)
    return redraw_narrow(fig, lambda narrow: mechanism_figure(traces, markers, budget, title, width=narrow))


def _place_markers(markers: Sequence[tuple[int, str]], unit: float) -> tuple[list[tuple[int, str, int]], int]:
    """Each marker's label with the row it sits in above the lanes (a new row whenever it would run into the previous label), and how many rows."""
    rows: list[float] = []  # per row, the x (in steps) where its last label ends
    placed = []
    for tick, label in markers:
        text = str(label)
        length = (0.55 * _NOTE / 72 * len(text)) / unit + 0.4  # label width in steps, generously
        row = next((r for r, end in enumerate(rows) if tick > end), len(rows))
        if row == len(rows):
            rows.append(0.0)
        rows[row] = tick + length
        placed.append((tick, text, row))
    return placed, len(rows)


def _step_style(kind: str, colour: str) -> dict[str, Any]:
    """How the mechanism figure draws each kind of step in an executor's colour (a replan is drawn apart)."""
    styles: dict[str, dict[str, Any]] = {
        "execute": {"facecolor": colour, "alpha": 0.30, "edgecolor": "white"},
        "doomed": {"facecolor": "white", "edgecolor": colour, "hatch": "///", "linewidth": 1.2},
        "action": {"facecolor": colour, "edgecolor": "white"},
        "action_failed": {"facecolor": "#222222", "edgecolor": "white"},
        "verify": {"facecolor": "white", "edgecolor": colour, "linewidth": 1.5},
        "verify_failed": {"facecolor": "white", "edgecolor": colour, "linewidth": 1.5},
    }
    return styles[kind]


def _draw_lane(ax: Any, trace: Trace, lane: float, colour: str, unit: float, label_boxes: bool) -> None:
    """One executor's steps as boxes on its lane: a replan as a grey bar, a verification as ``?``, a failed action as ``✗``."""
    from matplotlib.patches import Rectangle

    height = 0.6
    for e in trace.entries:
        y = lane - height / 2
        kind = str(e.kind)
        if kind == "replan":
            ax.add_patch(Rectangle((e.start, y), e.steps, height, facecolor=ACCENTS["replan"], edgecolor="white"))
            words = f"replan ({e.steps} steps)" if e.steps * unit > 1.25 else f"replan ({e.steps})"
            if e.steps * unit > 0.75:
                ax.text(e.start + e.steps / 2, lane, words, ha="center", va="center", fontsize=_NOTE, color="white")
            continue
        ax.add_patch(Rectangle((e.start + 0.04, y), e.steps - 0.08, height, **_step_style(kind, colour)))
        mark = {"verify": "?", "verify_failed": "?", "action_failed": "✗"}.get(kind)
        if mark:
            ax.text(e.start + 0.5, lane, mark, ha="center", va="center", fontsize=11, fontweight="bold",
                    color="white" if kind == "action_failed" else colour)
        elif label_boxes:
            ax.text(e.start + 0.5, lane - height / 2 - 0.04, e.step_id, ha="center", va="top",
                    fontsize=_NOTE, color="#444444")


# -- structure experiments ---------------------------------------------------------------


def pfw_vs_size_figure(
    depth: pd.DataFrame | None = None,
    topologies: pd.DataFrame | None = None,
    grid: pd.DataFrame | None = None,
) -> Figure:
    """Baseline doomed work against the number of steps the broken fact reaches.

    Every run lands on the dashed line PFW = closure size − 1, whatever its
    shape; the validity-aware executor sits at zero. Both axes are linear, so
    the law is the straight line it is. When the runs span more than about
    40 steps a second panel below shows the small plans close up, where the
    chains and the named topologies are labelled.

    Parameters
    ----------
    depth:
        :func:`cvlib.depth_sweep`'s DataFrame (the D1 chains), or None.
    topologies:
        Rows of :func:`cvlib.experiments.article.run_row` for the named
        topologies, with a ``label`` column, or None.
    grid:
        :func:`cvlib.topology_grid`'s DataFrame, or None.

    Returns
    -------
    matplotlib.figure.Figure
        One or two stacked panels, 6.5 in wide.
    """
    import numpy as np

    frames = [f for f in (depth, topologies, grid) if f is not None and len(f)]
    if not frames:
        raise ParameterError("pfw_vs_size_figure needs at least one non-empty DataFrame")
    largest = max(int(f["closure_size"].max()) for f in frames)
    small = [f for f in (depth, topologies) if f is not None and len(f)]
    close_up = largest > 40 and bool(small)
    if close_up:
        fig, (ax, zoom) = new_figure(2, 1, height=6.6)
        panels = [(ax, largest), (zoom, max(int(f["closure_size"].max()) for f in small))]
    else:
        fig, ax = new_figure(height=3.8)
        panels = [(ax, largest)]
    base = PALETTE["baseline"]
    handles = {}
    for k, (axis, limit) in enumerate(panels):
        pad = max(1.0, 0.06 * limit)
        xs = np.array([1.0, limit + pad])
        handles["law"] = axis.plot(xs, xs - 1, linestyle="--", color=ACCENTS["law"], linewidth=1.2,
                                   label="law: PFW = closure size − 1", zorder=1)[0]
        if grid is not None and len(grid):
            shown = grid[grid["closure_size"] <= limit]
            handles["grid"] = axis.scatter(shown["closure_size"], shown["baseline_pfw"], s=26, color=base, alpha=0.4,
                                           edgecolor="none", label=f"baseline, configuration grid ({len(grid)} plans)",
                                           zorder=2)
        if depth is not None and len(depth):
            handles["depth"] = axis.scatter(depth["closure_size"], depth["baseline_pfw"], s=42, marker="s", color=base,
                                            edgecolor="black", linewidth=0.6, label="baseline, chains (D1)", zorder=3)
        if topologies is not None and len(topologies):
            handles["topologies"] = axis.scatter(topologies["closure_size"], topologies["baseline_pfw"], s=80,
                                                 marker="D", color=base, edgecolor="black", linewidth=0.8,
                                                 label="baseline, named topologies (D2)", zorder=4)
            if k == len(panels) - 1:
                for _, row in topologies.iterrows():
                    axis.annotate(f"{row.get('label', '')}", (row["closure_size"], row["baseline_pfw"]),
                                  xytext=(8, -4), textcoords="offset points", ha="left", va="top", fontsize=_NOTE)
        va = np.concatenate([f[["closure_size", "validity_aware_pfw"]].to_numpy() for f in frames])
        va = va[va[:, 0] <= limit]
        handles["va"] = axis.scatter(va[:, 0], va[:, 1], s=24, marker="x", color=PALETTE["validity_aware"],
                                     linewidth=1.0, label="validity-aware, every run", zorder=3)
        axis.set_xlim(0, limit + pad)
        axis.set_ylim(-0.04 * (limit + pad), limit + pad)
        axis.set_xlabel("steps that depend on the broken fact (closure size)")
        axis.set_ylabel("doomed steps (PFW)")
    if close_up:
        ax.set_title("All runs", loc="left")
        panels[1][0].set_title(f"Close-up: plans of up to {panels[1][1]} dependent steps", loc="left")
    order = [h for key in ("law", "grid", "depth", "topologies", "va") if (h := handles.get(key)) is not None]
    legend_below(fig, order, ncols=2)
    return fig


def isolation_figure(isolation: pd.DataFrame) -> Figure:
    """Share of the plan exposed (bars) against absolute doomed steps (lines), per number of branches.

    Parameters
    ----------
    isolation:
        :func:`cvlib.isolation_sweep`'s DataFrame.

    Returns
    -------
    matplotlib.figure.Figure
        Bars fall as isolated branches are added; the baseline's doomed
        work does not move.
    """
    fig, ax = new_figure(height=3.9)
    positions = list(range(len(isolation)))
    bars = ax.bar(positions, isolation["exposed_pct"], color=ACCENTS["exposure"], alpha=0.75, width=0.55,
                  label="share of the plan exposed (left axis)")
    for pos, (_, row), bar in zip(positions, isolation.iterrows(), bars):
        ax.text(pos, bar.get_height() + 2, f"{row['exposed_pct']:.1f}%", ha="center", va="bottom", fontsize=_NOTE,
                color="black")
    ax.set_xticks(positions, [f"{int(r.num_branches)} ({int(r.total_steps)} steps)" for r in isolation.itertuples()])
    ax.set_xlabel("isolated branches (plan size)")
    ax.set_ylabel("plan exposed to the broken fact (%)")
    ax.set_ylim(0, 118)
    ax.grid(axis="x", visible=False)
    right = ax.twinx()
    shown = _policies_in(isolation, "pfw")
    colours = policy_colours(shown)
    for name in shown:
        right.plot(positions, isolation[f"{name}_pfw"], marker="o", color=colours[name], linewidth=2,
                   label=f"{policy_label(name).lower()} doomed steps (right axis)")
    for pos, value in zip(positions, isolation["baseline_pfw"]):
        right.annotate(str(int(value)), (pos, value), xytext=(0, 7), textcoords="offset points", ha="center",
                       color=PALETTE["baseline"], fontsize=_NOTE)
    top = max(int(isolation["baseline_pfw"].max()), 1)
    right.set_ylim(-0.05 * (top * 1.6 + 1), top * 1.6 + 1)
    right.set_ylabel("doomed steps (PFW)")
    right.grid(False)
    right.spines["right"].set_visible(True)
    legend_below(fig, [bars, *right.get_lines()], ncols=2)
    return fig


# -- outcomes ------------------------------------------------------------------------------


def budget_sweep_figure(sweep: pd.DataFrame, window: Sequence[int]) -> Figure:
    """Whether each executor completes as the budget shrinks, the separation window shaded.

    Parameters
    ----------
    sweep:
        :func:`cvlib.budget_sweep`'s DataFrame.
    window:
        The budgets of :func:`cvlib.separation_window` (where only the
        validity-aware executor completes).

    Returns
    -------
    matplotlib.figure.Figure
        The x axis runs from generous to tight, as the sweep does.
    """
    fig, ax = new_figure(height=3.2)
    shown = _policies_in(sweep, "completed")
    colours = policy_colours(shown)
    for k, name in enumerate(shown):
        offset = 0.04 - 0.08 * k / (len(shown) - 1) if len(shown) > 1 else 0.0  # lines that coincide stay visible
        y = sweep[f"{name}_completed"].astype(int) + offset
        ax.plot(sweep["budget"], y, marker="o", drawstyle="steps-mid", color=colours[name], linewidth=2,
                label=policy_label(name))
    if len(window):
        lo, hi = min(window), max(window)
        ax.axvspan(lo - 0.5, hi + 0.5, color=ACCENTS["window"], alpha=0.18, zorder=0)
        ax.text((lo + hi) / 2, 0.5, "only validity-aware\ncompletes", ha="center", va="center", fontsize=_NOTE,
                color="#1F4E79")
    ax.set_xticks(list(sweep["budget"]))
    ax.set_xlim(max(sweep["budget"]) + 0.7, min(sweep["budget"]) - 0.7)
    ax.set_yticks([0, 1], ["fails", "completes"])
    ax.set_ylim(-0.3, 1.3)
    ax.set_xlabel("step budget (generous → tight)")
    legend_below(fig, ax.get_lines(), ncols=min(len(shown), 3))
    return fig


def _policies_in(frame: pd.DataFrame, metric: str) -> list[str]:
    """The executors with a ``{policy}_{metric}`` column in ``frame``, in column order."""
    suffix = f"_{metric}"
    names = [c[: -len(suffix)] for c in frame.columns if c.endswith(suffix) and c != f"predicted{suffix}"]
    if not names:
        raise ParameterError(f"no executor columns ending {suffix!r}; the frame has {list(frame.columns)}")
    return names


def steps_comparison_figure(runs: Mapping[str, ScenarioRun]) -> Figure:
    """Steps each executor used, scenario by scenario, its verifications written on the bar.

    Parameters
    ----------
    runs:
        A display label for each :class:`~cvlib.scenarios.setup.ScenarioRun`.

    Returns
    -------
    matplotlib.figure.Figure
        Grouped bars, baseline and validity-aware side by side.
    """
    import numpy as np

    labels = list(runs)
    if not labels:
        raise ParameterError("steps_comparison_figure needs at least one run")
    fig, ax = new_figure(height=3.4)
    x = np.arange(len(labels))
    shown = [n for n in runs[labels[0]].results if all(n in r.results for r in runs.values())]
    colours = policy_colours(shown)
    width = 0.72 / len(shown)
    for k, name in enumerate(shown):
        results = [runs[label].results[name] for label in labels]
        pos = x + (k - (len(shown) - 1) / 2) * width
        ax.bar(pos, [r.steps_used for r in results], width, color=colours[name], label=policy_label(name))
        for p, r in zip(pos, results):
            note = f"{r.steps_used}"
            if r.verifications:
                note += f"\n({r.verifications} verif.)"
            ax.text(p, r.steps_used + 0.15, note, ha="center", va="bottom", fontsize=_NOTE)
    ax.set_xticks(x, labels)
    ax.set_ylabel("steps used")
    top = max(r.results[n].steps_used for r in runs.values() for n in shown)
    ax.set_ylim(0, top * 1.4 + 1)
    ax.grid(axis="x", visible=False)
    legend_below(fig, ax.patches[:: len(labels)], [policy_label(n) for n in shown], ncols=min(len(shown), 3))
    return fig


def law_figure(law: pd.DataFrame) -> Figure:
    """Doomed work predicted from structure alone against the baseline's measured doomed work, one point per case.

    Parameters
    ----------
    law:
        :func:`cvlib.check_law`'s DataFrame.

    Returns
    -------
    matplotlib.figure.Figure
        Matches sit on the diagonal (linear axes, so it stays a straight
        line); a mismatch, if any, is drawn as a cross of its own.
    """
    fig, ax = new_figure(height=4.0)
    top = int(max(law["expected_pfw"].max(), law["actual_pfw"].max()))
    limit = top * 1.08 + 1
    ax.plot([0, limit], [0, limit], linestyle="--", color=ACCENTS["law"], linewidth=1.0, label="measured = predicted")
    markers = {"D1": "s", "A": "o", "D2": "D", "D3": "^"}
    for scenario, rows in law.groupby("scenario", sort=False):
        ok = rows[rows["match"]]
        bad = rows[~rows["match"]]
        ax.scatter(ok["expected_pfw"], ok["actual_pfw"], s=60, marker=markers.get(scenario, "o"),
                   color=PALETTE["baseline"], edgecolor="black", linewidth=0.6, alpha=0.85,
                   label=SCENARIO_NAMES.get(scenario, str(scenario)))
        if len(bad):
            ax.scatter(bad["expected_pfw"], bad["actual_pfw"], s=80, marker="x", color="black",
                       label=f"{SCENARIO_NAMES.get(scenario, scenario)}: mismatch")
    ax.set_xlim(-0.04 * limit, limit)
    ax.set_ylim(-0.04 * limit, limit)
    ax.set_xlabel("doomed steps predicted from the plan's structure")
    ax.set_ylabel("doomed steps measured (baseline run)")
    legend_below(fig, ax.get_legend_handles_labels()[0], ncols=2)
    return fig


__all__ = [
    "ACCENTS",
    "LABELS",
    "PALETTE",
    "SCENARIO_NAMES",
    "budget_sweep_figure",
    "isolation_figure",
    "law_figure",
    "mechanism_figure",
    "pfw_vs_size_figure",
    "set_style",
    "steps_comparison_figure",
]
