"""Figures of the two notes chapters, drawn here so the notebooks only call them.

matplotlib is imported inside each function, so importing :mod:`cvlib.notes`
never loads it. Every function returns the figure; in a notebook the inline
backend shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .history import STATUS_COLOURS, STATUS_ORDER

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

#: The symbol-only and dependency-aware gates in every figure.
GATE_COLOURS: dict[str, str] = {"symbol-only": "#E69F00", "dependency-aware": "#0072B2"}
#: Stale notes shown (warn policies) against withheld (the gate), as in the book's executor palette.
POLICY_COLOURS: dict[str, str] = {"stale": "#D55E00", "true": "#0072B2", "verify": "#E69F00", "gate": "#0072B2",
                                   "symbol": "#CC79A7"}
PROJECT_COLOURS: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00")


def _plt():
    import matplotlib.pyplot as plt

    return plt


def step_status_figure(steps: pd.DataFrame, versions: Mapping[str, Sequence[str]], projects: Sequence[str]) -> Figure:
    """Per project, per release step: the share of notes in each non-FRESH status (dependency-aware gate)."""
    plt = _plt()
    fig, axes = plt.subplots(len(projects), 1, figsize=(8, 2.6 * len(projects)), squeeze=False)
    shown = [s for s in STATUS_ORDER[1:] if s in steps.columns and steps[s].sum() > 0]
    for ax, project in zip(axes[:, 0], projects):
        rows = steps[steps["project"] == project].reset_index(drop=True)
        bottom = [0.0] * len(rows)
        for status in shown:
            heights = (100 * rows[status]).tolist()
            ax.bar(rows.index, heights, bottom=bottom, color=STATUS_COLOURS[status], label=status, width=0.8)
            bottom = [b + h for b, h in zip(bottom, heights)]
        names = versions[project]
        ax.set_xticks(rows.index, [names[j] for j in rows["to_release"]], rotation=60, fontsize=8)
        ax.set_ylabel("% of notes")
        ax.set_ylim(0, 100)
        ax.set_title(f"{project}: notes not FRESH one release later", fontsize=10)
    axes[0, 0].legend(ncol=3, fontsize=8, loc="upper left")
    axes[-1, 0].set_xlabel("release the notes are checked against (anchored one release earlier)")
    fig.tight_layout()
    return fig


def survival_figure(dependency: pd.DataFrame, symbol: pd.DataFrame, projects: Sequence[str]) -> Figure:
    """Share of notes FRESH at every release so far: dependency-aware gate solid, symbol-only dashed."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    for project, colour in zip(projects, PROJECT_COLOURS):
        for frame, style, gate in ((dependency, "-", "dependency-aware"), (symbol, "--", "symbol-only")):
            rows = frame[frame["project"] == project]
            ax.step([0] + rows["horizon"].tolist(), [100] + (100 * rows["surviving"]).tolist(), where="post",
                    linestyle=style, color=colour, label=f"{project}, {gate}")
    ax.set_xlabel("releases after the note was anchored")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("% of notes FRESH at every release so far")
    ax.set_ylim(0, 102)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    return fig


def gate_comparison_figure(comparison: pd.DataFrame, versions: Mapping[str, Sequence[str]], projects: Sequence[str]) -> Figure:
    """Per release step: notes withheld per 100 under each gate; the gap is what the symbol-only gate showed stale."""
    plt = _plt()
    fig, axes = plt.subplots(len(projects), 1, figsize=(8, 2.6 * len(projects)), squeeze=False)
    width = 0.4
    for ax, project in zip(axes[:, 0], projects):
        rows = comparison[comparison["project"] == project].reset_index(drop=True)
        x = list(range(len(rows)))
        symbol = (100 * rows["withheld_symbol"] / rows["notes"]).tolist()
        dependency = (100 * rows["withheld_dependency"] / rows["notes"]).tolist()
        ax.bar([i - width / 2 for i in x], symbol, width, color=GATE_COLOURS["symbol-only"], label="symbol-only gate")
        ax.bar([i + width / 2 for i in x], dependency, width, color=GATE_COLOURS["dependency-aware"],
               label="dependency-aware gate")
        names = versions[project]
        ax.set_xticks(x, [names[j] for j in rows["to_release"]], rotation=60, fontsize=8)
        ax.set_ylabel("withheld per 100 notes")
        ax.set_ylim(0, 100)
        ax.set_title(f"{project}: notes withheld one release later", fontsize=10)
    axes[0, 0].legend(fontsize=8, loc="upper left")
    axes[-1, 0].set_xlabel("release the notes are checked against (anchored one release earlier)")
    fig.tight_layout()
    return fig


def trial_intervals_figure(arms: pd.DataFrame, arm_names: Mapping[str, str], confidence: float) -> Figure:
    """Every published (or implied) arm share with its Wilson interval; stale arms in orange, true notes in blue."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4.6))
    count = len(arms)
    for position, (_, row) in enumerate(arms.iterrows()):
        y = count - 1 - position
        colour = POLICY_COLOURS["stale"] if str(row["arm"]).startswith("stale") else POLICY_COLOURS["true"]
        ax.plot([100 * row["low"], 100 * row["high"]], [y, y], color=colour, lw=2)
        published = row["status"] == "published"
        ax.plot(100 * row["share"], y, marker="o" if published else "D", color=colour, mfc=colour if published else "white")
    labels = [f"{study} · {model} · {arm_names[arm]}" for study, model, arm in zip(arms["study"], arms["model"], arms["arm"])]
    ax.set_yticks(list(range(count - 1, -1, -1)), labels, fontsize=8)
    ax.set_xlabel(f"% of trials (tasks for 'told to verify'), Wilson {round(100 * confidence)}% interval")
    ax.set_xlim(-2, 102)
    ax.plot([], [], "o", color="grey", label="published count")
    ax.plot([], [], "D", color="grey", mfc="white", label="implied from a published %")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def policy_curves_figure(curves: pd.DataFrame, wrong_share: float) -> Figure:
    """Expected stale edits per release and 100 notes against the assumed wrong share, per policy and model."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9.5, 4.2))
    styles = {"GLM 5.2": "-", "Sonnet 4.6": "--"}
    for model, style in styles.items():
        label = curves[(curves["model"] == model) & (curves["policy"] == "warn with a label")]
        ax.plot(label["wrong_share"], label["stale_edits"], style, color=POLICY_COLOURS["stale"],
                label=f"warn with a label ({model})")
        verify = curves[(curves["model"] == model) & (curves["policy"] == "verify first")]
        ax.fill_between(verify["wrong_share"], verify["stale_low"], verify["stale_high"], color=POLICY_COLOURS["verify"],
                        alpha=0.25 if model == "GLM 5.2" else 0.5, label=f"verify first, per-trial range ({model})")
    for model, style in styles.items():
        symbol = curves[(curves["model"] == model) & (curves["policy"] == "symbol-only gate")]
        ax.plot(symbol["wrong_share"], symbol["stale_edits"], style, color=POLICY_COLOURS["symbol"], lw=1.8,
                label=f"symbol-only gate ({model})")
    gate = curves[(curves["model"] == "GLM 5.2") & (curves["policy"] == "dependency-aware gate")]
    ax.plot(gate["wrong_share"], gate["stale_edits"], color=POLICY_COLOURS["gate"], lw=2.5,
            label="dependency-aware gate: stale edits (zero)")
    ax.plot(gate["wrong_share"], gate["true_withheld"], ":", color=POLICY_COLOURS["gate"], lw=2,
            label="dependency-aware gate: true notes withheld")
    ax.axvline(wrong_share, color="grey", lw=0.8)
    ax.set_xlabel("share of notes on changed code that are now wrong (assumption)")
    ax.set_ylabel("per release step, per 100 notes")
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig
