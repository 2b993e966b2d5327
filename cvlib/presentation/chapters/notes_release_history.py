"""The chapter "Notes on real release histories": its tables, glued numbers, audit section and defaults.

The replay is the notes package's (:func:`cvlib.notes.replay.replay_projects`,
:mod:`cvlib.notes.history`, :mod:`cvlib.notes.audit`); this module turns its
plain frames into what the chapter shows: tables with the column names a
reader sees, and every number its prose glues as ``{key: (value, kind)}`` for
:func:`cvlib.presentation.formatting.glue_all` (``kind`` names the quantity:
``"count"``, ``"percent"``, ``"tenths"``, ``"mean"``, ``"ratio"``, or
``"text"`` for words). The notebook only calls these, so it holds no
wrangling. Projects are pooled by language (Python: Requests, Flask, HTTPie;
Rust: jiter, rpds-py) besides the row ``all``. The audit of what changed
under the notes only the precise gate withholds has its own page and module,
:mod:`cvlib.presentation.chapters.notes_release_history_appendix`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from cvlib.core.errors import ParameterError
from cvlib.notes import history as nh
from cvlib.notes.languages import DEFAULT_LANGUAGE, languages
from cvlib.notes.replay import Replay, by_language, totals
from cvlib.notes.symbols import MIN_IDENTIFIABLE_NODES
from cvlib.presentation.notes_figures import PROJECT_NAMES

__all__ = [
    "COLUMN_KINDS",
    "HORIZONS",
    "STATUS_NAMES",
    "STORY",
    "SURVIVAL_COLUMNS",
    "duplicates_table",
    "fallback_table",
    "forgiven_table",
    "formats",
    "gates_table",
    "horizon_table",
    "key",
    "kinds_table",
    "overview_table",
    "project_name",
    "release_numbers",
    "review_table",
    "step_shares_table",
    "survival_table",
    "worst_steps_table",
]

#: Status names as a page writes them.
STATUS_NAMES: dict[str, str] = {s: s.replace("_", " ").capitalize() for s in nh.STATUS_ORDER}


#: The horizons (releases after anchoring) the survival table shows.
HORIZONS: tuple[int, ...] = (1, 3, 5, 8)


#: The survival table's columns, one per horizon of :data:`HORIZONS`.
SURVIVAL_COLUMNS: tuple[str, ...] = tuple(f"After {h} release{'s' if h > 1 else ''}" for h in HORIZONS)


#: The release step the chapter tells as its story, ``(project, from_release, path, class)``, Flask 2.2.0 -> 2.2.1, class ``Flask``.
STORY: tuple[str, int, str, str] = ("flask", 0, "flask/app.py", "Flask")

#: Glued numbers, key -> (value, kind of quantity).
Numbers = dict[str, tuple[Any, str]]


#: The kind of quantity of each column these tables can hold (the rest are counts or words).
COLUMN_KINDS: dict[str, str] = {
    **{name: "percent" for name in STATUS_NAMES.values()}, **{c: "percent" for c in SURVIVAL_COLUMNS},
    "Not fresh": "percent", "Share forgiven": "percent", "Sharing their hash": "percent",
    "False FRESH of the symbol-only gate": "percent", "Steps with at most 2% to review": "percent",
    "Withheld per 100, symbol-only": "tenths", "Withheld per 100, wide": "tenths", "Withheld per 100, precise": "tenths",
    "Load ratio, wide": "ratio", "Load ratio, precise": "ratio", **{k: "tenths" for k in nh.WITHHELD_KINDS},
    "Notes per release": "count", "Notes per step": "count", "To review, median": "tenths", "To review, mean": "tenths",
    "Per 100 notes, mean": "tenths", "Per 100 notes, median": "tenths",
}


def formats(frame: pd.DataFrame) -> dict[str, str]:
    """The formats of a table of this module: each column's kind of quantity from :data:`COLUMN_KINDS`.

    Parameters
    ----------
    frame
        A table returned by a function of this module.

    Returns
    -------
    dict
        Column -> kind, for the columns :data:`COLUMN_KINDS` knows.
    """
    return {c: COLUMN_KINDS[c] for c in frame.columns if c in COLUMN_KINDS}


def key(name: str) -> str:
    """A project or group name as it appears inside a glue key (``rpds-py`` -> ``rpds_py``, ``Python`` -> ``python``).

    Parameters
    ----------
    name : str
        A project, a language or a gate.

    Returns
    -------
    str
        Lower case, ``-`` as ``_``.
    """
    return name.replace("-", "_").lower()


def project_name(name: str) -> str:
    """How a page writes a project, a language's pool (``"Go, pooled"`` for any registered language) or ``all``.

    Parameters
    ----------
    name : str
        A project's table name, a registered language's name, or ``"all"``.

    Returns
    -------
    str
        Its name on the page; an unknown project keeps its own.
    """
    if name not in PROJECT_NAMES and name in {language.name for language in languages()}:
        return f"{name}, pooled"
    return PROJECT_NAMES.get(name, name)


def _rows(r: Replay) -> list[str]:
    """Projects, then the language pools that hold more than one project or sit beside another language, then all."""
    pools = list(r.languages) if len(r.languages) > 1 else []
    return r.projects + pools + ["all"]


def overview_table(r: Replay, kinds: Sequence[str] = nh.NOTE_KINDS) -> pd.DataFrame:
    """One row per project: language, releases, first and last version, notes per release, pairs replayed.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).
    kinds
        Symbol kinds that carry a note.

    Returns
    -------
    DataFrame
        Columns named for the page.
    """
    frame = nh.overview(r.tables, r.replayed, kinds)
    return pd.DataFrame({
        "Project": frame["project"].map(project_name), "Language": frame["language"], "Releases": frame["releases"],
        "First": frame["first"], "Last": frame["last"], "Notes per release": frame["notes per release (mean)"],
        "(Note, later release) pairs": frame["note-release pairs replayed"],
    })


def gates_table(r: Replay) -> pd.DataFrame:
    """The three gates side by side per project, per language and pooled: load per 100, ratios, false-FRESH.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).

    Returns
    -------
    DataFrame
        Columns named for the page; percentages already in percent.
    """
    t = totals(r).reindex(_rows(r))
    return pd.DataFrame({
        "Project": [project_name(p) for p in t.index],
        "Release steps": t["steps"].astype(int).to_numpy(),
        "Note-steps": t["notes"].astype(int).to_numpy(),
        "Withheld per 100, symbol-only": t["per_100_symbol"].to_numpy(),
        "Withheld per 100, wide": t["per_100_wide"].to_numpy(),
        "Withheld per 100, precise": t["per_100_dependency"].to_numpy(),
        "Load ratio, wide": t["load_ratio_wide"].to_numpy(),
        "Load ratio, precise": t["load_ratio"].to_numpy(),
        "False FRESH of the symbol-only gate": (100 * t["false_fresh"]).to_numpy(),
        "Shown by precise, withheld by wide": t["released"].astype(int).to_numpy(),
    })


def kinds_table(r: Replay) -> pd.DataFrame:
    """Notes withheld per 100 note-steps by why (own code, module name, class member), per project and gate.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).

    Returns
    -------
    DataFrame
        One row per (project, gate) with a column per :data:`cvlib.notes.history.WITHHELD_KINDS`.
    """
    frame = nh.withheld_by_kind(r.replayed)
    rows = []
    for project in r.projects:
        for gate in nh.GATE_COLUMNS:
            mine = frame[(frame["project"] == project) & (frame["gate"] == gate)].set_index("kind")["per_100"]
            rows.append({"Project": project_name(project), "Gate": gate, **{k: float(mine.get(k, 0.0)) for k in nh.WITHHELD_KINDS}})
    return pd.DataFrame(rows)


def fallback_table(r: Replay) -> pd.DataFrame:
    """Note-steps on which the precise rule fell back to the wide one, per reason (rows) and project (columns).

    Python reasons come first, then Rust's (each language's rule has its own);
    a project counts only under its language's reasons.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).

    Returns
    -------
    DataFrame
        ``Language``, ``Reason`` and one column per project, counts; a last row ``all reasons``.
    """
    frame = nh.fallbacks(r.replayed)
    registered = languages()
    projects = [p for language in registered for p in r.languages.get(language.name, [])]
    rows = []
    for language in registered:
        members = r.languages.get(language.name, [])
        if not members:
            continue
        for reason in language.fallback_reasons:
            mine = frame[(frame["reason"] == reason) & frame["project"].isin(members)].set_index("project")["note_steps"]
            rows.append({"Language": language.name, "Reason": reason, **{project_name(p): int(mine.get(p, 0)) for p in projects}})
    out = pd.DataFrame(rows, columns=["Language", "Reason", *[project_name(p) for p in projects]])
    total = {"Language": "", "Reason": "all reasons", **{project_name(p): int(out[project_name(p)].sum()) for p in projects}}
    return pd.concat([out, pd.DataFrame([total])], ignore_index=True)


def step_shares_table(r: Replay) -> pd.DataFrame:
    """Mean share (percent) of notes in each status per release step, per project; statuses that never occur left out.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).

    Returns
    -------
    DataFrame
        Columns named for the page; shares in percent.
    """
    steps = nh.step_shares(r.replayed)
    statuses = list(nh.STATUS_ORDER)
    means = steps.groupby("project", sort=False)[statuses].mean().reindex(r.projects)
    pooled = nh.status_totals(r.replayed).set_index("project")
    shown = [s for s in statuses if pooled.loc["all", s] > 0]
    out = (100 * means[shown]).rename(columns=STATUS_NAMES)
    out.insert(0, "Project", [project_name(p) for p in out.index])
    return out.reset_index(drop=True)


def worst_steps_table(r: Replay) -> pd.DataFrame:
    """Per project, the release step that left the fewest notes FRESH (precise gate), shares in percent.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).

    Returns
    -------
    DataFrame
        Columns named for the page; shares in percent.
    """
    worst = nh.worst_steps(nh.step_shares(r.replayed), r.tables)
    columns = [c for c in worst.columns if c.startswith("%")]
    out = pd.DataFrame({"Project": [project_name(p) for p in worst.index],
                        "Step": worst["step"].str.replace("->", "→").to_numpy(),
                        "Notes": worst["notes"].astype(int).to_numpy()})
    for c in columns:
        out["Not fresh" if c == "% not FRESH" else STATUS_NAMES.get(c[2:], c)] = worst[c].to_numpy()
    return out


def survival_table(r: Replay) -> pd.DataFrame:
    """Share (percent) of notes FRESH at every release so far, per language and gate, at :data:`HORIZONS`.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).

    Returns
    -------
    DataFrame
        Columns named for the page; shares in percent.
    """
    pooled = by_language(r.replayed, r.languages)
    rows = []
    for language in r.languages:
        for gate, column in nh.GATE_COLUMNS.items():
            surv = nh.survival(pooled, column).set_index(["project", "horizon"])["surviving"]
            rows.append({"Language": language, "Gate": gate,
                         **{c: 100 * surv.get((language, h), float("nan")) for c, h in zip(SURVIVAL_COLUMNS, HORIZONS)}})
    return pd.DataFrame(rows)


def horizon_table(r: Replay) -> pd.DataFrame:
    """Status (percent) at a given later release, without the path there, per project at :data:`HORIZONS`.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).

    Returns
    -------
    DataFrame
        Columns named for the page; shares in percent.
    """
    at_h = nh.status_by_horizon(r.replayed)
    at_h = at_h[at_h["horizon"].isin(HORIZONS)]
    shown = [s for s in nh.STATUS_ORDER if at_h[s].sum() > 0]
    out = pd.DataFrame({"Project": at_h["project"].map(project_name).to_numpy(), "Releases later": at_h["horizon"].to_numpy(),
                        "Notes": at_h["notes"].astype(int).to_numpy()})
    for s in shown:
        out[STATUS_NAMES[s]] = (100 * at_h[s]).to_numpy()
    return out


def forgiven_table(r: Replay) -> pd.DataFrame:
    """Raw changes at a note's place and how many normalization forgave, per project, per language and pooled.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).

    Returns
    -------
    DataFrame
        Columns named for the page; shares in percent.
    """
    fg = nh.forgiven(r.replayed)
    sums = fg.groupby("project", sort=False)[["raw_changed", "forgiven"]].sum().reindex(r.projects)
    for name in _rows(r)[len(r.projects):]:
        members = r.projects if name == "all" else r.languages[name]
        sums.loc[name] = sums.loc[members].sum()
    return pd.DataFrame({"Project": [project_name(p) for p in sums.index], "Raw changes": sums["raw_changed"].astype(int).to_numpy(),
                         "Forgiven": sums["forgiven"].astype(int).to_numpy(),
                         "Share forgiven": (100 * sums["forgiven"] / sums["raw_changed"]).to_numpy()})


def review_table(r: Replay) -> pd.DataFrame:
    """Re-reviews per release step (precise gate), per project: median, mean, most, per 100 notes, quiet steps.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).

    Returns
    -------
    DataFrame
        Columns named for the page; shares in percent.
    """
    load = nh.review_load(r.replayed)
    grouped = load.groupby("project", sort=False)
    quiet = load.assign(quiet=load["to_review"] <= 0.02 * load["notes"]).groupby("project", sort=False)["quiet"].mean()
    out = pd.DataFrame({
        "Steps": grouped.size(), "Notes per step": grouped["notes"].mean(), "To review, median": grouped["to_review"].median(),
        "To review, mean": grouped["to_review"].mean(), "To review, most": grouped["to_review"].max(),
        "Per 100 notes, mean": grouped["per_100_notes"].mean(), "Per 100 notes, median": grouped["per_100_notes"].median(),
        "Steps with at most 2% to review": 100 * quiet,
    }).reindex(r.projects)
    out.insert(0, "Project", [project_name(p) for p in out.index])
    return out.reset_index(drop=True)


def duplicates_table(r: Replay, kinds: Sequence[str] = nh.NOTE_KINDS) -> pd.DataFrame:
    """How often a Python function or method shares its normalized hash with another symbol of its release, by size.

    Python only: :data:`~cvlib.notes.symbols.MIN_IDENTIFIABLE_NODES` counts
    :mod:`ast` nodes, and tree-sitter's nodes for Rust are on another scale.

    Parameters
    ----------
    r
        The replay (:func:`cvlib.notes.replay.replay_projects`).
    kinds
        Symbol kinds that carry a note.

    Returns
    -------
    DataFrame
        Columns named for the page; shares in percent.
    """
    python = r.languages.get("Python", [])
    if not python:
        raise ParameterError("the duplicate table needs at least one Python project")
    dups = pd.concat([nh.duplicate_share_by_size(r.tables[p], kinds=kinds) for p in python], ignore_index=True)
    labels = [f"under {MIN_IDENTIFIABLE_NODES}", f"{MIN_IDENTIFIABLE_NODES}–12", "13–20", "over 20"]
    size = pd.cut(dups["nodes"], [0, MIN_IDENTIFIABLE_NODES - 1, 12, 20, 10**6], labels=labels)
    by_size = dups.groupby(size, observed=True)["shared"].agg(["size", "mean"])
    return pd.DataFrame({"Normalized body (AST nodes)": [str(i) for i in by_size.index],
                         "Symbol-releases": by_size["size"].astype(int).to_numpy(),
                         "Sharing their hash": (100 * by_size["mean"]).to_numpy()})


def release_numbers(r: Replay, story: tuple[str, int, str, str] = STORY, kinds: Sequence[str] = nh.NOTE_KINDS) -> Numbers:
    """Every number the release-history chapter's prose glues, with its kind.

    Parameters
    ----------
    r
        The replay.
    story
        ``(project, from_release, path, class)`` of the release step the
        chapter tells (:data:`STORY`); skipped when the project is not replayed.
    kinds
        Symbol kinds that carry a note.

    Returns
    -------
    dict
        ``key -> (value, kind)``, in the order the parts below add them.
    """
    t = totals(r)
    out: Numbers = {}
    out.update(_gate_numbers(r, t, kinds))
    out.update(_fallback_numbers(r))
    out.update(_kind_numbers(r, t))
    out.update(_false_fresh_numbers(r))
    out.update(_story_numbers(r, story))
    out.update(_status_numbers(r))
    out.update(_survival_numbers(r))
    out.update(_review_numbers(r, kinds))
    return out


def _gate_numbers(r: Replay, t: pd.DataFrame, kinds: Sequence[str]) -> Numbers:
    """The replay's size and, per project, pool and ``all``, the three gates' loads, ratios and false-FRESH shares."""
    out: Numbers = {}
    ov = nh.overview(r.tables, r.replayed, kinds)
    out["N_projects"] = (len(r.projects), "count")
    out["N_releases_total"] = (int(ov["releases"].sum()), "count")
    out["N_pairs_total"] = (int(ov["note-release pairs replayed"].sum()), "count")
    for language, members in r.languages.items():
        out[f"N_{key(language)}_projects"] = (len(members), "count")
        out[f"N_{key(language)}_list"] = (
            " and ".join(f"{project_name(p)} ({len(r.versions[p])} releases)" for p in members), "text")
    for p in _rows(r):
        row, k = t.loc[p], key(p)
        out[f"N_{k}_per100_symbol"] = (float(row["per_100_symbol"]), "tenths")
        out[f"N_{k}_per100_wide"] = (float(row["per_100_wide"]), "tenths")
        out[f"N_{k}_per100_dependency"] = (float(row["per_100_dependency"]), "tenths")
        out[f"N_{k}_load_ratio"] = (float(row["load_ratio"]), "ratio")
        out[f"N_{k}_load_ratio_wide"] = (float(row["load_ratio_wide"]), "ratio")
        out[f"N_{k}_false_fresh"] = (100 * float(row["false_fresh"]), "percent")
        out[f"N_{k}_dep_changed"] = (int(row["dependency_changed"]), "count")
        out[f"N_{k}_symbol_fresh"] = (int(row["symbol_fresh"]), "count")
        out[f"N_{k}_released"] = (int(row["released"]), "count")
        out[f"N_{k}_false_fresh_wide"] = (100 * float(row["false_fresh_wide"]), "percent")
    out["N_load_ratio"] = out["N_all_load_ratio"]
    out["N_load_ratio_wide"] = out["N_all_load_ratio_wide"]
    out["N_load_target"] = (1.5, "ratio")
    out["N_load_ratio_within"] = ("within" if t.loc["all", "load_ratio"] <= 1.5 else "above", "text")
    return out


def _fallback_numbers(r: Replay) -> Numbers:
    """Fallbacks of the precise rule per language (``N_fallback_*`` for Python, ``N_rust_fallback_*`` for Rust, ...)."""
    out: Numbers = {}
    all_fb = nh.fallbacks(r.replayed)
    for lang in languages():
        prefix = "N_fallback" if lang.name == DEFAULT_LANGUAGE else f"N_{key(lang.name)}_fallback"
        members = r.languages.get(lang.name, [])
        if not members:
            continue
        fb = all_fb[all_fb["project"].isin(members)]
        lang_steps = int((r.replayed["horizon"] == 1)[r.replayed["project"].isin(members)].sum())
        fell = int(fb["note_steps"].sum())
        out[f"{prefix}_steps"] = (fell, "count")
        out[f"{prefix}_pct"] = (100 * fell / lang_steps if lang_steps else 0.0, "percent")
        if fell:
            top = fb.groupby("reason")["note_steps"].sum().sort_values(ascending=False, kind="stable")
            out[f"{prefix}_top"] = (str(top.index[0]), "text")
            out[f"{prefix}_top_pct"] = (100 * float(top.iloc[0]) / fell, "percent")
    return out


def _kind_numbers(r: Replay, t: pd.DataFrame) -> Numbers:
    """Notes withheld per 100 note-steps by why, per gate, pooled over all projects."""
    out: Numbers = {}
    wk = nh.withheld_by_kind(r.replayed)
    notes = float(t.loc["all", "notes"])
    for gate in nh.GATE_COLUMNS:
        for kind in nh.WITHHELD_KINDS:
            n = float(wk[(wk["gate"] == gate) & (wk["kind"] == kind)]["withheld"].sum())
            out[f"N_{key(gate).replace('-', '_')}_{kind.split()[-1]}_per100"] = (100 * n / notes, "tenths")
    return out


def _false_fresh_numbers(r: Replay) -> Numbers:
    """The per-step spread of the symbol-only gate's false-FRESH rate: its worst step and its median."""
    out: Numbers = {}
    comparison = nh.gate_comparison(r.replayed)
    pct = 100 * comparison["false_fresh"]
    worst = comparison.loc[pct.idxmax()]
    names = r.versions[str(worst["project"])]
    out["N_ff_worst_pct"] = (float(pct.max()), "percent")
    out["N_ff_worst_project"] = (project_name(str(worst["project"])), "text")
    out["N_ff_worst_step"] = (f"{names[int(worst['from_release'])]} → {names[int(worst['to_release'])]}", "text")
    out["N_ff_median_pct"] = (float(pct.median()), "percent")
    out["N_steps_without_dep_change"] = (int((comparison["dependency_changed"] == 0).sum()), "count")
    out["N_steps_total"] = (len(comparison), "count")
    return out


