"""Figures of the progressive-fidelity chapters, in the book's one style.

Each function takes a table :mod:`cvlib.fidelity` returned and draws it with
:func:`cvlib.presentation.style.new_figure` (the text column's width, text of
at least 9 points) and :func:`~cvlib.presentation.style.legend_below`, in the
book's colours: the flat compactor, which compacts without looking at what is
needed, in the baseline's colour, and the obligation-aware schedule, which
checks what must stay legal, in the validity-aware executor's. Words, never
column names, in every legend. Nothing here computes a result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError
from cvlib.presentation.fidelity_tables import CONDITION_LABELS, FORM_LABELS, SCHEDULE_LABELS
from cvlib.presentation.style import PALETTE, SERIES, legend_below, new_figure

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from cvlib.fidelity.records import Trajectory
    from cvlib.fidelity.runner import ScheduleRun

_GREEN, _PINK, _ORANGE, _SKY, _BLACK, _GREY = SERIES

#: Colours of the schedules: the flat compactor in the baseline's, the obligation-aware schedule in the validity-aware executor's.
SCHEDULE_COLOURS: dict[str, str] = {
    "full_while_feasible": PALETTE["baseline"],
    "age_only": _ORANGE,
    "pressure_only": _PINK,
    "obligation_aware": PALETTE["validity_aware"],
    "magic_context_decay": _GREEN,
    "book_decay": _SKY,
    "oracle": _BLACK,
}

#: Colours of Experiment A's conditions, matched to the schedules they resemble.
CONDITION_COLOURS: dict[str, str] = {
    "raw": _GREY,
    "lossy_summary": _GREY,
    "flat": PALETTE["baseline"],
    "three_forms": _ORANGE,
    "tiered_from_source": PALETTE["validity_aware"],
    "tiered_cascaded": _SKY,
    "oracle": _BLACK,
}

#: Colours of the forms (a cascaded form shares its source form's colour and is drawn hollow).
FORM_COLOURS: dict[str, str] = {
    "full": _GREY,
    "dense": PALETTE["validity_aware"],
    "summary": _PINK,
    "record": _GREEN,
    "anchor": _ORANGE,
    "compact": PALETTE["baseline"],
    "record_cascaded": _GREEN,
    "anchor_cascaded": _ORANGE,
}


def _need(df: pd.DataFrame, cols: Sequence[str], what: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ParameterError(f"{what} lacks column(s) {missing}")


def _legend(fig: Figure, ax: Axes, ncols: int) -> None:
    handles, labels = ax.get_legend_handles_labels()
    legend_below(fig, handles, labels, ncols=ncols)


def operating_points_figure(reps: pd.DataFrame) -> Figure:
    """Each form as an operating point: share of its object's required checks met against resident and generation tokens.

    Resident tokens are drawn on a log scale (forms differ by an order of
    magnitude), generation tokens on a linear one (they differ by a few
    tens of percent).

    Parameters
    ----------
    reps:
        :func:`~cvlib.fidelity.experiments.representation_table` rows.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (resident tokens, generation tokens); small
        points are objects, large ones the mean over objects.
    """
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    _need(reps, ["form", "tokens", "generation_tokens", "required_met", "required_total"], "representation table")
    d = reps.assign(share=reps["required_met"] / reps["required_total"].clip(lower=1))
    order = [f for f in FORM_LABELS if f in set(d["form"])]
    fig, axes = new_figure(1, 2, height=4.2, sharey=True)
    for ax, x, title in ((axes[0], "tokens", "Resident tokens"), (axes[1], "generation_tokens", "Generation tokens")):
        for form in order:
            sub = d[d["form"] == form]
            if form == "full" and x == "generation_tokens":
                continue  # the source costs nothing to generate: no point on a log axis
            hollow = form.endswith("cascaded")
            c = FORM_COLOURS[form]
            ax.scatter(sub[x], sub["share"], s=12, alpha=0.3, facecolors="none" if hollow else c, edgecolors=c)
            ax.scatter(
                sub[x].mean(), sub["share"].mean(), s=110 if hollow else 80, marker="s" if hollow else "o",
                facecolors="none" if hollow else c, edgecolors=c if hollow else "black", linewidths=2 if hollow else 0.8,
                label=FORM_LABELS[form], zorder=3,
            )
        if x == "tokens":
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(FixedLocator([10, 20, 50, 100, 200, 500, 1000]))
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("resident tokens (log scale)")
        else:
            ax.set_xlabel("generation tokens")
        ax.set_title(title)
    axes[0].set_ylabel("share of required checks met")
    axes[0].set_ylim(-0.03, 1.05)
    _legend(fig, axes[0], 3)
    return fig


def _band(ax: Axes, df: pd.DataFrame, key: str, keys: Sequence[str], x: str, y: str, colours: Mapping[str, str], names: Mapping[str, str]) -> None:
    g = df.groupby([key, x])[y]
    mean, lo, hi = g.mean(), g.min(), g.max()
    for k in keys:
        if k not in mean.index.get_level_values(0):
            continue
        m = mean[k]
        style = "--" if k in ("oracle", "lossy_summary") else "-"
        ax.plot(m.index, m.values, style, marker="o", ms=3.5, color=colours[k], label=names[k])
        ax.fill_between(m.index, lo[k].values, hi[k].values, color=colours[k], alpha=0.12, lw=0)


def budget_figure(a: pd.DataFrame, conditions: Sequence[str] = ("lossy_summary", "flat", "three_forms", "tiered_from_source", "tiered_cascaded", "oracle")) -> Figure:
    """Experiment A: objects kept legal and checks passed against the resident budget, per condition.

    Parameters
    ----------
    a:
        :func:`~cvlib.fidelity.experiments.sweep_a` rows.
    conditions:
        Conditions to draw.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels; lines are means over seeds, bands their range.
    """
    _need(a, ["condition", "budget_fraction", "legal_objects", "objects", "checks_passed", "checks_total"], "Experiment A table")
    d = a.assign(legal_share=a["legal_objects"] / a["objects"], check_share=a["checks_passed"] / a["checks_total"])
    fig, axes = new_figure(1, 2, height=3.9, sharex=True)
    _band(axes[0], d, "condition", conditions, "budget_fraction", "legal_share", CONDITION_COLOURS, CONDITION_LABELS)
    _band(axes[1], d, "condition", conditions, "budget_fraction", "check_share", CONDITION_COLOURS, CONDITION_LABELS)
    axes[0].set_ylabel("share of objects kept legal")
    axes[1].set_ylabel("share of all checks passed")
    axes[0].set_title("Objects whose obligations all hold")
    axes[1].set_title("Checks passed")
    for ax in axes:
        ax.set_xlabel("resident budget (share of all full text)")
        ax.set_ylim(-0.03, 1.05)
    _legend(fig, axes[0], 3)
    return fig


def _policy_panels(b: pd.DataFrame, metrics: Sequence[tuple[str, str, str]], policies: Sequence[str]) -> Figure:
    _need(b, ["policy", "budget_fraction", *[m for m, _, _ in metrics]], "Experiment B table")
    fig, axes = new_figure(1, len(metrics), height=3.9, sharex=True)
    for ax, (metric, ylabel, title) in zip(axes, metrics):
        _band(ax, b, "policy", policies, "budget_fraction", metric, SCHEDULE_COLOURS, SCHEDULE_LABELS)
        ax.set_xlabel("base budget (share of all full text)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.set_ylim(bottom=0)
    _legend(fig, axes[0], 3)
    return fig


def probe_failures_figure(b: pd.DataFrame, policies: Sequence[str] = tuple(SCHEDULE_LABELS)) -> Figure:
    """Experiment B: declared and undeclared probe failures per trajectory against the budget, per schedule.

    Parameters
    ----------
    b:
        :func:`~cvlib.fidelity.experiments.sweep_b` rows.
    policies:
        Schedules to draw.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels; lines are means over seeds, bands their range.
    """
    return _policy_panels(
        b,
        [
            ("failures_declared", "failures per trajectory", "Declared probes"),
            ("failures_undeclared", "failures per trajectory", "Undeclared probes"),
        ],
        policies,
    )


def legality_figure(b: pd.DataFrame, policies: Sequence[str] = tuple(SCHEDULE_LABELS)) -> Figure:
    """Experiment B: legality violations and infeasible turns per trajectory against the budget, per schedule.

    Parameters
    ----------
    b:
        :func:`~cvlib.fidelity.experiments.sweep_b` rows.
    policies:
        Schedules to draw.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels; lines are means over seeds, bands their range.
    """
    return _policy_panels(
        b,
        [
            ("legality_violations", "illegal object-turns per trajectory", "Legality violations"),
            ("infeasible_turns", "turns per trajectory", "Infeasible turns"),
        ],
        policies,
    )


def fold_trace_figure(traj: Trajectory, runs: Mapping[str, ScheduleRun], folds: Mapping[str, Sequence[int]]) -> Figure:
    """Which form each object shows on each turn, one panel per run, with the turns a schedule re-tiered.

    Parameters
    ----------
    traj:
        The trajectory the runs share.
    runs:
        ``{policy name: run}``, drawn top to bottom.
    folds:
        ``{policy name: turns at which it re-tiered}``, marked above each panel.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per run, objects down, turns across.
    """
    import numpy as np
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    forms = ("full", "dense", "record", "anchor")
    colours = [FORM_COLOURS[f] for f in forms]
    ids = [o.object_id for o in traj.admitted(traj.n_turns - 1)]
    fig, axes = new_figure(len(runs), 1, height=1.2 + 1.9 * len(runs), sharex=True, squeeze=False)
    cmap = ListedColormap(colours)
    for ax, (name, run) in zip(axes[:, 0], runs.items()):
        grid = np.full((len(ids), traj.n_turns), np.nan)
        for t in run.turns:
            for oid, form in t.applied:
                grid[ids.index(oid), t.turn] = forms.index(form) if form in forms else np.nan
        ax.imshow(grid, aspect="auto", cmap=cmap, vmin=-0.5, vmax=3.5, interpolation="nearest")
        for f in folds.get(name, ()):
            ax.axvline(f, color="black", lw=0.6, alpha=0.6)
        ax.set_yticks(range(len(ids)))
        ax.set_yticklabels(ids if len(ids) <= 12 else [""] * len(ids))
        ax.set_ylabel("object")
        ax.set_title(f"{SCHEDULE_LABELS.get(name, name)}: lines mark the turns it re-tiered")
    axes[-1, 0].set_xlabel("turn")
    legend_below(fig, [Patch(color=c) for c in colours], [FORM_LABELS[f] for f in forms], ncols=4)
    return fig


def sensitivity_figure(sens: pd.DataFrame, short: Mapping[str, str]) -> Figure:
    """Which findings hold under which variation: a grid of holds / does not hold.

    Parameters
    ----------
    sens:
        :func:`~cvlib.fidelity.sensitivity.sensitivity_b` (or ``_a``) rows.
    short:
        ``{finding key: short column title}``, in display order.

    Returns
    -------
    matplotlib.figure.Figure
        Rows are variations ("defaults", then "parameter = value"), columns findings.
    """
    import numpy as np
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    _need(sens, ["parameter", "value", "key", "holds"], "sensitivity table")
    rows = list(dict.fromkeys(zip(sens["parameter"], sens["value"])))
    keys = list(short)
    grid = np.zeros((len(rows), len(keys)))
    look = {(p, v, k): h for p, v, k, h in zip(sens["parameter"], sens["value"], sens["key"], sens["holds"])}
    for i, (p, v) in enumerate(rows):
        for j, k in enumerate(keys):
            grid[i, j] = 1.0 if look[(p, v, k)] else 0.0
    fails, holds = PALETTE["baseline"], _SKY
    fig, ax = new_figure(height=3.0 + 0.22 * len(rows))  # room for the upright finding names below
    ax.imshow(grid, aspect="auto", cmap=ListedColormap([fails, holds]), vmin=0, vmax=1, interpolation="nearest")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([short[k] for k in keys], rotation=90, ha="center")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(["defaults" if p == "defaults" else f"{p} = {v}" for p, v in rows])
    ax.set_xticks(np.arange(-0.5, len(keys)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(rows)), minor=True)
    ax.grid(which="minor", color="white", lw=1)
    ax.grid(which="major", visible=False)
    ax.tick_params(which="minor", length=0)
    legend_below(fig, [Patch(color=holds), Patch(color=fails)], ["holds", "does not hold"], ncols=2)
    return fig
