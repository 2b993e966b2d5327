"""Figures for the progressive-fidelity chapters, drawn for the book's column.

Each function takes a table the experiments returned and gives back a
matplotlib :class:`~matplotlib.figure.Figure` 6.5 inches wide with text of at
least 9 points and human words in every legend, so notebooks stay thin and
the figures are tested like other code. Nothing here computes a result.
matplotlib is imported inside each function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cvlib.core.errors import ParameterError

from .tables import CONDITION_LABELS, FORM_LABELS, POLICY_LABELS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from .records import Trajectory
    from .runner import ScheduleRun

#: Width of every figure, inches (the book's text column).
WIDTH = 6.5

#: Font sizes in points, none smaller than 9 at :data:`WIDTH`.
FONTS: dict[str, float] = {
    "font.size": 10.0,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10.0,
    "xtick.labelsize": 9.0,
    "ytick.labelsize": 9.0,
    "legend.fontsize": 9.0,
    "legend.title_fontsize": 9.0,
}

#: Colours for the schedules (Okabe-Ito, colour-blind-safe).
POLICY_COLOURS: dict[str, str] = {
    "full_while_feasible": "#D55E00",
    "age_only": "#E69F00",
    "pressure_only": "#CC79A7",
    "obligation_aware": "#0072B2",
    "magic_context_decay": "#009E73",
    "book_decay": "#56B4E9",
    "oracle": "#000000",
}

#: Colours for Experiment A's conditions.
CONDITION_COLOURS: dict[str, str] = {
    "raw": "#999999",
    "lossy_summary": "#999999",
    "flat": "#D55E00",
    "three_forms": "#E69F00",
    "tiered_from_source": "#0072B2",
    "tiered_cascaded": "#56B4E9",
    "oracle": "#000000",
}

#: Colours for the forms (the cascaded ones share their source form's colour and get hollow markers).
FORM_COLOURS: dict[str, str] = {
    "full": "#999999",
    "dense": "#0072B2",
    "summary": "#CC79A7",
    "record": "#009E73",
    "anchor": "#E69F00",
    "compact": "#D55E00",
    "record_cascaded": "#009E73",
    "anchor_cascaded": "#E69F00",
}

#: Colours for the four resident forms in a trace.
TRACE_COLOURS: tuple[str, ...] = ("#0072B2", "#56B4E9", "#E69F00", "#F0E442")


def _need(df: pd.DataFrame, cols: Sequence[str], what: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ParameterError(f"{what} lacks column(s) {missing}")


def _legend_below(fig: Figure, ax, ncol: int) -> None:
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False, bbox_to_anchor=(0.5, 0.0))


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
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    _need(reps, ["form", "tokens", "generation_tokens", "required_met", "required_total"], "representation table")
    d = reps.assign(share=reps["required_met"] / reps["required_total"].clip(lower=1))
    order = [f for f in FORM_LABELS if f in set(d["form"])]
    with plt.rc_context(FONTS):
        fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 4.2), sharey=True)
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
        _legend_below(fig, axes[0], 3)
        fig.tight_layout(rect=(0, 0.2, 1, 1))
    return fig


def _band(ax, df: pd.DataFrame, key: str, keys: Sequence[str], x: str, y: str, colours: Mapping[str, str], names: Mapping[str, str]):
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
    import matplotlib.pyplot as plt

    _need(a, ["condition", "budget_fraction", "legal_objects", "objects", "checks_passed", "checks_total"], "Experiment A table")
    d = a.assign(legal_share=a["legal_objects"] / a["objects"], check_share=a["checks_passed"] / a["checks_total"])
    with plt.rc_context(FONTS):
        fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 3.9), sharex=True)
        _band(axes[0], d, "condition", conditions, "budget_fraction", "legal_share", CONDITION_COLOURS, CONDITION_LABELS)
        _band(axes[1], d, "condition", conditions, "budget_fraction", "check_share", CONDITION_COLOURS, CONDITION_LABELS)
        axes[0].set_ylabel("share of objects kept legal")
        axes[1].set_ylabel("share of all checks passed")
        axes[0].set_title("Objects whose obligations all hold")
        axes[1].set_title("Checks passed")
        for ax in axes:
            ax.set_xlabel("resident budget (share of all full text)")
            ax.set_ylim(-0.03, 1.05)
        _legend_below(fig, axes[0], 3)
        fig.tight_layout(rect=(0, 0.14, 1, 1))
    return fig


def _policy_panels(b: pd.DataFrame, metrics: Sequence[tuple[str, str, str]], policies: Sequence[str]) -> Figure:
    import matplotlib.pyplot as plt

    _need(b, ["policy", "budget_fraction", *[m for m, _, _ in metrics]], "Experiment B table")
    with plt.rc_context(FONTS):
        fig, axes = plt.subplots(1, len(metrics), figsize=(WIDTH, 3.9), sharex=True)
        for ax, (metric, ylabel, title) in zip(axes, metrics):
            _band(ax, b, "policy", policies, "budget_fraction", metric, POLICY_COLOURS, POLICY_LABELS)
            ax.set_xlabel("base budget (share of all full text)")
            ax.set_ylabel(ylabel)
            ax.set_title(title)
            ax.set_ylim(bottom=0)
        _legend_below(fig, axes[0], 4)
        fig.tight_layout(rect=(0, 0.14, 1, 1))
    return fig


def probe_failures_figure(b: pd.DataFrame, policies: Sequence[str] = tuple(POLICY_LABELS)) -> Figure:
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


def legality_figure(b: pd.DataFrame, policies: Sequence[str] = tuple(POLICY_LABELS)) -> Figure:
    """Experiment B: legality violations and infeasible turns per trajectory against the budget, per schedule."""
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
    """
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    forms = ("full", "dense", "record", "anchor")
    ids = [o.object_id for o in traj.admitted(traj.n_turns - 1)]
    with plt.rc_context(FONTS):
        fig, axes = plt.subplots(len(runs), 1, figsize=(WIDTH, 1.2 + 1.9 * len(runs)), sharex=True, squeeze=False)
        cmap = ListedColormap(TRACE_COLOURS)
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
            ax.set_title(f"{POLICY_LABELS.get(name, name)}: lines mark the turns it re-tiered")
        axes[-1, 0].set_xlabel("turn")
        fig.legend(
            [Patch(color=c) for c in TRACE_COLOURS], [FORM_LABELS[f] for f in forms],
            loc="lower center", ncol=4, frameon=False,
        )
        fig.tight_layout(rect=(0, 0.07, 1, 1))
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
    import matplotlib.pyplot as plt
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
    with plt.rc_context(FONTS):
        fig, ax = plt.subplots(figsize=(WIDTH, 1.4 + 0.22 * len(rows)))
        ax.imshow(grid, aspect="auto", cmap=ListedColormap(["#D55E00", "#BFE3F5"]), vmin=0, vmax=1, interpolation="nearest")
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels([short[k] for k in keys], rotation=35, ha="right")
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(["defaults" if p == "defaults" else f"{p} = {v}" for p, v in rows])
        ax.set_xticks(np.arange(-0.5, len(keys)), minor=True)
        ax.set_yticks(np.arange(-0.5, len(rows)), minor=True)
        ax.grid(which="minor", color="white", lw=1)
        ax.grid(which="major", visible=False)
        ax.tick_params(which="minor", length=0)
        fig.legend([Patch(color="#BFE3F5"), Patch(color="#D55E00")], ["holds", "does not hold"], loc="upper right", ncol=2, frameon=False)
        fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig
