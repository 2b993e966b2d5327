"""The appendix of "Notes on real release histories": the audit of precise-only note-steps, its tables and glued numbers.

The audit's rows and bound are the notes package's (:mod:`cvlib.notes.audit`:
the groups of note-steps only the precise gate withholds, the judged sample
and census, :func:`~cvlib.notes.audit.audit_bound`); this module checks them
against the replay they were drawn from and writes them for the page: the
largest groups, the verdict counts, and every number the section glues,
including the verdict on the 1.5x target in words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from cvlib.core.errors import ParameterError
from cvlib.notes import audit as na
from cvlib.notes.replay import Replay, totals
from cvlib.presentation.chapters.notes_release_history import Numbers, project_name
from cvlib.presentation.notes_figures import GATE_COLOURS
from cvlib.presentation.style import PALETTE, SERIES, new_figure

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["audit_numbers", "audit_table", "census_numbers", "gate_loads", "gate_loads_figure", "verdicts_table"]


def _audited(r: Replay, audited: pd.DataFrame) -> pd.DataFrame:
    """The audit's rows for the replayed projects, checked against the replay (a group gone or resized fails here).

    The sample was drawn uniformly from the unaudited note-steps of all
    projects, so its draws in some projects are a uniform sample of theirs.
    """
    mine = audited[audited["project"].isin(r.projects)].reset_index(drop=True)
    if mine.empty:
        raise ParameterError(f"the audit covers none of the projects {r.projects}; it covers {sorted(set(audited['project']))}")
    na.check_audit(mine, na.precise_only_groups(r.replayed, r.versions))
    return mine


def audit_table(r: Replay, audited: pd.DataFrame, rows: int = 10) -> pd.DataFrame:
    """The largest audited groups of precise-only note-steps, as the page shows them.

    Parameters
    ----------
    r
        The replay (the audit is checked against it).
    audited
        :func:`cvlib.notes.audit.read_audit`.
    rows
        How many of the top groups to show.

    Returns
    -------
    DataFrame
        Project, step, the first changed dependency and its kind, note-steps, verdict, the reason.
    """
    top = _audited(r, audited)
    top = top[top["stratum"] == "top"].head(rows)
    return pd.DataFrame({
        "Project": top["project"].map(project_name),
        "Step": top["from_version"] + " → " + top["to_version"],
        "First changed dependency": top["dependency"],
        "Kind": top["kind"],
        "Note-steps": top["note_steps"].astype(int),
        "Verdict": top["verdict"],
        "What changed": top["reason"],
    }).reset_index(drop=True)


def verdicts_table(r: Replay, audited: pd.DataFrame) -> pd.DataFrame:
    """Verdict counts of the audit: groups and note-steps of the top groups, groups and draws of the sample.

    Parameters
    ----------
    r
        The replay (the audit is checked against it).
    audited
        :func:`cvlib.notes.audit.read_audit`.

    Returns
    -------
    DataFrame
        One row per verdict (and a total): ``Top groups``, ``Their note-steps``,
        ``Sampled groups``, ``Drawn note-steps``, and, for an audit with a
        census, ``Groups in all`` and ``Note-steps in all`` (every group the
        audit read); ``Shown to be behaviour`` and ``Shown to be spelling``
        count the note-steps of each in the top groups, or with a census in
        all groups (mixed groups count their note-steps of each).
    """
    a = _audited(r, audited)
    top, sample = a[a["stratum"] == "top"], a[a["stratum"] == "sample"]
    census = bool((a["stratum"] == "census").any())
    shown = a if census else top
    rows = []
    for verdict in (*na.VERDICTS, "all"):
        t = top if verdict == "all" else top[top["verdict"] == verdict]
        s = sample if verdict == "all" else sample[sample["verdict"] == verdict]
        row = {"Verdict": verdict, "Top groups": len(t), "Their note-steps": int(t["note_steps"].sum()),
               "Sampled groups": len(s), "Drawn note-steps": int(s["draws"].sum())}
        if census:
            every = a if verdict == "all" else a[a["verdict"] == verdict]
            row.update({"Groups in all": len(every), "Note-steps in all": int(every["note_steps"].sum())})
        w = shown if verdict == "all" else shown[shown["verdict"] == verdict]
        row.update({"Shown to be behaviour": int(w["behaviour_steps"].sum()),
                    "Shown to be spelling": int(w["spelling_steps"].sum())})
        rows.append(row)
    return pd.DataFrame(rows)


def audit_numbers(r: Replay, audited: pd.DataFrame, target: float = 1.5, confidence: float = 0.95) -> Numbers:
    """The numbers the section on the audit glues: its size, its verdicts, the bound and what it means for ``target``.

    Parameters
    ----------
    r
        The replay (the audit is checked against it).
    audited
        :func:`cvlib.notes.audit.read_audit`.
    target
        The load ratio aimed for.
    confidence
        Of the Wilson intervals.

    Returns
    -------
    dict
        ``key -> (value, kind)``.
    """
    a = _audited(r, audited)
    t = totals(r)
    symbol, precise = int(t.loc["all", "withheld_symbol"]), int(t.loc["all", "withheld_dependency"])
    b = na.audit_bound(a, symbol, precise, confidence)
    allowed = int(target * symbol)  # the most note-steps a gate may withhold at the target
    groups = na.precise_only_groups(r.replayed, r.versions)
    out: Numbers = {
        "N_audit_precise_only": (b.precise_only, "count"),
        "N_audit_groups": (len(groups), "count"),
        "N_audit_top_groups": (int((a["stratum"] == "top").sum()), "count"),
        "N_audit_top_steps": (b.audited, "count"),
        "N_audit_behaviour": (b.behaviour, "count"),
        "N_audit_spelling": (b.spelling, "count"),
        "N_audit_unsure": (b.unsure, "count"),
        "N_audit_rest": (b.rest, "count"),
        "N_audit_rest_groups": (len(groups) - int((a["stratum"] == "top").sum()), "count"),
        "N_audit_draws": (b.draws, "count"),
        "N_audit_seed": (na.DESIGN.seed, "count"),
        "N_audit_min_steps": (na.DESIGN.min_steps, "count"),
        "N_audit_sampled_groups": (int((a["stratum"] == "sample").sum()), "count"),
        "N_audit_drawn_behaviour": (b.drawn_behaviour, "count"),
        "N_audit_drawn_spelling": (b.drawn_spelling, "count"),
        "N_audit_drawn_unsure": (b.draws - b.drawn_behaviour - b.drawn_spelling, "count"),
        "N_audit_spelling_pct": (100 * b.drawn_spelling / b.draws if b.draws else 0.0, "percent"),
        "N_audit_spelling_low": (100 * b.spelling_low, "percent"),
        "N_audit_spelling_high": (100 * b.spelling_high, "percent"),
        "N_audit_confidence": (100 * confidence, "percent"),
        "N_audit_symbol": (symbol, "count"),
        "N_audit_precise": (precise, "count"),
        "N_audit_allowed": (allowed, "count"),
        "N_audit_needed": (precise - allowed, "count"),
        "N_bound": (round(b.bound), "count"),
        "N_bound_low": (round(b.bound_low), "count"),
        "N_bound_high": (round(b.bound_high), "count"),
        "N_bound_ratio": (b.ratio(b.bound), "ratio_fine"),
        "N_bound_ratio_low": (b.ratio(b.bound_low), "ratio_fine"),
        "N_bound_ratio_high": (b.ratio(b.bound_high), "ratio_fine"),
        "N_releasable": (round(b.releasable), "count"),
        "N_releasable_low": (round(b.releasable_low), "count"),
        "N_releasable_high": (round(b.releasable_high), "count"),
        "N_best": (round(b.best), "count"),
        "N_best_ratio": (b.ratio(b.best), "ratio_fine"),
        "N_best_ratio_low": (b.ratio(b.best_low), "ratio_fine"),
        "N_best_ratio_high": (b.ratio(b.best_high), "ratio_fine"),
    }
    if b.census:
        out.update(census_numbers(b, a, allowed, target))
    if b.ratio(b.best_high) <= target:
        verdict = "reachable by a sound gate that shows the spelling changes"
    elif b.ratio(b.bound_low) > target:
        verdict = "out of reach of any sound gate"
    elif b.ratio(b.best) > target:
        verdict = "out of reach unless some changes we could not settle prove harmless"
    else:
        verdict = "not ruled out, but only if nearly every spelling change is shown"
    out["N_audit_reachable"] = (verdict, "text")
    needed = precise - allowed
    out["N_audit_needed_vs"] = ("more than" if needed > b.releasable_high else "fewer than" if needed < b.releasable_low
                                else "about as many as", "text")
    return out


def _where_in(value: int, low: int, high: int) -> str:
    """Where a count falls in an interval as the page shows both (rounded): inside, at the edge of, or outside it."""
    if value in (low, high):
        return "at the edge of"
    return "inside" if low < value < high else "outside"


def census_numbers(b: na.AuditBound, audited: pd.DataFrame, allowed: int, target: float) -> Numbers:
    """What the census glues: every group read, the exact bound and best load, and the verdict on ``target`` from them.

    Parameters
    ----------
    b
        :func:`cvlib.notes.audit.audit_bound` of an audit with a census.
    audited
        The audit's rows for the replayed projects.
    allowed
        The most note-steps a gate may withhold at ``target``.
    target
        The load ratio aimed for.

    Returns
    -------
    dict
        ``key -> (value, kind)``.
    """
    census = audited[audited["stratum"] == "census"]
    spelling = b.spelling + b.rest_spelling
    needed = b.precise - allowed
    if needed <= 0:
        verdict = "met by the precise gate itself"
    elif b.exact_bound > allowed:
        verdict = "out of reach of any sound gate"
    elif b.exact_best > allowed:
        verdict = "out of reach unless some changes we could not settle prove harmless"
    else:
        share = needed / spelling
        word = "nearly all" if share >= 0.9 else "most" if share >= 0.5 else "some"
        verdict = f"within reach only of a gate that shows {word} of the spelling changes"
    return {
        "N_census_groups": (len(census), "count"),
        "N_census_steps": (int(census["note_steps"].sum()), "count"),
        "N_census_behaviour": (b.behaviour + b.rest_behaviour, "count"),
        "N_census_spelling": (spelling, "count"),
        "N_census_unsure": (b.exact_unsure, "count"),
        "N_census_rest_spelling_pct": (100 * b.rest_spelling / b.rest if b.rest else 0.0, "percent"),
        "N_census_bound": (b.exact_bound, "count"),
        "N_census_bound_ratio": (b.ratio(b.exact_bound), "ratio_fine"),
        "N_census_best": (b.exact_best, "count"),
        "N_census_best_ratio": (b.ratio(b.exact_best), "ratio_fine"),
        "N_census_needed_pct": (100 * needed / spelling if spelling else float("inf"), "percent"),
        "N_census_needed_share": (f"{100 * needed / spelling:.1f}% of the" if 0 < needed <= spelling
                                  else "none of the" if needed <= 0 else "more than all", "text"),
        "N_census_reachable": (verdict, "text"),
        "N_census_in_interval": (_where_in(spelling, round(b.releasable_low), round(b.releasable_high)), "text"),
    }


def gate_loads(r: Replay, audited: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Each gate's review load as a multiple of the symbol-only gate's, beside what any sound gate must carry.

    A sound gate never shows a note whose code's behaviour changed; the audit
    bounds its load from below (every unsure change harmless) and gives the
    load of the best one (showing exactly the spelling changes, every unsure
    change behaviour). With a census these are counts, else the sample's
    estimates.

    Parameters
    ----------
    r
        The replay (the audit is checked against it).
    audited
        :func:`cvlib.notes.audit.read_audit`.
    confidence
        Of the sample's Wilson intervals (used only without a census).

    Returns
    -------
    DataFrame
        ``Gate`` and ``Load ratio``, from the symbol-only gate (1) to the wide rule.
    """
    a = _audited(r, audited)
    t = totals(r)
    b = na.audit_bound(a, int(t.loc["all", "withheld_symbol"]), int(t.loc["all", "withheld_dependency"]), confidence)
    bound, best = (b.exact_bound, b.exact_best) if b.census else (b.bound, b.best)
    rows = [
        ("symbol-only gate", 1.0),
        ("any sound gate, at least", b.ratio(bound)),
        ("best sound gate, unsure as behaviour", b.ratio(best)),
        ("precise gate (ours)", float(t.loc["all", "load_ratio"])),
        ("wide rule", float(t.loc["all", "load_ratio_wide"])),
    ]
    return pd.DataFrame(rows, columns=["Gate", "Load ratio"])


