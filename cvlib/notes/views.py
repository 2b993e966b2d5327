"""What the two notes chapters show: the replay and the trial counts reshaped into the tables and numbers a page prints.

The chapters *Notes on real release histories* and *What the published trials
say* hold only calls: every reshaping of :mod:`cvlib.notes.history` and
:mod:`cvlib.notes.trials` output (pivots, pooled rows, percentages, display
names) happens here, so it is tested. Tables come out with the names a reader
sees as columns; numbers come out as ``{key: (value, kind)}`` for
:func:`cvlib.presentation.formatting.glue_all` (``kind`` names the quantity:
``"count"``, ``"percent"``, ``"tenths"``, ``"mean"``, ``"ratio"``, or
``"text"`` for words).

Projects are pooled by language (Python: Requests, Flask, HTTPie; Rust: jiter,
rpds-py) besides the row ``all``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from cvlib.core.errors import ParameterError

from . import audit as na
from . import history as nh
from . import trials as nt
from .languages import DEFAULT_LANGUAGE, languages
from .symbols import MIN_IDENTIFIABLE_NODES

#: How the projects of the release histories are written.
PROJECT_NAMES: dict[str, str] = {"requests": "Requests", "flask": "Flask", "httpie": "HTTPie", "jiter": "jiter",
                                 "rpds-py": "rpds-py", "Python": "Python, pooled", "Rust": "Rust, pooled",
                                 "all": "all projects"}

#: Status names as a page writes them.
STATUS_NAMES: dict[str, str] = {s: s.replace("_", " ").capitalize() for s in nh.STATUS_ORDER}

#: The horizons (releases after anchoring) the survival table shows, and its columns for them.
HORIZONS: tuple[int, ...] = (1, 3, 5, 8)
SURVIVAL_COLUMNS: tuple[str, ...] = tuple(f"After {h} release{'s' if h > 1 else ''}" for h in HORIZONS)

Numbers = dict[str, tuple[Any, str]]

#: The kind of quantity of each column these tables can hold (the rest are counts or words).
COLUMN_KINDS: dict[str, str] = {
    **{name: "percent" for name in STATUS_NAMES.values()}, **{c: "percent" for c in SURVIVAL_COLUMNS},
    "Not fresh": "percent", "Share forgiven": "percent", "Sharing their hash": "percent",
    "False FRESH of the symbol-only gate": "percent", "Steps with at most 2% to review": "percent",
    "Withheld per 100, symbol-only": "tenths", "Withheld per 100, wide": "tenths", "Withheld per 100, precise": "tenths",
    "Load ratio, wide": "ratio", "Load ratio, precise": "ratio", **{k: "tenths" for k in nh.WITHHELD_KINDS},
    "Notes per release": "count", "Notes per step": "count", "To review, median": "tenths", "To review, mean": "tenths",
    "Per 100 notes, mean": "tenths", "Per 100 notes, median": "tenths", "Share": "percent", "Wilson low": "percent",
    "Wilson high": "percent",
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
        Column -> kind, for the columns :data:`COLUMN_KINDS` knows (and
        ``"mean"`` for the per-release columns of :func:`expected_table`).
    """
    out = {c: COLUMN_KINDS[c] for c in frame.columns if c in COLUMN_KINDS}
    out.update({c: "mean" for c in frame.columns
                if c.endswith("true notes withheld") or c.capitalize() in (p.capitalize() for p in POLICIES)
                and c != "Verify first"})
    return out


def key(name: str) -> str:
    """A project or group name as it appears inside a glue key (``rpds-py`` -> ``rpds_py``, ``Python`` -> ``python``)."""
    return name.replace("-", "_").lower()


def _named(name: str) -> str:
    if name not in PROJECT_NAMES and name in {language.name for language in languages()}:
        return f"{name}, pooled"
    return PROJECT_NAMES.get(name, name)


@dataclass(frozen=True)
class Replay:
    """The release histories of some projects and their replay (every note, every later release)."""

    tables: dict[str, pd.DataFrame]
    replayed: pd.DataFrame
    versions: dict[str, list[str]]
    languages: dict[str, list[str]]

    @property
    def projects(self) -> list[str]:
        """The projects, in the order asked for."""
        return list(self.tables)


