"""Replay real release histories: what becomes of a note anchored on every function and method.

The tables under ``data/code_history/`` (written by ``data/code_history/fetch.py``)
hold, for each release of a project, every symbol with its raw, normalized
and dependency hash. :func:`replay` anchors one note on every function and
method of release *k* and locates it, with the very rule the gate uses
(:func:`cvlib.notes.gate.classify`), in every later release *j*, under two
gates at once: the **dependency-aware** gate (``status``) and the
**symbol-only** gate that looks at the symbol's own code alone
(``status_symbol``: the same, with every DEPENDENCY_CHANGED read as FRESH).
Everything else here summarises that replay: status shares per release step,
survival of freshness, raw changes that normalization forgives, the review
load, and :func:`gate_comparison`, the two gates side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from cvlib.core.errors import ParameterError

from .errors import NotesError
from .gate import Anchor, Status, SymbolIndex, classify, twins_of
from .symbols import Symbol

#: Columns every release-history table must have.
HISTORY_COLUMNS: tuple[str, ...] = (
    "release", "version", "path", "qualname", "kind", "raw_hash", "norm_hash", "dep_hash", "lines", "nodes", "deps",
)

#: Statuses in the order tables and figures show them.
STATUS_ORDER: tuple[str, ...] = tuple(s.name for s in Status)

#: The kinds a note is anchored on in the replay (classes are indexed, so a
#: moved method can still be found, but carry no notes of their own).
NOTE_KINDS: tuple[str, ...] = ("function", "method")


def load_history(project: str, folder: str | Path) -> pd.DataFrame:
    """Read one project's committed release table (``<folder>/<project>.parquet``) and check its shape."""
    path = Path(folder) / f"{project}.parquet"
    if not path.is_file():
        raise NotesError(f"no release table for project {project!r}: {str(path)!r} does not exist")
    table = pd.read_parquet(path)
    missing = [c for c in HISTORY_COLUMNS if c not in table.columns]
    if missing:
        raise NotesError(f"release table {str(path)!r} lacks column(s) {', '.join(missing)}")
    releases = sorted(table["release"].unique())
    if releases != list(range(len(releases))) or len(releases) < 2:
        raise NotesError(f"release table {str(path)!r} must number its releases 0..n-1 with n >= 2, got {releases}")
    return table.assign(project=project).reset_index(drop=True)