def gate_loads_figure(loads: pd.DataFrame, target: float) -> Figure:
    """:func:`gate_loads` as bars, with the target drawn across them.

    Parameters
    ----------
    loads
        :func:`gate_loads`.
    target
        The load ratio aimed for (1.5).

    Returns
    -------
    matplotlib.figure.Figure
        One horizontal bar per row, the symbol-only gate on top; a dashed line at ``target``.
    """
    if loads.empty:
        raise ParameterError("gate_loads_figure needs at least one gate")
    colours = [GATE_COLOURS["symbol-only"], SERIES[5], SERIES[5], GATE_COLOURS["dependency-aware"], GATE_COLOURS["wide"]]
    fig, ax = new_figure(height=0.45 * len(loads) + 1.4)
    ys = list(range(len(loads) - 1, -1, -1))
    ax.barh(ys, loads["Load ratio"], color=colours[: len(loads)], height=0.6)
    for y, value in zip(ys, loads["Load ratio"]):
        ax.text(value + 0.02, y, f"{value:.2f}×", va="center")
    ax.axvline(target, color=PALETTE["baseline"], linestyle="--", lw=1.5)
    ax.text(target, len(loads) - 0.45, f" target {target:g}×", color=PALETTE["baseline"], va="bottom")
    ax.set_yticks(ys, list(loads["Gate"]))
    ax.set_xlabel("load, times the symbol-only gate's")
    ax.set_xlim(0, max(float(loads["Load ratio"].max()), target) * 1.18)
    ax.set_ylim(-0.6, len(loads) - 0.1)
    ax.grid(axis="y", visible=False)
    return fig
