"""One look for every figure in the book, and the figures themselves.

Baseline and validity-aware keep the same colours on every page, so a reader
who learned them in chapter one never has to read a legend again. Each figure
function takes results cvlib computed (a trace, a sweep DataFrame) and returns
a matplotlib :class:`~matplotlib.figure.Figure`; notebooks stay thin, and the
figures are tested like any other code. Nothing here computes a result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from cvlib.core.trace import Trace
    from cvlib.scenarios.setup import ScenarioRun

#: Executor colours, used by every figure (colour-blind-safe pair).
PALETTE: dict[str, str] = {"baseline": "#D55E00", "validity_aware": "#0072B2"}

#: Display names for the executors.
LABELS: dict[str, str] = {"baseline": "Baseline", "validity_aware": "Validity-aware"}

#: Colours for things that belong to neither executor (Okabe-Ito, like the pair above).
ACCENTS: dict[str, str] = {
    "exposure": "#CC79A7",  # share of a plan a broken fact can reach
    "replan": "#999999",  # the flat recovery cost both executors pay
    "event": "#009E73",  # the moment the world changes
    "law": "#555555",  # the closed-form prediction
    "window": "#56B4E9",  # budgets where only validity-aware completes
}

_EXECUTORS = ("baseline", "validity_aware")


def set_style() -> None:
    """Apply the book's seaborn theme; call once at the top of a notebook."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook")
    mpl.rcParams.update(
        {
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "figure.figsize": (7.0, 4.0),
            "axes.titleweight": "bold",
            "svg.hashsalt": "cvbook",
        }
    )


def _new(figsize: tuple[float, float] | None = None, **kwargs):
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize, **kwargs)


# -- the mechanism ---------------------------------------------------------------------


def mechanism_figure(
    traces: Mapping[str, Trace],
    markers: Sequence[tuple[int, str]] = (),
    budget: int | None = None,
    title: str | None = None,
) -> Figure:
    """Both executors' step traces on one time axis, one lane each.

    Every spent step is a box: a light box is a step on facts that still hold,
    a hatched box is doomed work (pre-failure work), ``?`` a paid
    verification, a solid box the action (``✗`` when it fails), a grey bar the
    replan. Vertical lines mark when the world changed, so the reader sees the
    lanes run identically until then and diverge after.

    Parameters
    ----------
    traces:
        ``{"baseline": Trace, "validity_aware": Trace}`` from :func:`cvlib.core.trace.trace_both`.
    markers:
        ``(tick, label)`` pairs to mark, e.g. ``[(1, "F1: $420 → $610")]``:
        the moments the world changes.
    budget:
        Draw the step budget as a dotted line (None: do not).
    """
    from matplotlib.patches import Patch, Rectangle

    missing = [name for name in _EXECUTORS if name not in traces]
    if missing:
        raise ParameterError(f"mechanism_figure needs traces for {', '.join(_EXECUTORS)}; missing {missing}")
    total = max([e.end for t in traces.values() for e in t.entries] + [budget or 0, 1] + [t for t, _ in markers])
    label_boxes = total <= 24
    fig, ax = _new((max(7.0, min(13.0, 0.45 * total + 3.0)), 3.6))
    lanes = {"baseline": 1, "validity_aware": 0}
    height = 0.6
    for name, lane in lanes.items():
        colour = PALETTE[name]
        for e in traces[name].entries:
            y = lane - height / 2
            kind = str(e.kind)
            if kind == "replan":
                ax.add_patch(Rectangle((e.start, y), e.steps, height, facecolor=ACCENTS["replan"], edgecolor="white"))
                ax.text(e.start + e.steps / 2, lane, f"replan ({e.steps})", ha="center", va="center", fontsize=8, color="white")
                continue
            style = {
                "execute": {"facecolor": colour, "alpha": 0.30, "edgecolor": "white"},
                "doomed": {"facecolor": "white", "edgecolor": colour, "hatch": "///", "linewidth": 1.2},
                "action": {"facecolor": colour, "edgecolor": "white"},
                "action_failed": {"facecolor": "#222222", "edgecolor": "white"},
                "verify": {"facecolor": "white", "edgecolor": colour, "linewidth": 1.5},
                "verify_failed": {"facecolor": "white", "edgecolor": colour, "linewidth": 1.5},
            }[kind]
            ax.add_patch(Rectangle((e.start + 0.04, y), e.steps - 0.08, height, **style))
            mark = {"verify": "?", "verify_failed": "?", "action_failed": "✗"}.get(kind)
            if mark:
                ax.text(e.start + 0.5, lane, mark, ha="center", va="center", fontsize=11, fontweight="bold",
                        color="white" if kind == "action_failed" else colour)
            elif label_boxes:
                ax.text(e.start + 0.5, lane - height / 2 - 0.08, e.step_id, ha="center", va="top", fontsize=7, color="#444444")
    for k, (tick, label) in enumerate(markers):
        ax.axvline(tick, color=ACCENTS["event"], linestyle="--", linewidth=1.5)
        # "$" would start matplotlib mathtext: prices must print as typed.
        ax.text(tick + 0.05, 1.58 - 0.2 * (k % 2), str(label).replace("$", r"\$"), color=ACCENTS["event"],
                fontsize=9, va="center")
    if budget is not None:
        ax.axvline(budget, color="#333333", linestyle=":", linewidth=1.2)
        ax.text(budget + 0.05, -0.55, f"budget {budget}", fontsize=8, color="#333333", va="center")
    ax.set_xlim(-0.2, total + 1.5)
    ax.set_ylim(-0.75, 1.75)
    ax.set_yticks([1, 0], [LABELS["baseline"], LABELS["validity_aware"]])
    for tick, name in zip(ax.get_yticklabels(), ("baseline", "validity_aware")):
        tick.set_color(PALETTE[name])
        tick.set_fontweight("bold")
    ax.set_xlabel("steps spent (world tick)")
    ax.grid(axis="y", visible=False)
    handles = [
        Patch(facecolor="#888888", alpha=0.3, label="step on valid facts"),
        Patch(facecolor="white", edgecolor="#444444", hatch="///", label="doomed step (PFW)"),
        Patch(facecolor="white", edgecolor="#444444", label="verification (?)"),
        Patch(facecolor="#444444", label="action (✗ = failed)"),
        Patch(facecolor=ACCENTS["replan"], label="replan"),
    ]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=3, fontsize=8, frameon=False)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