def _names(label: str, value: object) -> list[str]:
    """A list of names, or a ParameterError that says how to pass a list to papermill."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value):
        raise ParameterError(
            f"{label} must be a non-empty list of names, got {value!r}; with papermill pass lists as YAML, "
            f"e.g. -y '{label}: [flask]'"
        )
    return list(value)


def load_histories(projects: Sequence[str], folder: str | Path) -> dict[str, pd.DataFrame]:
    """:func:`load_history` for each of ``projects``, in the given order."""
    return {p: load_history(p, folder) for p in _names("projects", projects)}


def versions(table: pd.DataFrame) -> list[str]:
    """Version strings in release order."""
    return table.drop_duplicates("release").sort_values("release")["version"].tolist()


def _indexes(table: pd.DataFrame) -> dict[int, SymbolIndex]:
    out: dict[int, SymbolIndex] = {}
    for release, rows in table.groupby("release", sort=True):
        parsed = rows[rows["kind"] != "unparsable"]
        syms = [
            Symbol(path=r.path, qualname=r.qualname, kind=r.kind, raw_hash=r.raw_hash, norm_hash=r.norm_hash,
                   lines=int(r.lines), nodes=int(r.nodes), dep_hash=r.dep_hash, deps=_deps(r.deps))
            for r in parsed.itertuples(index=False)
        ]
        out[int(release)] = SymbolIndex.from_symbols(syms, unparsable=rows.loc[rows["kind"] == "unparsable", "path"])
    return out


def _deps(value: object) -> tuple[tuple[str, str], ...]:
    """``["<hash> <label>", ...]`` as stored in a table -> ``((label, hash), ...)``."""
    if value is None:
        return ()
    pairs = []
    for item in value:  # type: ignore[attr-defined]
        digest, _, label = str(item).partition(" ")
        pairs.append((label, digest))
    return tuple(sorted(pairs))


#: Symbol kinds a note can be anchored on in the replay.
REPLAY_KINDS: tuple[str, ...] = ("function", "method", "class", "nested", "constant", "attribute")


def replay(table: pd.DataFrame, kinds: Sequence[str] = NOTE_KINDS) -> pd.DataFrame:
    """Anchor a note on every symbol of ``kinds`` in each release k; locate it in every release j > k.

    Returns
    -------
    DataFrame
        One row per (note, later release): ``from_release``, ``to_release``,
        ``horizon`` (= j - k, in releases), ``path``, ``qualname``, ``status``
        (a :class:`~cvlib.notes.gate.Status` name, dependency-aware gate),
        ``status_symbol`` (the symbol-only gate), ``changed`` (the changed
        dependencies, ``"; "``-joined), ``raw_same`` (the code at the note's
        place is byte-identical; False where the place is gone), ``nodes``, and
        ``project`` if the table has it.
    """
    kinds = _names("kinds", kinds)
    unknown = sorted(set(kinds) - set(REPLAY_KINDS))
    if unknown:
        raise ParameterError(f"kinds must be among {', '.join(map(repr, REPLAY_KINDS))}, got {unknown}")
    indexes = _indexes(table)
    last = max(indexes)
    records: list[tuple] = []
    notes_at = table[table["kind"].isin(kinds)]
    for k, rows in notes_at.groupby("release", sort=True):
        own = indexes[int(k)]
        anchors = []
        for r in rows.itertuples(index=False):
            symbol = own.get(r.path, r.qualname)
            assert symbol is not None
            anchors.append(Anchor(r.path, r.qualname, r.raw_hash, r.norm_hash, r.dep_hash, symbol.deps, twins_of(own, symbol)))
        sizes = rows["nodes"].tolist()
        for j in range(int(k) + 1, last + 1):
            index = indexes[j]
            for a, size in zip(anchors, sizes):
                where = classify(a, index)
                status = where.status
                symbol_only = Status.FRESH if status is Status.DEPENDENCY_CHANGED else status
                here = index.get(a.path, a.qualname) if status is not Status.UNPARSABLE else None
                records.append((int(k), j, a.path, a.qualname, status.name, symbol_only.name, "; ".join(where.changed),
                                here is not None and here.raw_hash == a.raw_hash, size))
    out = pd.DataFrame(records, columns=["from_release", "to_release", "path", "qualname", "status", "status_symbol",
                                         "changed", "raw_same", "nodes"])
    out.insert(2, "horizon", out["to_release"] - out["from_release"])
    if "project" in table.columns:
        out.insert(0, "project", table["project"].iloc[0])
    return out


def _project_keys(frame: pd.DataFrame) -> list[str]:
    return ["project"] if "project" in frame.columns else []


def step_shares(replayed: pd.DataFrame) -> pd.DataFrame:
    """Per release step k -> k+1: how many notes, and the share in each status (columns in STATUS_ORDER)."""
    step = replayed[replayed["horizon"] == 1]
    keys = _project_keys(step) + ["from_release", "to_release"]
    counts = step.groupby(keys + ["status"]).size().unstack("status", fill_value=0)
    counts = counts.reindex(columns=list(STATUS_ORDER), fill_value=0)
    notes = counts.sum(axis=1)
    shares = counts.div(notes, axis=0)
    shares.insert(0, "notes", notes)
    shares.columns.name = None
    return shares.reset_index()


def review_load(replayed: pd.DataFrame) -> pd.DataFrame:
    """Per release step: notes the gate withholds until a human looks again (every non-FRESH note).

    Assumes every note was approved at release k (the replay anchors notes on
    everything), so the load is an upper bound for a repository whose notes
    cover fewer symbols: scale by the share of symbols that carry a note.
    """
    step = replayed[replayed["horizon"] == 1]
    keys = _project_keys(step) + ["from_release", "to_release"]
    grouped = step.groupby(keys)
    out = pd.DataFrame({
        "notes": grouped.size(),
        "to_review": grouped["status"].apply(lambda s: int((s != Status.FRESH.name).sum())),
        "changed": grouped["status"].apply(lambda s: int((s == Status.CHANGED.name).sum())),
        "dependency_changed": grouped["status"].apply(lambda s: int((s == Status.DEPENDENCY_CHANGED.name).sum())),
        "renamed": grouped["status"].apply(lambda s: int((s == Status.RENAMED.name).sum())),
        "missing": grouped["status"].apply(lambda s: int((s == Status.MISSING.name).sum())),
    })
    out["per_100_notes"] = 100.0 * out["to_review"] / out["notes"]
    return out.reset_index()


def forgiven(replayed: pd.DataFrame) -> pd.DataFrame:
    """Per release step: symbols still in place whose raw text changed, and how many normalization forgave.

    ``raw_changed`` counts notes whose place still exists and whose bytes
    differ; ``forgiven`` those of them that stay FRESH (only comments,
    formatting or docstrings changed); ``share_forgiven`` = forgiven / raw_changed.
    Judged on the symbol's own code (``status_symbol``): what normalization does.
    """
    step = replayed[(replayed["horizon"] == 1) & replayed["status_symbol"].isin([Status.FRESH.name, Status.CHANGED.name])]
    keys = _project_keys(step) + ["from_release", "to_release"]
    fresh = step["status_symbol"] == Status.FRESH.name
    step = step.assign(raw_changed=~step["raw_same"], forgiven=(~step["raw_same"]) & fresh)
    out = step.groupby(keys)[["raw_changed", "forgiven"]].sum().astype(int)
    out["share_forgiven"] = out["forgiven"] / out["raw_changed"].where(out["raw_changed"] > 0)
    return out.reset_index()


def survival(replayed: pd.DataFrame, column: str = "status") -> pd.DataFrame:
    """Share of notes still FRESH at every release from anchoring up to ``horizon`` releases later.

    A note's freshness ends at the first release where it is not FRESH (the
    gate withholds it there, and a human must look). Cohorts anchored at
    different releases are pooled, each note weighing the same; a horizon is
    reported only where some cohort reaches it, with the number of notes at risk.
    ``column``: ``"status"`` (dependency-aware gate) or ``"status_symbol"``.
    """
    if column not in ("status", "status_symbol"):
        raise ParameterError(f"column must be 'status' or 'status_symbol', got {column!r}")
    keys = _project_keys(replayed)
    frame = replayed.sort_values(keys + ["from_release", "path", "qualname", "to_release"])
    fresh = frame[column].eq(Status.FRESH.name)
    frame = frame.assign(fresh_so_far=fresh.groupby([frame[k] for k in keys + ["from_release", "path", "qualname"]]).cummin())
    out = frame.groupby(keys + ["horizon"]).agg(notes=("fresh_so_far", "size"), surviving=("fresh_so_far", "mean"))
    return out.reset_index()


def duplicate_share_by_size(table: pd.DataFrame, kinds: Iterable[str] = NOTE_KINDS) -> pd.DataFrame:
    """Share of symbols whose normalized hash another symbol of the same release shares, by tree size.

    This is the evidence behind :data:`~cvlib.notes.symbols.MIN_IDENTIFIABLE_NODES`:
    small bodies recur, so a lone twin of one proves little.
    """
    rows = table[table["kind"].isin(list(kinds))]
    keys = _project_keys(rows) + ["release", "norm_hash"]
    dup = rows.groupby(keys)["qualname"].transform("size") > 1
    return rows.assign(shared=dup)[["nodes", "shared"] + _project_keys(rows)]


def status_totals(replayed: pd.DataFrame, column: str = "status") -> pd.DataFrame:
    """Per project, over all one-release steps: ``steps``, ``notes`` (note-steps) and the count in each status.

    ``column`` is ``"status"`` (dependency-aware gate) or ``"status_symbol"``
    (symbol-only gate). A last row ``project == "all"`` pools the projects.
    This is the input :func:`cvlib.notes.trials.expected_stale_edits` expects.
    """
    if column not in ("status", "status_symbol"):
        raise ParameterError(f"column must be 'status' or 'status_symbol', got {column!r}")
    step = replayed[replayed["horizon"] == 1]
    if "project" not in step.columns:
        step = step.assign(project="project")
    step = step.assign(status=step[column])
    counts = step.groupby(["project", "status"]).size().unstack("status", fill_value=0)
    counts = counts.reindex(columns=list(STATUS_ORDER), fill_value=0)
    counts.insert(0, "notes", counts.sum(axis=1))
    counts.insert(0, "steps", step.groupby("project")["from_release"].nunique())
    counts.loc["all"] = counts.sum()
    counts.columns.name = None
    return counts.reset_index()


#: Status colours for figures (colour-blind-safe, Okabe-Ito), beside the book's executor palette.
STATUS_COLOURS: dict[str, str] = {
    "FRESH": "#009E73",
    "CHANGED": "#D55E00",
    "DEPENDENCY_CHANGED": "#E69F00",
    "RENAMED": "#0072B2",
    "AMBIGUOUS": "#CC79A7",
    "MISSING": "#999999",
    "UNPARSABLE": "#000000",
    "UNREADABLE": "#56B4E9",
}


def status_by_horizon(replayed: pd.DataFrame) -> pd.DataFrame:
    """Share of notes in each status ``horizon`` releases after anchoring (the status then, not the path there).

    Unlike :func:`survival`, a note whose code changed and changed back counts
    as FRESH again here; the two differ only by such round trips.
    """
    keys = _project_keys(replayed) + ["horizon"]
    counts = replayed.groupby(keys + ["status"]).size().unstack("status", fill_value=0)
    counts = counts.reindex(columns=list(STATUS_ORDER), fill_value=0)
    shares = counts.div(counts.sum(axis=1), axis=0)
    shares.insert(0, "notes", counts.sum(axis=1))
    shares.columns.name = None
    return shares.reset_index()


def gate_comparison(replayed: pd.DataFrame) -> pd.DataFrame:
    """The two gates side by side, per release step k -> k+1.

    Returns
    -------
    DataFrame
        One row per (project, step): ``notes``; ``withheld_symbol`` and
        ``withheld_dependency``, the notes each gate withholds (its review
        load); ``symbol_fresh``, the notes the symbol-only gate calls FRESH;
        ``dependency_changed``, those of them whose dependencies changed (the
        symbol-only gate showed them although what their code relies on was
        different); ``false_fresh`` = dependency_changed / symbol_fresh, the
        symbol-only gate's measured false-FRESH rate at that step.
    """
    step = replayed[replayed["horizon"] == 1]
    keys = _project_keys(step) + ["from_release", "to_release"]
    frame = step.assign(
        withheld_symbol=step["status_symbol"] != Status.FRESH.name,
        withheld_dependency=step["status"] != Status.FRESH.name,
        symbol_fresh=step["status_symbol"] == Status.FRESH.name,
        dependency_changed=step["status"] == Status.DEPENDENCY_CHANGED.name,
    )
    cols = ["withheld_symbol", "withheld_dependency", "symbol_fresh", "dependency_changed"]
    out = frame.groupby(keys)[cols].sum().astype(int)
    out.insert(0, "notes", frame.groupby(keys).size())
    out["false_fresh"] = out["dependency_changed"] / out["symbol_fresh"].where(out["symbol_fresh"] > 0)
    return out.reset_index()


def gate_totals(replayed: pd.DataFrame) -> pd.DataFrame:
    """:func:`gate_comparison` summed per project over all steps, with a pooled row ``"all"``.

    Adds ``per_100_symbol`` and ``per_100_dependency`` (notes withheld per 100
    note-steps under each gate) and ``false_fresh`` (pooled: dependency changes
    among all the symbol-only gate's FRESH verdicts).
    """
    per_step = gate_comparison(replayed)
    if "project" not in per_step.columns:
        per_step = per_step.assign(project="project")
    cols = ["notes", "withheld_symbol", "withheld_dependency", "symbol_fresh", "dependency_changed"]
    out = per_step.groupby("project", sort=False)[cols].sum()
    out.insert(0, "steps", per_step.groupby("project", sort=False).size())
    out.loc["all"] = out.sum()
    out["per_100_symbol"] = 100.0 * out["withheld_symbol"] / out["notes"]
    out["per_100_dependency"] = 100.0 * out["withheld_dependency"] / out["notes"]
    out["false_fresh"] = out["dependency_changed"] / out["symbol_fresh"].where(out["symbol_fresh"] > 0)
    return out.reset_index()


#: How :func:`changed_dependency_kinds` sorts a changed dependency, in display order.
DEPENDENCY_KINDS: tuple[str, ...] = ("module name", "class member", "class header", "own binding", "name appeared or disappeared")


def _dependency_kind(label: str, own: str) -> str:
    bare = label.removesuffix(" (new)").removesuffix(" (gone)")
    if label != bare:
        return "name appeared or disappeared"
    if bare == own:
        return "own binding"
    if bare.startswith("class "):
        return "class header"
    if "." in bare:
        return "class member"
    return "module name"


def changed_dependency_kinds(replayed: pd.DataFrame) -> pd.DataFrame:
    """What changed under the notes only the dependency-aware gate withholds, by the shape of the dependency.

    Per DEPENDENCY_CHANGED note-step (one release later), each changed
    dependency label is sorted into (:data:`DEPENDENCY_KINDS`): ``module
    name`` (a helper, constant, class or import of the module), ``class
    member`` (``Class.x``: an attribute, or a method reached through
    ``self``), ``class header`` (bases, decorators), ``own binding`` (the
    note's own name rebound, shadowed or moved under a condition), and ``name
    appeared or disappeared`` (a dependency that is new or gone). A note-step
    can count under several kinds.

    Returns
    -------
    DataFrame
        ``project``, ``kind``, ``note_steps`` (DEPENDENCY_CHANGED note-steps
        with at least one change of that kind) and ``share`` (of all of them).
    """
    step = replayed[(replayed["horizon"] == 1) & (replayed["status"] == Status.DEPENDENCY_CHANGED.name)]
    if "project" not in step.columns:
        step = step.assign(project="project")
    rows = []
    for project, qualname, changed in zip(step["project"], step["qualname"], step["changed"]):
        own = qualname.split("#")[0]
        for kind in sorted({_dependency_kind(label, own) for label in str(changed).split("; ")}):
            rows.append((project, kind))
    frame = pd.DataFrame(rows, columns=["project", "kind"])
    totals = step.groupby("project").size()
    out = frame.groupby(["project", "kind"]).size().rename("note_steps").reset_index()
    out["share"] = out["note_steps"] / out["project"].map(totals)
    return out


def overview(tables: dict[str, pd.DataFrame], replayed: pd.DataFrame, kinds: Sequence[str] = NOTE_KINDS) -> pd.DataFrame:
    """One row per project: releases, first and last version, notes per release, pairs replayed."""
    return pd.DataFrame(
        [
            {
                "project": p,
                "releases": int(t["release"].nunique()),
                "first": versions(t)[0],
                "last": versions(t)[-1],
                "notes per release (mean)": t[t["kind"].isin(list(kinds))].groupby("release").size().mean(),
                "note-release pairs replayed": int((replayed["project"] == p).sum()),
            }
            for p, t in tables.items()
        ]
    )


def worst_steps(steps: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per project, the release step that left the fewest notes FRESH (dependency-aware gate), with its shares in %."""
    rows = []
    for project in tables:
        mine = steps[steps["project"] == project]
        worst = mine.loc[mine["FRESH"].idxmin()]
        names = versions(tables[project])
        rows.append({
            "project": project,
            "step": f"{names[int(worst['from_release'])]} -> {names[int(worst['to_release'])]}",
            "notes": int(worst["notes"]),
            "% not FRESH": 100 * (1 - worst["FRESH"]),
            "% CHANGED": 100 * worst["CHANGED"],
            "% DEPENDENCY_CHANGED": 100 * worst["DEPENDENCY_CHANGED"],
            "% RENAMED": 100 * worst["RENAMED"],
            "% MISSING": 100 * worst["MISSING"],
        })
    return pd.DataFrame(rows).set_index("project")


def gate_table(totals: pd.DataFrame) -> pd.DataFrame:
    """:func:`gate_totals` with the columns a reader needs, named for the page."""
    return pd.DataFrame({
        "steps": totals["steps"].astype(int),
        "note-steps": totals["notes"].astype(int),
        "withheld /100, symbol-only": totals["per_100_symbol"],
        "withheld /100, dep.-aware": totals["per_100_dependency"],
        "FRESH, symbol-only": totals["symbol_fresh"].astype(int),
        "… deps changed": totals["dependency_changed"].astype(int),
        "false-FRESH %": 100 * totals["false_fresh"],
    }).set_axis(totals["project"]).rename_axis(None)