def replay_projects(projects: Sequence[str], folder: str | Path, kinds: Sequence[str] = nh.NOTE_KINDS) -> Replay:
    """Load each project's table and replay it (:func:`cvlib.notes.history.replay`).

    Parameters
    ----------
    projects
        Table names under ``folder``.
    folder
        The folder of the committed tables.
    kinds
        Symbol kinds that carry a note.

    Returns
    -------
    Replay
    """
    tables = nh.load_histories(projects, folder)
    replayed = pd.concat([nh.replay(t, kinds=kinds) for t in tables.values()], ignore_index=True)
    languages: dict[str, list[str]] = {}
    for project, table in tables.items():
        languages.setdefault(nh.language(table), []).append(project)
    return Replay(tables, replayed, {p: nh.versions(t) for p, t in tables.items()}, languages)


def _rows(r: Replay) -> list[str]:
    """Projects, then the language pools that hold more than one project or sit beside another language, then all."""
    pools = list(r.languages) if len(r.languages) > 1 else []
    return r.projects + pools + ["all"]


def overview_table(r: Replay, kinds: Sequence[str] = nh.NOTE_KINDS) -> pd.DataFrame:
    """One row per project: language, releases, first and last version, notes per release, pairs replayed.

    Returns
    -------
    DataFrame
        Columns named for the page.
    """
    frame = nh.overview(r.tables, r.replayed, kinds)
    return pd.DataFrame({
        "Project": frame["project"].map(_named), "Language": frame["language"], "Releases": frame["releases"],
        "First": frame["first"], "Last": frame["last"], "Notes per release": frame["notes per release (mean)"],
        "(Note, later release) pairs": frame["note-release pairs replayed"],
    })


def totals(r: Replay) -> pd.DataFrame:
    """:func:`cvlib.notes.history.gate_totals` with a pooled row per language, indexed by project."""
    return nh.gate_totals(r.replayed, r.languages).set_index("project")


def gates_table(r: Replay) -> pd.DataFrame:
    """The three gates side by side per project, per language and pooled: load per 100, ratios, false-FRESH.

    Returns
    -------
    DataFrame
        Columns named for the page; percentages already in percent.
    """
    t = totals(r).reindex(_rows(r))
    return pd.DataFrame({
        "Project": [_named(p) for p in t.index],
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
            rows.append({"Project": _named(project), "Gate": gate, **{k: float(mine.get(k, 0.0)) for k in nh.WITHHELD_KINDS}})
    return pd.DataFrame(rows)


def fallback_table(r: Replay) -> pd.DataFrame:
    """Note-steps on which the precise rule fell back to the wide one, per reason (rows) and project (columns).

    Python reasons come first, then Rust's (each language's rule has its own);
    a project counts only under its language's reasons.

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
            rows.append({"Language": language.name, "Reason": reason, **{_named(p): int(mine.get(p, 0)) for p in projects}})
    out = pd.DataFrame(rows, columns=["Language", "Reason", *[_named(p) for p in projects]])
    total = {"Language": "", "Reason": "all reasons", **{_named(p): int(out[_named(p)].sum()) for p in projects}}
    return pd.concat([out, pd.DataFrame([total])], ignore_index=True)


def step_shares_table(r: Replay) -> pd.DataFrame:
    """Mean share (percent) of notes in each status per release step, per project; statuses that never occur left out."""
    steps = nh.step_shares(r.replayed)
    statuses = list(nh.STATUS_ORDER)
    means = steps.groupby("project", sort=False)[statuses].mean().reindex(r.projects)
    pooled = nh.status_totals(r.replayed).set_index("project")
    shown = [s for s in statuses if pooled.loc["all", s] > 0]
    out = (100 * means[shown]).rename(columns=STATUS_NAMES)
    out.insert(0, "Project", [_named(p) for p in out.index])
    return out.reset_index(drop=True)


def worst_steps_table(r: Replay) -> pd.DataFrame:
    """Per project, the release step that left the fewest notes FRESH (precise gate), shares in percent."""
    worst = nh.worst_steps(nh.step_shares(r.replayed), r.tables)
    columns = [c for c in worst.columns if c.startswith("%")]
    out = pd.DataFrame({"Project": [_named(p) for p in worst.index],
                        "Step": worst["step"].str.replace("->", "→").to_numpy(),
                        "Notes": worst["notes"].astype(int).to_numpy()})
    for c in columns:
        out["Not fresh" if c == "% not FRESH" else STATUS_NAMES.get(c[2:], c)] = worst[c].to_numpy()
    return out


def _by_language(replayed: pd.DataFrame, languages: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    to_language = {p: lang for lang, members in languages.items() for p in members}
    return replayed.assign(project=replayed["project"].map(to_language))


def survival_table(r: Replay) -> pd.DataFrame:
    """Share (percent) of notes FRESH at every release so far, per language and gate, at :data:`HORIZONS`."""
    pooled = _by_language(r.replayed, r.languages)
    rows = []
    for language in r.languages:
        for gate, column in nh.GATE_COLUMNS.items():
            surv = nh.survival(pooled, column).set_index(["project", "horizon"])["surviving"]
            rows.append({"Language": language, "Gate": gate,
                         **{c: 100 * surv.get((language, h), float("nan")) for c, h in zip(SURVIVAL_COLUMNS, HORIZONS)}})
    return pd.DataFrame(rows)


def survival_curves(r: Replay, column: str = "status") -> pd.DataFrame:
    """:func:`cvlib.notes.history.survival` per project under one gate's column (for the figure)."""
    return nh.survival(r.replayed, column)


def horizon_table(r: Replay) -> pd.DataFrame:
    """Status (percent) at a given later release, without the path there, per project at :data:`HORIZONS`."""
    at_h = nh.status_by_horizon(r.replayed)
    at_h = at_h[at_h["horizon"].isin(HORIZONS)]
    shown = [s for s in nh.STATUS_ORDER if at_h[s].sum() > 0]
    out = pd.DataFrame({"Project": at_h["project"].map(_named).to_numpy(), "Releases later": at_h["horizon"].to_numpy(),
                        "Notes": at_h["notes"].astype(int).to_numpy()})
    for s in shown:
        out[STATUS_NAMES[s]] = (100 * at_h[s]).to_numpy()
    return out


def forgiven_table(r: Replay) -> pd.DataFrame:
    """Raw changes at a note's place and how many normalization forgave, per project, per language and pooled."""
    fg = nh.forgiven(r.replayed)
    sums = fg.groupby("project", sort=False)[["raw_changed", "forgiven"]].sum().reindex(r.projects)
    for name in _rows(r)[len(r.projects):]:
        members = r.projects if name == "all" else r.languages[name]
        sums.loc[name] = sums.loc[members].sum()
    return pd.DataFrame({"Project": [_named(p) for p in sums.index], "Raw changes": sums["raw_changed"].astype(int).to_numpy(),
                         "Forgiven": sums["forgiven"].astype(int).to_numpy(),
                         "Share forgiven": (100 * sums["forgiven"] / sums["raw_changed"]).to_numpy()})


def review_table(r: Replay) -> pd.DataFrame:
    """Re-reviews per release step (precise gate), per project: median, mean, most, per 100 notes, quiet steps."""
    load = nh.review_load(r.replayed)
    grouped = load.groupby("project", sort=False)
    quiet = load.assign(quiet=load["to_review"] <= 0.02 * load["notes"]).groupby("project", sort=False)["quiet"].mean()
    out = pd.DataFrame({
        "Steps": grouped.size(), "Notes per step": grouped["notes"].mean(), "To review, median": grouped["to_review"].median(),
        "To review, mean": grouped["to_review"].mean(), "To review, most": grouped["to_review"].max(),
        "Per 100 notes, mean": grouped["per_100_notes"].mean(), "Per 100 notes, median": grouped["per_100_notes"].median(),
        "Steps with at most 2% to review": 100 * quiet,
    }).reindex(r.projects)
    out.insert(0, "Project", [_named(p) for p in out.index])
    return out.reset_index(drop=True)


def duplicates_table(r: Replay, kinds: Sequence[str] = nh.NOTE_KINDS) -> pd.DataFrame:
    """How often a Python function or method shares its normalized hash with another symbol of its release, by size.

    Python only: :data:`~cvlib.notes.symbols.MIN_IDENTIFIABLE_NODES` counts
    :mod:`ast` nodes, and tree-sitter's nodes for Rust are on another scale.
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


def release_numbers(r: Replay, story: tuple[str, int, str, str] = ("flask", 0, "flask/app.py", "Flask"),
                    kinds: Sequence[str] = nh.NOTE_KINDS) -> Numbers:
    """Every number the release-history chapter's prose glues, with its kind.

    Parameters
    ----------
    r
        The replay.
    story
        ``(project, from_release, path, class)`` of the release step the
        chapter tells (Flask 2.2.0 -> 2.2.1, class ``Flask``); skipped when
        the project is not replayed.
    kinds
        Symbol kinds that carry a note.

    Returns
    -------
    dict
        ``key -> (value, kind)``.
    """
    out: Numbers = {}
    t = totals(r)
    ov = nh.overview(r.tables, r.replayed, kinds)
    out["N_projects"] = (len(r.projects), "count")
    out["N_releases_total"] = (int(ov["releases"].sum()), "count")
    out["N_pairs_total"] = (int(ov["note-release pairs replayed"].sum()), "count")
    for language, members in r.languages.items():
        out[f"N_{key(language)}_projects"] = (len(members), "count")
        out[f"N_{key(language)}_list"] = (
            " and ".join(f"{_named(p)} ({len(r.versions[p])} releases)" for p in members), "text")
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
    # fallbacks, per language (``N_fallback_*`` for Python, ``N_rust_fallback_*`` for Rust, and so on)
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
    # the kinds, pooled over all projects
    wk = nh.withheld_by_kind(r.replayed)
    notes = float(t.loc["all", "notes"])
    for gate in nh.GATE_COLUMNS:
        for kind in nh.WITHHELD_KINDS:
            n = float(wk[(wk["gate"] == gate) & (wk["kind"] == kind)]["withheld"].sum())
            out[f"N_{key(gate).replace('-', '_')}_{kind.split()[-1]}_per100"] = (100 * n / notes, "tenths")
    # per-step spread of the symbol-only gate's false-FRESH rate
    comparison = nh.gate_comparison(r.replayed)
    pct = 100 * comparison["false_fresh"]
    worst = comparison.loc[pct.idxmax()]
    names = r.versions[str(worst["project"])]
    out["N_ff_worst_pct"] = (float(pct.max()), "percent")
    out["N_ff_worst_project"] = (_named(str(worst["project"])), "text")
    out["N_ff_worst_step"] = (f"{names[int(worst['from_release'])]} → {names[int(worst['to_release'])]}", "text")
    out["N_ff_median_pct"] = (float(pct.median()), "percent")
    out["N_steps_without_dep_change"] = (int((comparison["dependency_changed"] == 0).sum()), "count")
    out["N_steps_total"] = (len(comparison), "count")
    # the story
    project, start, path, cls = story
    if project in r.tables and start + 1 < len(r.versions[project]):
        told: dict[str, Any] = nh.class_step(r.replayed, project, start, path, cls)
        out["N_story_step"] = (f"{_named(project)} {r.versions[project][start]} → {r.versions[project][start + 1]}", "text")
        out["N_story_methods"] = (int(told["methods"]), "count")
        out["N_story_withheld_symbol"] = (told["withheld"]["symbol-only"], "count")
        out["N_story_withheld_wide"] = (told["withheld"]["wide"], "count")
        out["N_story_withheld_precise"] = (told["withheld"]["precise"], "count")
        members = [lab for lab in told["changed_wide"] if "." in lab and not lab.endswith(" (new)")]
        out["N_story_members"] = (" and ".join(f"`{m.split('.', 1)[1]}`" for m in members[:2]) or "none", "text")
    # status shares one release later
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
    # survival after five releases, per language and gate
    by_language = _by_language(r.replayed, r.languages)
    out["N_surv_horizon"] = (HORIZONS[2], "count")
    for gate, column in nh.GATE_COLUMNS.items():
        surv = nh.survival(by_language, column).set_index(["project", "horizon"])["surviving"]
        for language in r.languages:
            value = surv.get((language, HORIZONS[2]), float("nan"))
            out[f"N_{key(language)}_surv_{key(gate).replace('-', '_')}"] = (100 * float(value), "percent")
    at_h = nh.status_by_horizon(r.replayed).set_index(["project", "horizon"])["FRESH"]
    surv_p = nh.survival(r.replayed).set_index(["project", "horizon"])["surviving"]
    gaps = [at_h.get((p, HORIZONS[2]), float("nan")) - surv_p.get((p, HORIZONS[2]), float("nan")) for p in r.projects]
    out["N_roundtrip_max"] = (100 * float(pd.Series(gaps).max()), "tenths")
    # normalization and review load
    fg = forgiven_table(r).set_index("Project")
    for p in _rows(r)[len(r.projects):]:
        out[f"N_{key(p)}_forgiven"] = (int(fg.loc[_named(p), "Forgiven"]), "count")
        out[f"N_{key(p)}_raw_changed"] = (int(fg.loc[_named(p), "Raw changes"]), "count")
        out[f"N_{key(p)}_forgiven_pct"] = (float(fg.loc[_named(p), "Share forgiven"]), "percent")
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


# -- the published-trials chapter ------------------------------------------------------------

#: The study's arms as the page writes them.
ARM_NAMES: dict[str, str] = {"control": "control (no note)", "true_note": "true note", "stale_labelled": "stale, labelled",
                             "stale_verify": "stale, told to verify", "stale": "stale (gated: withheld)"}

#: The policies of the per-release table, in display order.
POLICIES: tuple[str, ...] = ("warn with a label", "verify first", "symbol-only gate", "dependency-aware gate")

#: The arms the prose quotes, by glue-key stem, each as (study, model, arm).
QUOTED_ARMS: dict[str, tuple[str, str, str]] = {
    "label_glm": ("ungated", "GLM 5.2", "stale_labelled"), "label_sonnet": ("ungated", "Sonnet 4.6", "stale_labelled"),
    "verify_glm": ("ungated", "GLM 5.2", "stale_verify"), "verify_sonnet": ("ungated", "Sonnet 4.6", "stale_verify"),
    "true_glm": ("ungated", "GLM 5.2", "true_note"), "true_sonnet": ("ungated", "Sonnet 4.6", "true_note"),
    "gated_true": ("gated", "Sonnet 4.6", "true_note"), "gated_stale": ("gated", "Sonnet 4.6", "stale"),
    "control_glm": ("ungated", "GLM 5.2", "control"),
}


def _arm(arms: pd.DataFrame, study: str, model: str, arm: str) -> pd.Series:
    hit = arms[(arms["study"] == study) & (arms["model"] == model) & (arms["arm"] == arm)]
    if hit.empty:
        raise ParameterError(f"the trial counts have no arm {arm!r} of model {model!r} in study {study!r}")
    return hit.iloc[0]


def arms_table(arms: pd.DataFrame, fmt: Any) -> pd.DataFrame:
    """The arms with their counts in words (``fmt`` writes a count) and Wilson intervals in percent."""
    count = [f"{fmt(c)} of {fmt(n)} {u}" for c, n, u in zip(arms["count"], arms["total"], arms["unit"])]
    return pd.DataFrame({"Study": arms["study"], "Model": arms["model"], "Arm": arms["arm"].map(ARM_NAMES),
                         "Outcome": arms["outcome"], "Count": count, "Share": 100 * arms["share"],
                         "Wilson low": 100 * arms["low"], "Wilson high": 100 * arms["high"], "Count is": arms["status"]})


def trial_numbers(counts: pd.DataFrame, confidence: float) -> Numbers:
    """The numbers the trials chapter glues about the published counts (arms, rule kinds, run sizes)."""
    arms = counts[counts["table"] == "arms"]
    out: Numbers = {}
    for stem, (study, model, arm) in QUOTED_ARMS.items():
        row = _arm(arms, study, model, arm)
        out[f"N_{stem}_count"] = (int(row["count"]), "count")
        out[f"N_{stem}_total"] = (int(row["total"]), "count")
        out[f"N_{stem}_pct"] = (100 * float(row["share"]), "percent")
        out[f"N_{stem}_low"] = (100 * float(row["low"]), "tenths")
        out[f"N_{stem}_high"] = (100 * float(row["high"]), "percent")
    out["N_confidence_pct"] = (int(round(100 * confidence)), "count")
    runs = counts[counts["table"] == "run_size"]
    out["N_trials_all"] = (int(runs["count"].sum()), "count")
    out["N_gated_run"] = (int(runs.loc[runs["study"] == "gated", "count"].sum()), "count")
    kinds = counts[counts["table"] == "rule_kind"]
    ordering = kinds[kinds["rule_kind"] == "Ordering"]
    out["N_ordering_tasks"] = (int(ordering["total"].iloc[0]), "count")
    out["N_ordering_bad"] = (int(ordering["count"].sum()), "count")
    out["N_ordering_high"] = (100 * float(ordering["high"].max()), "percent")
    api = kinds[(kinds["rule_kind"] == "API contract") & (kinds["model"] == "GLM 5.2")].iloc[0]
    out["N_api_tasks"] = (int(api["total"]), "count")
    out["N_api_glm_bad"] = (int(api["count"]), "count")
    return out


def rule_kind_table(counts: pd.DataFrame, span: Any) -> pd.DataFrame:
    """Verify-first tasks with a stale edit by the kind of rule, per model, with Wilson intervals.

    ``span(values, kind)`` writes an interval (:func:`cvlib.presentation.formatting.span`).
    """
    kinds = counts[counts["table"] == "rule_kind"]
    order = list(dict.fromkeys(kinds["rule_kind"]))
    out = pd.DataFrame({"Kind of rule": order,
                        "Tasks": [int(kinds[kinds["rule_kind"] == k]["total"].iloc[0]) for k in order]})
    for model in sorted(kinds["model"].unique()):
        mine = kinds[kinds["model"] == model].set_index("rule_kind")
        out[f"{model}: tasks with a stale edit"] = [int(mine.loc[k, "count"]) for k in order]
        out[f"{model}: Wilson interval"] = [span([100 * mine.loc[k, "low"], 100 * mine.loc[k, "high"]], "percent") for k in order]
    return out


def step_counts(r: Replay) -> pd.DataFrame:
    """:func:`cvlib.notes.history.status_totals` (precise gate) with a pooled row per language and ``all``."""
    return nh.status_totals(r.replayed, groups=r.languages if len(r.languages) > 1 else None)


def expected_table(expected: pd.DataFrame, span: Any) -> pd.DataFrame:
    """Expected stale edits per release step per 100 notes, per (project, model) and policy, and true notes withheld.

    ``span(values, kind)`` writes the verify-first range (:func:`cvlib.presentation.formatting.span`).
    """
    rows = []
    for (project, model), mine in expected.groupby(["project", "model"], sort=False):
        by = mine.set_index("policy")
        row: dict[str, Any] = {"Project": _named(str(project)), "Model": model}
        for policy in POLICIES:
            if policy == "verify first":
                row[policy.capitalize()] = span([by.loc[policy, "stale_low"], by.loc[policy, "stale_high"]], "mean")
            else:
                row[policy.capitalize()] = float(by.loc[policy, "stale_edits"])
        for policy in POLICIES[2:]:
            row[f"{policy.capitalize()}: true notes withheld"] = float(by.loc[policy, "true_withheld"])
        rows.append(row)
    return pd.DataFrame(rows)


def expected_numbers(expected: pd.DataFrame, counts: pd.DataFrame, wrong_share: float) -> Numbers:
    """The per-release numbers the trials chapter glues, pooled and per language."""
    out: Numbers = {"N_wrong_share": (float(wrong_share), "share")}
    pooled = expected.set_index(["project", "model", "policy"])
    for model, tag in [("GLM 5.2", "glm"), ("Sonnet 4.6", "sonnet")]:
        out[f"N_exp_label_{tag}"] = (float(pooled.loc[("all", model, "warn with a label"), "stale_edits"]), "mean")
        out[f"N_exp_verify_{tag}_low"] = (float(pooled.loc[("all", model, "verify first"), "stale_low"]), "mean")
        out[f"N_exp_verify_{tag}_high"] = (float(pooled.loc[("all", model, "verify first"), "stale_high"]), "mean")
        out[f"N_exp_symbol_gate_{tag}"] = (float(pooled.loc[("all", model, "symbol-only gate"), "stale_edits"]), "mean")
    out["N_exp_gate"] = (float(pooled.loc[("all", "GLM 5.2", "dependency-aware gate"), "stale_edits"]), "mean")
    out["N_true_withheld"] = (float(pooled.loc[("all", "GLM 5.2", "dependency-aware gate"), "true_withheld"]), "mean")
    out["N_true_withheld_symbol"] = (float(pooled.loc[("all", "GLM 5.2", "symbol-only gate"), "true_withheld"]), "mean")
    for group in sorted(set(expected["project"]) & {language.name for language in languages()}):
        out[f"N_exp_symbol_gate_glm_{key(group)}"] = (
            float(pooled.loc[(group, "GLM 5.2", "symbol-only gate"), "stale_edits"]), "mean")
        out[f"N_true_withheld_{key(group)}"] = (
            float(pooled.loc[(group, "GLM 5.2", "dependency-aware gate"), "true_withheld"]), "mean")
    all_row = counts.set_index("project").loc["all"]
    out["N_changed_per100"] = (100 * float(all_row["CHANGED"]) / float(all_row["notes"]), "mean")
    out["N_depchanged_per100"] = (100 * float(all_row["DEPENDENCY_CHANGED"]) / float(all_row["notes"]), "mean")
    out["N_moved_per100"] = (100 * float(all_row["RENAMED"] + all_row["AMBIGUOUS"]) / float(all_row["notes"]), "mean")
    out["N_notes_steps"] = (int(all_row["notes"]), "count")
    return out


def policy_curves(counts: pd.DataFrame, rates: list[nt.PolicyRates], shares: Sequence[float]) -> pd.DataFrame:
    """:func:`cvlib.notes.trials.expected_stale_edits` of the pooled row at each assumed wrong share (for the figure)."""
    pooled = counts[counts["project"] == "all"]
    return pd.concat([nt.expected_stale_edits(pooled, rates, float(w)).assign(wrong_share=float(w)) for w in shares],
                     ignore_index=True)


def provenance_table(arms: pd.DataFrame, wrong_share: float, fmt: Any, listing: Any) -> pd.DataFrame:
    """Which number of the trials chapter is whose: published, implied, ours measured, ours assumed.

    ``fmt(value)`` writes a number and ``listing(values, last=...)`` a list
    (:mod:`cvlib.presentation.formatting`).
    """
    true_counts = [_arm(arms, "ungated", m, "true_note")["count"] for m in ("GLM 5.2", "Sonnet 4.6")]
    total = _arm(arms, "ungated", "GLM 5.2", "true_note")["total"]
    rows = [
        ("trial counts: control, stale labelled, verify-first (tasks), gated", "published", "the source, quoted row by row in the data file"),
        (f"true-note counts of the ungated study ({listing(true_counts, last=' and ')} of {fmt(total)})",
         "implied", "the one count that rounds to the published percentage"),
        ("Wilson intervals", "ours", "computed from the counts"),
        ("per-trial range of the verify-first rate", "ours", "bounds from the per-task counts (one or two bad trials per bad task)"),
        ("notes CHANGED, DEPENDENCY_CHANGED, RENAMED, MISSING per release", "ours, measured",
         "replay of the committed PyPI release tables (wheels for Python, sdists for Rust)"),
        (f"wrong_share = {fmt(wrong_share, 'share')}", "ours, assumed",
         "not measured by anyone; swept in the figure; the same for own-code and dependency changes"),
        ("a note shown as fresh is acted on at the true-note rate", "ours, assumed",
         "the published true-note share, for the symbol-only gate's unlabelled stale notes"),
        ("one exposure per note per release", "ours, assumed", "an agent edits each changed symbol once per release"),
        ("expected stale edits and true notes withheld", "ours", "the product of the rows above"),
    ]
    return pd.DataFrame(rows, columns=["Number", "Whose", "How"])


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
        "Project": top["project"].map(_named),
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