# -- structure experiments ---------------------------------------------------------------


def _plain_symlog(ax) -> None:
    """Symmetric-log axes (zero stays on the chart) with ticks written as plain integers."""
    from matplotlib.ticker import FuncFormatter

    for axis, setter in ((ax.xaxis, ax.set_xscale), (ax.yaxis, ax.set_yscale)):
        setter("symlog", linthresh=1)
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))


def pfw_vs_size_figure(
    depth: pd.DataFrame | None = None,
    topologies: pd.DataFrame | None = None,
    grid: pd.DataFrame | None = None,
) -> Figure:
    """Baseline PFW against the number of steps the broken fact reaches.

    Every run lands on the dashed line PFW = size − 1 whatever its shape;
    validity-aware sits at zero. Inputs are the DataFrames of
    :func:`cvlib.depth_sweep`, rows of :func:`cvlib.experiments.article.run_row` for the
    named topologies (with a ``label`` column), and :func:`cvlib.topology_grid`;
    any may be None. Both axes are symmetric-log so the zero line and plans of
    hundreds of steps fit on one chart.
    """
    import numpy as np

    frames = [f for f in (depth, topologies, grid) if f is not None and len(f)]
    if not frames:
        raise ParameterError("pfw_vs_size_figure needs at least one non-empty DataFrame")
    fig, ax = _new((7.5, 4.8))
    base = PALETTE["baseline"]
    largest = max(int(f["closure_size"].max()) for f in frames)
    xs = np.unique(np.concatenate([np.arange(1, 11), np.geomspace(1, largest * 1.2, 200)]))
    ax.plot(xs, xs - 1, linestyle="--", color=ACCENTS["law"], linewidth=1.2, label="PFW = size − 1", zorder=1)
    if grid is not None and len(grid):
        ax.scatter(grid["closure_size"], grid["baseline_pfw"], s=28, color=base, alpha=0.35, edgecolor="none",
                   label=f"grid: {len(grid)} branching configs", zorder=2)
    if depth is not None and len(depth):
        ax.scatter(depth["closure_size"], depth["baseline_pfw"], s=46, marker="s", color=base, edgecolor="black",
                   linewidth=0.6, label="D1 chains", zorder=3)
    if topologies is not None and len(topologies):
        ax.scatter(topologies["closure_size"], topologies["baseline_pfw"], s=90, marker="D", color=base,
                   edgecolor="black", linewidth=0.8, label="D2 named topologies", zorder=4)
        for k, (_, row) in enumerate(topologies.iterrows()):
            # alternate sides so neighbouring labels do not overlap
            left = k % 2 == 0
            ax.annotate(str(row.get("label", "")), (row["closure_size"], row["baseline_pfw"]),
                        xytext=(-10, 6) if left else (10, -10), textcoords="offset points",
                        ha="right" if left else "left", fontsize=8)
    va = np.concatenate([f[["closure_size", "validity_pfw"]].to_numpy() for f in frames])
    ax.scatter(va[:, 0], va[:, 1], s=22, marker="x", color=PALETTE["validity_aware"], linewidth=1.0,
               label="validity-aware (every run)", zorder=3)
    _plain_symlog(ax)
    ax.set_xlim(0.8, largest * 1.4)
    ax.set_ylim(-0.3, largest * 1.4)
    ax.set_xlabel("steps the broken fact reaches (closure size)")
    ax.set_ylabel("baseline pre-failure work (steps)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig


def isolation_figure(isolation: pd.DataFrame) -> Figure:
    """Share of the plan exposed (bars) against absolute doomed steps (lines), per branch count.

    ``isolation`` is :func:`cvlib.isolation_sweep`'s DataFrame. The bars fall
    as isolated branches are added; the baseline's doomed work does not move.
    """
    fig, ax = _new((7.0, 4.2))
    positions = list(range(len(isolation)))
    bars = ax.bar(positions, isolation["exposed_pct"], color=ACCENTS["exposure"], alpha=0.75, width=0.55,
                  label="plan exposed (%)")
    for pos, (_, row), bar in zip(positions, isolation.iterrows(), bars):
        ax.text(pos, bar.get_height() + 2, f"{row['exposed_pct']:.1f}%", ha="center", fontsize=9)
    ax.set_xticks(positions, [f"{int(r.num_branches)}\n({int(r.total_nodes)} steps)" for r in isolation.itertuples()])
    ax.set_xlabel("isolated branches (plan size)")
    ax.set_ylabel("plan exposed to the broken fact (%)", color=ACCENTS["exposure"])
    ax.set_ylim(0, 115)
    ax.grid(axis="x", visible=False)
    right = ax.twinx()
    right.plot(positions, isolation["baseline_pfw"], marker="o", color=PALETTE["baseline"], linewidth=2,
               label="baseline doomed steps")
    right.plot(positions, isolation["validity_pfw"], marker="o", color=PALETTE["validity_aware"], linewidth=2,
               label="validity-aware doomed steps")
    for pos, value in zip(positions, isolation["baseline_pfw"]):
        right.annotate(str(int(value)), (pos, value), xytext=(0, 7), textcoords="offset points", ha="center",
                       color=PALETTE["baseline"], fontsize=9)
    top = max(int(isolation["baseline_pfw"].max()), 1)
    right.set_ylim(-0.5, top * 1.6 + 1)
    right.set_ylabel("doomed steps (PFW)")
    right.grid(False)
    handles = [bars, *right.get_lines()]
    ax.legend(handles, [h.get_label() for h in handles], loc="upper right", fontsize=8)
    fig.tight_layout()
    return fig


# -- outcomes ------------------------------------------------------------------------------


def budget_sweep_figure(sweep: pd.DataFrame, window: Sequence[int]) -> Figure:
    """Completion (yes/no) of each executor as the budget shrinks, the separation window shaded.

    ``sweep`` is :func:`cvlib.budget_sweep`'s DataFrame and ``window`` the
    budgets of :func:`cvlib.separation_window` (where only validity-aware
    completes). The x axis runs from generous to tight, as the sweep does.
    """
    fig, ax = _new((7.0, 3.8))
    offsets = {"baseline": 0.03, "validity_aware": -0.03}
    for name, column in (("baseline", "baseline_completed"), ("validity_aware", "validity_completed")):
        y = sweep[column].astype(int) + offsets[name]
        ax.plot(sweep["budget"], y, marker="o", drawstyle="steps-mid", color=PALETTE[name], linewidth=2,
                label=LABELS[name])
    if len(window):
        lo, hi = min(window), max(window)
        ax.axvspan(lo - 0.5, hi + 0.5, color=ACCENTS["window"], alpha=0.18, zorder=0)
        ax.text((lo + hi) / 2, 0.5, "only validity-aware\ncompletes", ha="center", va="center", fontsize=9,
                color="#1F4E79")
    ax.set_xticks(list(sweep["budget"]))
    ax.set_xlim(max(sweep["budget"]) + 0.7, min(sweep["budget"]) - 0.7)
    ax.set_yticks([0, 1], ["fails", "completes"])
    ax.set_ylim(-0.3, 1.3)
    ax.set_xlabel("step budget (generous → tight)")
    ax.legend(loc="center left", fontsize=9)
    fig.tight_layout()
    return fig


def steps_comparison_figure(runs: Mapping[str, ScenarioRun]) -> Figure:
    """Steps used by each executor, scenario by scenario, verifications marked.

    ``runs`` maps a display label to a :class:`~cvlib.scenarios.setup.ScenarioRun`.
    """
    import numpy as np

    labels = list(runs)
    fig, ax = _new((max(5.0, 2.2 * len(labels) + 2.0), 3.8))
    x = np.arange(len(labels))
    width = 0.36
    for k, name in enumerate(_EXECUTORS):
        results = [getattr(runs[label], name) for label in labels]
        steps = [r.steps_used for r in results]
        pos = x + (k - 0.5) * width
        ax.bar(pos, steps, width, color=PALETTE[name], label=LABELS[name])
        for p, r in zip(pos, results):
            note = f"{r.steps_used}" + (f"\n({r.verifications} verif.)" if r.verifications else "")
            ax.text(p, r.steps_used + 0.15, note, ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, labels)
    ax.set_ylabel("steps used")
    top = max(getattr(r, n).steps_used for r in runs.values() for n in _EXECUTORS)
    ax.set_ylim(0, top * 1.35 + 1)
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper right", fontsize=9)
    fig.tight_layout()
    return fig


def law_figure(law: pd.DataFrame) -> Figure:
    """Predicted PFW (from structure alone) against the baseline's measured PFW, one point per case.

    ``law`` is :func:`cvlib.check_law`'s DataFrame; matches sit on the diagonal
    and a mismatch, if any, is drawn as a red cross.
    """
    import numpy as np

    fig, ax = _new((5.8, 4.8))
    top = int(max(law["expected_pfw"].max(), law["actual_pfw"].max()))
    xs = np.linspace(0, top * 1.2 + 1, 50)
    ax.plot(xs, xs, linestyle="--", color=ACCENTS["law"], linewidth=1.0, label="measured = predicted")
    markers = {"D1": "s", "A": "o", "D2": "D", "D3": "^"}
    for scenario, rows in law.groupby("scenario", sort=False):
        ok = rows[rows["match"]]
        bad = rows[~rows["match"]]
        ax.scatter(ok["expected_pfw"], ok["actual_pfw"], s=60, marker=markers.get(scenario, "o"),
                   color=PALETTE["baseline"], edgecolor="black", linewidth=0.6, alpha=0.8, label=f"{scenario} cases")
        if len(bad):
            ax.scatter(bad["expected_pfw"], bad["actual_pfw"], s=80, marker="x", color="red", label=f"{scenario} mismatch")
    _plain_symlog(ax)
    ax.set_xlabel("PFW predicted from the plan's structure")
    ax.set_ylabel("PFW measured (baseline run)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig
