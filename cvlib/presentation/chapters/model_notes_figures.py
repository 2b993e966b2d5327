"""The figures of the chapter "A local model and stale notes", and how the chapter writes and colours each outcome.

They live beside :mod:`cvlib.presentation.chapters.model_notes_trials`, which
re-exports them so that the notebook calls every part of the page from one
module; the chapter keeps its tables, prompts and glued values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cvlib.experiments.notes_study import analysis as na
from cvlib.experiments.notes_study.trials import ARM_LABELS, ARMS, STALE_ARMS
from cvlib.presentation._study_models import model_label
from cvlib.presentation.notes_figures import OUTCOME_COLOURS
from cvlib.presentation.style import SERIES, legend_below, new_figure

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from cvlib.presentation.chapters.model_notes_study import NotesStudy

__all__ = ["OUTCOME_NAMES", "effects_figure", "outcomes_figure"]

#: How each outcome of :func:`~cvlib.experiments.notes_study.reading.read_answer` is written, and its colour.
OUTCOME_NAMES: dict[str, str] = {"stale_edit": "stale edit", "true_exact": "true edit, exactly",
                                 "true_collateral": "true edit with other changes", "unchanged": "unchanged (held back)",
                                 "other": "other answer"}
_FILL: dict[str, str] = {"stale_edit": OUTCOME_COLOURS["stale"], "true_exact": OUTCOME_COLOURS["true"],
                         "true_collateral": "#9FD8C4", "unchanged": "#BBBBBB", "other": "#555555"}


def effects_figure(study: NotesStudy) -> Figure:
    """Forest plot: refutable − unrefutable stale-edit share per model and stale arm, paired by task, with intervals.

    Parameters
    ----------
    study : NotesStudy
        :func:`~cvlib.presentation.chapters.model_notes_trials.read_study`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.lines import Line2D

    rows = [(arm, model) for arm in STALE_ARMS for model in study.models]
    fig, ax = new_figure(height=0.3 * max(1, len(rows)) + 1.9)
    colours = {m: SERIES[i % len(SERIES)] for i, m in enumerate(study.models)}
    e = study.effects
    for y, (arm, model) in enumerate(reversed(rows)):
        hit = e[(e["model"] == model) & (e["arm"] == arm)] if len(e) else e
        if hit.empty:
            ax.text(0, y, f"{model_label(model)}: {na.NOT_RECORDED}", ha="center", va="center", fontsize=9, color="#555555")
            continue
        r = hit.iloc[0]
        ax.plot([100 * r["low"], 100 * r["high"]], [y, y], color=colours[model], lw=2.5)
        ax.plot(100 * r["mean"], y, marker="o", color=colours[model], ms=6)
    ax.axvline(0, color="#555555", lw=0.8, ls="--")
    n = max(1, len(study.models))
    ax.set_yticks([len(rows) - 1 - (i * n + (n - 1) / 2) for i in range(len(STALE_ARMS))],
                  [ARM_LABELS[a].replace(" (", "\n(") for a in STALE_ARMS])
    for i in range(1, len(STALE_ARMS)):
        ax.axhline(len(rows) - 0.5 - i * n, color="#cccccc", lw=0.6)
    ax.set_ylim(-0.6, max(1, len(rows)) - 0.4)
    ax.set_xlim(-105, 105)
    ax.set_xlabel("refutable − unrefutable, stale-edit share (percentage points)")
    ax.grid(axis="y", visible=False)
    handles = [Line2D([], [], color=colours[m], marker="o", lw=2.5, label=model_label(m)) for m in study.models]
    handles.append(Line2D([], [], lw=0, label=f"mean over tasks, {round(100 * study.confidence)} % interval"))
    legend_below(fig, handles, ncols=2)
    return fig


def outcomes_figure(study: NotesStudy) -> Figure:
    """Every model's greedy outcomes per arm and variant, as shares of tasks: one panel per model.

    Parameters
    ----------
    study : NotesStudy
        :func:`~cvlib.presentation.chapters.model_notes_trials.read_study`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.patches import Patch

    models = study.models or ("none",)
    fig, axes = new_figure(1, len(models), height=5.0, sharey=True, squeeze=False)
    bars = [(arm, variant) for arm in ARMS for variant in ("unrefutable", "refutable")]
    s = study.shares
    for ax, model in zip(axes[0], models):
        for y, (arm, variant) in enumerate(reversed(bars)):
            hit = s[(s["model"] == model) & (s["arm"] == arm) & (s["variant"] == variant)] if len(s) else s
            if hit.empty:
                continue
            r, left = hit.iloc[0], 0.0
            counts = {"stale_edit": r["stale"], **{o: r[f"n_{o}"] for o in ("true_exact", "true_collateral", "unchanged", "other")}}
            for outcome in OUTCOME_NAMES:
                width = 100 * counts[outcome] / r["tasks"]
                ax.barh(y, width, left=left, color=_FILL[outcome], height=0.8, edgecolor="white", linewidth=0.4,
                        hatch="///" if variant == "refutable" else None)
                left += width
        ax.set_title(model_label(model).replace("-", "\n", 1), fontsize=10)
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of tasks")
        ax.grid(axis="y", visible=False)
    axes[0][0].set_yticks([len(bars) - 1 - (2 * i + 0.5) for i in range(len(ARMS))], [a.replace("_", " ") for a in ARMS])
    axes[0][0].set_ylim(-0.6, len(bars) - 0.4)
    handles = [Patch(color=_FILL[o], label=OUTCOME_NAMES[o]) for o in OUTCOME_NAMES]
    handles.append(Patch(facecolor="white", edgecolor="#555555", hatch="///", label="refutable variant (the lower bar)"))
    legend_below(fig, handles, ncols=2)
    return fig