def _story_numbers(r: Replay, story: tuple[str, int, str, str]) -> Numbers:
    """The release step the chapter tells: its methods and how many each gate withholds (none when not replayed)."""
    out: Numbers = {}
    project, start, path, cls = story
    if project in r.tables and start + 1 < len(r.versions[project]):
        told: dict[str, Any] = nh.class_step(r.replayed, project, start, path, cls)
        out["N_story_step"] = (f"{project_name(project)} {r.versions[project][start]} → {r.versions[project][start + 1]}", "text")
        out["N_story_methods"] = (int(told["methods"]), "count")
        out["N_story_withheld_symbol"] = (told["withheld"]["symbol-only"], "count")
        out["N_story_withheld_wide"] = (told["withheld"]["wide"], "count")
        out["N_story_withheld_precise"] = (told["withheld"]["precise"], "count")
        members = [lab for lab in told["changed_wide"] if "." in lab and not lab.endswith(" (new)")]
        out["N_story_members"] = (" and ".join(f"`{m.split('.', 1)[1]}`" for m in members[:2]) or "none", "text")
    return out


def _status_numbers(r: Replay) -> Numbers:
    """Status shares one release later, pooled, and each project's worst step."""
    out: Numbers = {}
    pooled = nh.status_totals(r.replayed).set_index("project")
    pooled_symbol = nh.status_totals(r.replayed, "status_symbol").set_index("project")
    out["N_fresh_step_all"] = (100 * pooled.loc["all", "FRESH"] / pooled.loc["all", "notes"], "percent")
    out["N_fresh_step_all_symbol"] = (100 * pooled_symbol.loc["all", "FRESH"] / pooled_symbol.loc["all", "notes"], "percent")
    for status in ("RENAMED", "AMBIGUOUS", "MISSING", "UNPARSABLE"):
        out[f"N_{status.lower()}_all"] = (int(pooled.loc["all", status]), "count")
    worst_steps = nh.worst_steps(nh.step_shares(r.replayed), r.tables)
    for p in r.projects:
        out[f"N_{key(p)}_worst_step"] = (worst_steps.loc[p, "step"].replace("->", "→"), "text")
        out[f"N_{key(p)}_worst_pct"] = (float(worst_steps.loc[p, "% not FRESH"]), "percent")
    return out


