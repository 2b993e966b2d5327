"""Figures of the two code-anchored notes chapters, in the book's one style.

:mod:`cvlib.notes` computes (release replays, trial counts, expected stale
edits); this module only draws what it returns, at the text column's width
with text of at least 9 points (:mod:`cvlib.presentation.style`). The two
gates keep one pair of colours throughout, and a stale note keeps the
baseline's colour: showing a stale note is what the baseline does with a stale
fact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError
from cvlib.notes.history import STATUS_COLOURS, STATUS_ORDER
from cvlib.presentation.style import PALETTE, SERIES, legend_below, new_figure

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

#: The symbol-only, wide and precise (dependency-aware, the gate's rule) gates, the same in every notes figure.
GATE_COLOURS: dict[str, str] = {"symbol-only": SERIES[2], "wide": SERIES[3], "dependency-aware": PALETTE["validity_aware"]}
#: Stale outcomes in the baseline's colour, true notes and the gate in the validity-aware one.
OUTCOME_COLOURS: dict[str, str] = {
    "stale": PALETTE["baseline"],
    "true": PALETTE["validity_aware"],
    "verify": SERIES[2],
    "symbol": SERIES[1],
}
#: How the projects of the release histories, their languages' pools and the row of all projects are written.
PROJECT_NAMES: dict[str, str] = {"requests": "Requests", "flask": "Flask", "httpie": "HTTPie", "jiter": "jiter",
                                 "rpds-py": "rpds-py", "Python": "Python, pooled", "Rust": "Rust, pooled",
                                 "all": "all projects"}
#: Colours of the three projects.
PROJECT_COLOURS: tuple[str, ...] = (SERIES[0], SERIES[1], SERIES[2], SERIES[3], SERIES[4])


def _release_axes(projects: Sequence[str], height_per: float = 2.05):
    fig, axes = new_figure(len(projects), 1, height=height_per * len(projects) + 0.9, squeeze=False)
    return fig, axes[:, 0]


def _release_ticks(ax, rows: pd.DataFrame, names: Sequence[str]) -> None:
    ax.set_xticks(range(len(rows)), [names[j] for j in rows["to_release"]], rotation=90)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.grid(axis="x", visible=False)


def gate_comparison_figure(comparison: pd.DataFrame, versions: Mapping[str, Sequence[str]], projects: Sequence[str]) -> Figure:
    """Notes withheld per 100 under each of the three gates, release step by release step, one panel per project.

    Parameters
    ----------
    comparison:
        :func:`cvlib.notes.history.gate_comparison`'s DataFrame.
    versions:
        Each project's release names, in order.
    projects:
        The projects, one panel each, stacked.

    Returns
    -------
    matplotlib.figure.Figure
        Three bars per step (symbol-only, wide, precise); the gap between the
        first and the last is what the symbol-only gate showed stale.
    """
    if not projects:
        raise ParameterError("gate_comparison_figure needs at least one project")
    fig, axes = _release_axes(projects)
    width = 0.28
    bars = []
    gates = [("withheld_symbol", "symbol-only", "symbol-only gate"), ("withheld_wide", "wide", "wide rule"),
             ("withheld_dependency", "dependency-aware", "precise rule (the gate)")]
    for ax, project in zip(axes, projects):
        rows = comparison[comparison["project"] == project].reset_index(drop=True)
        x = range(len(rows))
        bars = [
            ax.bar([i + (g - 1) * width for i in x], 100 * rows[column] / rows["notes"], width,
                   color=GATE_COLOURS[colour], label=label)
            for g, (column, colour, label) in enumerate(gates)
        ]
        _release_ticks(ax, rows, versions[project])
        ax.set_ylim(0, 100)
        ax.set_ylabel("withheld\nper 100 notes")
        ax.set_title(PROJECT_NAMES.get(project, project), loc="left")
    axes[-1].set_xlabel("release the notes are checked against (anchored one release earlier)")
    legend_below(fig, bars, ncols=3)
    return fig


def step_status_figure(steps: pd.DataFrame, versions: Mapping[str, Sequence[str]], projects: Sequence[str]) -> Figure:
    """Share of notes in each status other than FRESH one release later, per project and release step.

    Parameters
    ----------
    steps:
        :func:`cvlib.notes.history.step_shares`'s DataFrame.
    versions:
        Each project's release names, in order.
    projects:
        The projects, one panel each, stacked.

    Returns
    -------
    matplotlib.figure.Figure
        Stacked bars, one colour per status.
    """
    from matplotlib.patches import Patch


    if not projects:
        raise ParameterError("step_status_figure needs at least one project")
    fig, axes = _release_axes(projects)
    shown = [s for s in STATUS_ORDER[1:] if s in steps.columns and steps[s].sum() > 0]
    for ax, project in zip(axes, projects):
        rows = steps[steps["project"] == project].reset_index(drop=True)
        bottom = [0.0] * len(rows)
        for status in shown:
            heights = (100 * rows[status]).tolist()
            ax.bar(range(len(rows)), heights, bottom=bottom, color=STATUS_COLOURS[status], width=0.8)
            bottom = [b + h for b, h in zip(bottom, heights)]
        _release_ticks(ax, rows, versions[project])
        ax.set_ylim(0, 100)
        ax.set_ylabel("% of notes")
        ax.set_title(PROJECT_NAMES.get(project, project), loc="left")
    axes[-1].set_xlabel("release the notes are checked against (anchored one release earlier)")
    handles = [Patch(color=STATUS_COLOURS[s], label=s.replace("_", " ").lower()) for s in shown]
    legend_below(fig, handles, ncols=3)
    return fig


def survival_figure(dependency: pd.DataFrame, symbol: pd.DataFrame, projects: Sequence[str]) -> Figure:
    """Share of notes FRESH at every release since they were anchored: the dependency-aware gate solid, symbol-only dashed.

    Parameters
    ----------
    dependency, symbol:
        :func:`cvlib.notes.history.survival` under each gate.
    projects:
        The projects, one colour each.

    Returns
    -------
    matplotlib.figure.Figure
        Step curves against the number of releases since anchoring.
    """
    from matplotlib.lines import Line2D

    fig, ax = new_figure(height=4.0)
    for project, colour in zip(projects, PROJECT_COLOURS):
        for frame, style in ((dependency, "-"), (symbol, "--")):
            rows = frame[frame["project"] == project]
            ax.step([0] + rows["horizon"].tolist(), [100] + (100 * rows["surviving"]).tolist(), where="post",
                    linestyle=style, color=colour)
    ax.set_xlabel("releases after the note was anchored")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("% of notes FRESH at every release so far")
    ax.set_ylim(0, 102)
    handles = [Line2D([], [], color=c, label=PROJECT_NAMES.get(p, p)) for p, c in zip(projects, PROJECT_COLOURS)]
    handles += [Line2D([], [], color="#555555", label="dependency-aware gate"),
                Line2D([], [], color="#555555", linestyle="--", label="symbol-only gate")]
    legend_below(fig, handles, ncols=3)
    return fig


def trial_intervals_figure(arms: pd.DataFrame, arm_names: Mapping[str, str], confidence: float) -> Figure:
    """Each published (or implied) arm's share with its Wilson interval: stale outcomes in one colour, true notes in the other.

    Parameters
    ----------
    arms:
        Rows of :func:`cvlib.notes.trials.with_intervals` for the study's arms.
    arm_names:
        How each arm is named.
    confidence:
        The intervals' confidence level.

    Returns
    -------
    matplotlib.figure.Figure
        One row per arm; a disc for a published count, a hollow diamond for
        a count implied from a published percentage.
    """
    from matplotlib.lines import Line2D

    count = len(arms)
    if not count:
        raise ParameterError("trial_intervals_figure needs at least one arm")
    fig, ax = new_figure(height=0.33 * count + 1.6)
    for position, (_, row) in enumerate(arms.iterrows()):
        y = count - 1 - position
        colour = OUTCOME_COLOURS["stale"] if str(row["arm"]).startswith("stale") else OUTCOME_COLOURS["true"]
        ax.plot([100 * row["low"], 100 * row["high"]], [y, y], color=colour, lw=2)
        published = row["status"] == "published"
        ax.plot(100 * row["share"], y, marker="o" if published else "D", color=colour,
                mfc=colour if published else "white")
    labels = [f"{study}, {model}: {arm_names[arm]}" for study, model, arm in zip(arms["study"], arms["model"], arms["arm"])]
    ax.set_yticks(list(range(count - 1, -1, -1)), labels)
    ax.set_ylim(-0.6, count - 0.4)
    ax.set_xlabel(f"share of trials (%), with its {round(100 * confidence)}% Wilson interval")
    ax.set_xlim(-2, 102)
    ax.grid(axis="y", visible=False)
    handles = [
        Line2D([], [], color=OUTCOME_COLOURS["stale"], lw=2, label="stale edit applied"),
        Line2D([], [], color=OUTCOME_COLOURS["true"], lw=2, label="right edit made (true note)"),
        Line2D([], [], marker="o", color="#555555", linestyle="none", label="published count"),
        Line2D([], [], marker="D", color="#555555", mfc="white", linestyle="none", label="implied from a published %"),
    ]
    legend_below(fig, handles, ncols=2)
    return fig


def policy_curves_figure(curves: pd.DataFrame, wrong_share: float) -> Figure:
    """Expected stale edits per release and 100 notes against the share of changed notes that are wrong (not measured).

    Parameters
    ----------
    curves:
        :func:`cvlib.notes.trials.expected_stale_edits` over a range of
        ``wrong_share``, with that column added.
    wrong_share:
        The share the chapter's table uses (not measured: 1.0 gives upper bounds), marked with a vertical line.

    Returns
    -------
    matplotlib.figure.Figure
        One line (or band) per policy and model; the dependency-aware gate
        at zero, with the true notes it withholds dotted.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fig, ax = new_figure(height=4.3)
    styles = {"GLM 5.2": "-", "Sonnet 4.6": "--"}
    for model, style in styles.items():
        label = curves[(curves["model"] == model) & (curves["policy"] == "warn with a label")]
        ax.plot(label["wrong_share"], label["stale_edits"], style, color=OUTCOME_COLOURS["stale"])
        verify = curves[(curves["model"] == model) & (curves["policy"] == "verify first")]
        ax.fill_between(verify["wrong_share"], verify["stale_low"], verify["stale_high"], color=OUTCOME_COLOURS["verify"],
                        alpha=0.25 if model == "GLM 5.2" else 0.5, linewidth=0)
        symbol = curves[(curves["model"] == model) & (curves["policy"] == "symbol-only gate")]
        ax.plot(symbol["wrong_share"], symbol["stale_edits"], style, color=OUTCOME_COLOURS["symbol"], lw=1.8)
    gate = curves[(curves["model"] == "GLM 5.2") & (curves["policy"] == "dependency-aware gate")]
    ax.plot(gate["wrong_share"], gate["stale_edits"], color=GATE_COLOURS["dependency-aware"], lw=2.5)
    ax.plot(gate["wrong_share"], gate["true_withheld"], ":", color=GATE_COLOURS["dependency-aware"], lw=2)
    ax.axvline(wrong_share, color="#555555", lw=0.8)
    ax.set_xlabel("share of notes on changed code that are now wrong (not measured)")
    ax.set_ylabel("per release step, per 100 notes")
    handles = [
        Line2D([], [], color=OUTCOME_COLOURS["stale"], label="warn with a label: stale edits"),
        Patch(color=OUTCOME_COLOURS["verify"], alpha=0.4, label="verify first: stale edits (range)"),
        Line2D([], [], color=OUTCOME_COLOURS["symbol"], lw=1.8, label="symbol-only gate: stale edits"),
        Line2D([], [], color=GATE_COLOURS["dependency-aware"], lw=2.5, label="dependency-aware gate: stale edits"),
        Line2D([], [], color=GATE_COLOURS["dependency-aware"], lw=2, linestyle=":", label="dependency-aware gate: true notes withheld"),
        Line2D([], [], color="#555555", label="solid GLM 5.2, dashed Sonnet 4.6"),
    ]
    legend_below(fig, handles, ncols=2)
    return fig


__all__ = [
    "GATE_COLOURS",
    "OUTCOME_COLOURS",
    "PROJECT_COLOURS",
    "PROJECT_NAMES",
    "gate_comparison_figure",
    "policy_curves_figure",
    "step_status_figure",
    "survival_figure",
    "trial_intervals_figure",
]