def _survival_numbers(r: Replay) -> Numbers:
    """Survival after five releases, per language and gate, and the largest gap between survival and status then."""
    out: Numbers = {}
    pooled = by_language(r.replayed, r.languages)
    out["N_surv_horizon"] = (HORIZONS[2], "count")
    for gate, column in nh.GATE_COLUMNS.items():
        surv = nh.survival(pooled, column).set_index(["project", "horizon"])["surviving"]
        for language in r.languages:
            value = surv.get((language, HORIZONS[2]), float("nan"))
            out[f"N_{key(language)}_surv_{key(gate).replace('-', '_')}"] = (100 * float(value), "percent")
    at_h = nh.status_by_horizon(r.replayed).set_index(["project", "horizon"])["FRESH"]
    surv_p = nh.survival(r.replayed).set_index(["project", "horizon"])["surviving"]
    gaps = [at_h.get((p, HORIZONS[2]), float("nan")) - surv_p.get((p, HORIZONS[2]), float("nan")) for p in r.projects]
    out["N_roundtrip_max"] = (100 * float(pd.Series(gaps).max()), "tenths")
    return out


def _review_numbers(r: Replay, kinds: Sequence[str]) -> Numbers:
    """Normalization's forgiven edits and the review load per pool, and the duplicate shares behind the node threshold."""
    out: Numbers = {}
    fg = forgiven_table(r).set_index("Project")
    for p in _rows(r)[len(r.projects):]:
        out[f"N_{key(p)}_forgiven"] = (int(fg.loc[project_name(p), "Forgiven"]), "count")
        out[f"N_{key(p)}_raw_changed"] = (int(fg.loc[project_name(p), "Raw changes"]), "count")
        out[f"N_{key(p)}_forgiven_pct"] = (float(fg.loc[project_name(p), "Share forgiven"]), "percent")
    load = nh.review_load(r.replayed)
    for language, members in r.languages.items():
        mine = load[load["project"].isin(members)]["per_100_notes"]
        out[f"N_{key(language)}_review_mean100"] = (float(mine.mean()), "tenths")
        out[f"N_{key(language)}_review_median100"] = (float(mine.median()), "tenths")
    if "Python" in r.languages:
        dups = duplicates_table(r, kinds)
        python_dups = pd.concat([nh.duplicate_share_by_size(r.tables[p], kinds=kinds) for p in r.languages["Python"]])
        out["N_min_nodes"] = (MIN_IDENTIFIABLE_NODES, "count")
        out["N_dup_small"] = (float(dups["Sharing their hash"].iloc[0]), "percent")
        out["N_dup_large"] = (100 * float(python_dups.loc[python_dups["nodes"] >= MIN_IDENTIFIABLE_NODES, "shared"].mean()),
                              "percent")
    return out
