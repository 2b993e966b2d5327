"""Replay real release histories: what becomes of a note anchored on every function and method.

The tables under ``data/code_history/`` (written by ``data/code_history/fetch.py``)
hold, for each release of a project, every symbol with its raw, normalized
and dependency hash. :func:`replay` anchors one note on every function and
method of release *k* and locates it, with the very rule the gate uses
(:func:`cvlib.notes.gate.classify`), in every later release *j*, under three
gates at once: the **precise** dependency-aware gate, the gate's rule
(``status``: a method depends on the class members it reads); the **wide**
dependency-aware gate (``status_wide``: every class attribute counts for
every method); and the **symbol-only** gate that looks at the symbol's own
code alone (``status_symbol``: the precise verdict with every
DEPENDENCY_CHANGED read as FRESH). Everything else here summarises that
replay: status shares per release step, survival of freshness, raw changes
that normalization forgives, the review load, and :func:`gate_comparison`,
the gates side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from cvlib.core.errors import ParameterError

from .errors import NotesError
from .gate import Anchor, AnchorStatus, SymbolIndex, anchor, classify, dependency_kind, twins_of
from .languages import DEFAULT_LANGUAGE, language_for
from .symbols import Symbol

#: Columns every release-history table must have.
HISTORY_COLUMNS: tuple[str, ...] = (
    "release", "version", "path", "qualname", "kind", "raw_hash", "norm_hash", "dep_hash", "lines", "nodes", "deps",
    "dep_hash_wide", "deps_wide", "fallback",
)

#: The dependency rules a table carries a fingerprint for, and their columns.
RULE_COLUMNS: dict[str, tuple[str, str]] = {"precise": ("dep_hash", "deps"), "wide": ("dep_hash_wide", "deps_wide")}

#: The three gates of the replay, in display order, and the column holding each one's verdict.
GATE_COLUMNS: dict[str, str] = {"symbol-only": "status_symbol", "wide": "status_wide", "precise": "status"}

#: Statuses in the order tables and figures show them.
STATUS_ORDER: tuple[str, ...] = tuple(s.name for s in AnchorStatus)

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


def _indexes(table: pd.DataFrame, rule: str = "precise") -> dict[int, SymbolIndex]:
    hash_column, deps_column = RULE_COLUMNS[rule]
    out: dict[int, SymbolIndex] = {}
    for release, rows in table.groupby("release", sort=True):
        parsed = rows[rows["kind"] != "unparsable"]
        syms = [
            Symbol(path=path, qualname=qualname, kind=kind, raw_hash=raw, norm_hash=norm, lines=int(lines),
                   nodes=int(nodes), dep_hash=dep_hash, deps=_deps(deps))
            for path, qualname, kind, raw, norm, lines, nodes, dep_hash, deps in zip(
                parsed["path"], parsed["qualname"], parsed["kind"], parsed["raw_hash"], parsed["norm_hash"],
                parsed["lines"], parsed["nodes"], parsed[hash_column], parsed[deps_column])
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
        (an :class:`~cvlib.notes.gate.AnchorStatus` name, precise gate),
        ``status_wide`` (the wide dependency-aware gate), ``status_symbol``
        (the symbol-only gate), ``changed`` and ``changed_wide`` (the changed
        dependencies under each rule, ``"; "``-joined), ``raw_same`` (the code
        at the note's place is byte-identical; False where the place is
        gone), ``nodes``, ``fallback`` (why the precise rule fell back to the
        wide one for this note's symbol at release k, or ``""``), and
        ``project`` if the table has it.
    """
    kinds = _names("kinds", kinds)
    unknown = sorted(set(kinds) - set(REPLAY_KINDS))
    if unknown:
        raise ParameterError(f"kinds must be among {', '.join(map(repr, REPLAY_KINDS))}, got {unknown}")
    indexes = _indexes(table, "precise")
    wide_indexes = _indexes(table, "wide")
    last = max(indexes)
    records: list[tuple] = []
    notes_at = table[table["kind"].isin(kinds)]
    for k, rows in notes_at.groupby("release", sort=True):
        own, own_wide = indexes[int(k)], wide_indexes[int(k)]
        pairs = []
        for path, qualname in zip(rows["path"], rows["qualname"]):
            symbol, wide_symbol = own.get(path, qualname), own_wide.get(path, qualname)
            assert symbol is not None and wide_symbol is not None
            twins = twins_of(own, symbol)
            pairs.append((Anchor(path, qualname, symbol.raw_hash, symbol.norm_hash, symbol.dep_hash, symbol.deps, twins),
                          Anchor(path, qualname, symbol.raw_hash, symbol.norm_hash, wide_symbol.dep_hash, wide_symbol.deps,
                                 twins)))
        sizes = rows["nodes"].tolist()
        reasons = rows["fallback"].fillna("").tolist()
        for j in range(int(k) + 1, last + 1):
            index, wide_index = indexes[j], wide_indexes[j]
            for (a, a_wide), size, reason in zip(pairs, sizes, reasons):
                where = classify(a, index)
                wide = classify(a_wide, wide_index)
                status = where.status
                symbol_only = AnchorStatus.FRESH if status is AnchorStatus.DEPENDENCY_CHANGED else status
                here = index.get(a.path, a.qualname) if status is not AnchorStatus.UNPARSABLE else None
                records.append((int(k), j, a.path, a.qualname, status.name, wide.status.name, symbol_only.name,
                                "; ".join(where.changed), "; ".join(wide.changed),
                                here is not None and here.raw_hash == a.raw_hash, size, reason))
    out = pd.DataFrame(records, columns=["from_release", "to_release", "path", "qualname", "status", "status_wide",
                                         "status_symbol", "changed", "changed_wide", "raw_same", "nodes", "fallback"])
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
        "to_review": grouped["status"].apply(lambda s: int((s != AnchorStatus.FRESH.name).sum())),
        "changed": grouped["status"].apply(lambda s: int((s == AnchorStatus.CHANGED.name).sum())),
        "dependency_changed": grouped["status"].apply(lambda s: int((s == AnchorStatus.DEPENDENCY_CHANGED.name).sum())),
        "renamed": grouped["status"].apply(lambda s: int((s == AnchorStatus.RENAMED.name).sum())),
        "missing": grouped["status"].apply(lambda s: int((s == AnchorStatus.MISSING.name).sum())),
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
    step = replayed[(replayed["horizon"] == 1) & replayed["status_symbol"].isin([AnchorStatus.FRESH.name, AnchorStatus.CHANGED.name])]
    keys = _project_keys(step) + ["from_release", "to_release"]
    fresh = step["status_symbol"] == AnchorStatus.FRESH.name
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
    if column not in GATE_COLUMNS.values():
        raise ParameterError(f"column must be one of {', '.join(map(repr, GATE_COLUMNS.values()))}, got {column!r}")
    keys = _project_keys(replayed)
    frame = replayed.sort_values(keys + ["from_release", "path", "qualname", "to_release"])
    fresh = frame[column].eq(AnchorStatus.FRESH.name)
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


def status_totals(replayed: pd.DataFrame, column: str = "status",
                  groups: Mapping[str, Sequence[str]] | None = None) -> pd.DataFrame:
    """Per project, over all one-release steps: ``steps``, ``notes`` (note-steps) and the count in each status.

    ``column`` is ``"status"`` (dependency-aware gate) or ``"status_symbol"``
    (symbol-only gate). A last row ``project == "all"`` pools the projects.
    This is the input :func:`cvlib.notes.trials.expected_stale_edits` expects.
    ``groups`` adds pooled rows before it (name -> projects, e.g. by language).
    """
    if column not in GATE_COLUMNS.values():
        raise ParameterError(f"column must be one of {', '.join(map(repr, GATE_COLUMNS.values()))}, got {column!r}")
    step = replayed[replayed["horizon"] == 1]
    if "project" not in step.columns:
        step = step.assign(project="project")
    step = step.assign(status=step[column])
    counts = step.groupby(["project", "status"]).size().unstack("status", fill_value=0)
    counts = counts.reindex(columns=list(STATUS_ORDER), fill_value=0)
    counts.insert(0, "notes", counts.sum(axis=1))
    counts.insert(0, "steps", step.groupby("project")["from_release"].nunique())
    projects = list(counts.index)
    for name, members in (groups or {}).items():
        present = [m for m in members if m in projects]
        if present:
            counts.loc[name] = counts.loc[present].sum()
    counts.loc["all"] = counts.loc[projects].sum()
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
    """The three gates side by side, per release step k -> k+1.

    Returns
    -------
    DataFrame
        One row per (project, step): ``notes``; ``withheld_symbol``,
        ``withheld_wide`` and ``withheld_dependency`` (the precise gate), the
        notes each gate withholds (its review load); ``symbol_fresh``, the
        notes the symbol-only gate calls FRESH; ``dependency_changed``, those
        of them whose dependencies changed under the precise rule (the
        symbol-only gate showed them although what their code relies on was
        different); ``false_fresh`` = dependency_changed / symbol_fresh;
        ``precise_fresh``, the notes the precise gate shows, and
        ``released``, those of them the wide gate withholds (a change to a
        class member the method does not read); ``false_fresh_wide`` =
        released / precise_fresh, the precise gate's false-FRESH rate if the
        wide rule were the truth.
    """
    step = replayed[replayed["horizon"] == 1]
    keys = _project_keys(step) + ["from_release", "to_release"]
    fresh = AnchorStatus.FRESH.name
    frame = step.assign(
        withheld_symbol=step["status_symbol"] != fresh,
        withheld_wide=step["status_wide"] != fresh,
        withheld_dependency=step["status"] != fresh,
        symbol_fresh=step["status_symbol"] == fresh,
        dependency_changed=step["status"] == AnchorStatus.DEPENDENCY_CHANGED.name,
        precise_fresh=step["status"] == fresh,
        released=(step["status"] == fresh) & (step["status_wide"] != fresh),
    )
    cols = ["withheld_symbol", "withheld_wide", "withheld_dependency", "symbol_fresh", "dependency_changed",
            "precise_fresh", "released"]
    out = frame.groupby(keys)[cols].sum().astype(int)
    out.insert(0, "notes", frame.groupby(keys).size())
    out["false_fresh"] = out["dependency_changed"] / out["symbol_fresh"].where(out["symbol_fresh"] > 0)
    out["false_fresh_wide"] = out["released"] / out["precise_fresh"].where(out["precise_fresh"] > 0)
    return out.reset_index()


def gate_totals(replayed: pd.DataFrame, groups: Mapping[str, Sequence[str]] | None = None) -> pd.DataFrame:
    """:func:`gate_comparison` summed per project over all steps, with pooled rows.

    Parameters
    ----------
    replayed
        :func:`replay`'s rows (several projects concatenated).
    groups
        Extra pooled rows: name -> projects (e.g. ``{"Python": [...], "Rust":
        [...]}``); a last row ``"all"`` pools every project.

    Returns
    -------
    DataFrame
        Per row: the sums of :func:`gate_comparison`, ``steps``,
        ``per_100_symbol``, ``per_100_wide`` and ``per_100_dependency``
        (notes withheld per 100 note-steps under each gate), ``load_ratio``
        and ``load_ratio_wide`` (the precise and wide gates' load over the
        symbol-only gate's), ``false_fresh`` and ``false_fresh_wide`` (pooled).
    """
    per_step = gate_comparison(replayed)
    if "project" not in per_step.columns:
        per_step = per_step.assign(project="project")
    cols = ["notes", "withheld_symbol", "withheld_wide", "withheld_dependency", "symbol_fresh", "dependency_changed",
            "precise_fresh", "released"]
    out = per_step.groupby("project", sort=False)[cols].sum()
    out.insert(0, "steps", per_step.groupby("project", sort=False).size())
    for name, members in (groups or {}).items():
        present = [m for m in members if m in out.index]
        if present:
            out.loc[name] = out.loc[present].sum()
    projects = [p for p in out.index if p not in (groups or {})]
    out.loc["all"] = out.loc[projects].sum()
    out["per_100_symbol"] = 100.0 * out["withheld_symbol"] / out["notes"]
    out["per_100_wide"] = 100.0 * out["withheld_wide"] / out["notes"]
    out["per_100_dependency"] = 100.0 * out["withheld_dependency"] / out["notes"]
    symbol = out["withheld_symbol"].where(out["withheld_symbol"] > 0)
    out["load_ratio"] = out["withheld_dependency"] / symbol
    out["load_ratio_wide"] = out["withheld_wide"] / symbol
    out["false_fresh"] = out["dependency_changed"] / out["symbol_fresh"].where(out["symbol_fresh"] > 0)
    out["false_fresh_wide"] = out["released"] / out["precise_fresh"].where(out["precise_fresh"] > 0)
    return out.reset_index()


#: Why a gate withholds a note, as :func:`withheld_by_kind` sorts it.
WITHHELD_KINDS: tuple[str, ...] = ("own code", "module name", "class member")


def _withheld_kind(status: str, changed: str, qualname: str) -> str:
    """``own code`` unless only dependencies changed; then ``class member`` when any changed label is a member."""
    if status != AnchorStatus.DEPENDENCY_CHANGED.name:
        return "own code"
    own = qualname.split("#")[0]
    kinds = {_dependency_kind(label, own) for label in str(changed).split("; ")}
    return "class member" if kinds & {"class member", "class header"} else "module name"


def withheld_by_kind(replayed: pd.DataFrame) -> pd.DataFrame:
    """Notes each gate withholds per 100 note-steps, by why: the note's own code, a module name, a class member.

    ``own code`` is everything the symbol-only gate withholds too (CHANGED,
    moved, gone, unparsable); a DEPENDENCY_CHANGED note counts as ``class
    member`` when a member of a class or a class header is among its changed
    dependencies, else as ``module name`` (a helper, constant, import, its own
    binding). Also, per kind, ``released``: notes the precise gate shows that
    the wide gate withholds for that kind.

    Returns
    -------
    DataFrame
        ``project``, ``gate`` (:data:`GATE_COLUMNS`), ``kind``
        (:data:`WITHHELD_KINDS`), ``withheld``, ``notes``, ``per_100``.
    """
    step = replayed[replayed["horizon"] == 1]
    if "project" not in step.columns:
        step = step.assign(project="project")
    notes = step.groupby("project", sort=False).size()
    rows = []
    for gate, column in GATE_COLUMNS.items():
        changed = step["changed_wide"] if gate == "wide" else step["changed"]
        withheld = step[column] != AnchorStatus.FRESH.name
        kinds = [_withheld_kind(st, ch, q) for st, ch, q in zip(step[column][withheld], changed[withheld],
                                                                  step["qualname"][withheld])]
        counted = pd.DataFrame({"project": step["project"][withheld], "kind": kinds})
        for project in notes.index:
            mine = counted[counted["project"] == project]["kind"].value_counts()
            for kind in WITHHELD_KINDS:
                rows.append((project, gate, kind, int(mine.get(kind, 0)), int(notes[project])))
    out = pd.DataFrame(rows, columns=["project", "gate", "kind", "withheld", "notes"])
    out["per_100"] = 100.0 * out["withheld"] / out["notes"]
    return out


def fallbacks(replayed: pd.DataFrame) -> pd.DataFrame:
    """How often the precise rule fell back to the wide one, per project and reason (one-release note-steps).

    Returns
    -------
    DataFrame
        ``project``, ``reason`` (a :data:`cvlib.notes.python.FALLBACK_REASONS`
        entry), ``note_steps``, ``share`` (of the project's note-steps).
    """
    step = replayed[replayed["horizon"] == 1]
    if "project" not in step.columns:
        step = step.assign(project="project")
    totals = step.groupby("project", sort=False).size()
    fell = step[step["fallback"] != ""]
    out = fell.groupby(["project", "fallback"], sort=False).size().rename("note_steps").reset_index()
    out = out.rename(columns={"fallback": "reason"}).sort_values(["project", "reason"], kind="stable")
    out["share"] = out["note_steps"] / out["project"].map(totals)
    return out.reset_index(drop=True)


def class_step(replayed: pd.DataFrame, project: str, from_release: int, path: str, cls: str) -> dict[str, object]:
    """One release step told for the methods of one class: how many each gate withholds, and what changed.

    Returns
    -------
    dict
        ``methods``; ``withheld`` (gate name -> count, :data:`GATE_COLUMNS`);
        ``changed_wide`` and ``changed`` (labels -> notes they appear under,
        most frequent first) under the wide and the precise rule.

    Raises
    ------
    ParameterError
        If the replay has no such methods at that step.
    """
    rows = replayed[(replayed["horizon"] == 1) & (replayed["from_release"] == from_release)
                    & (replayed["path"] == path) & replayed["qualname"].str.startswith(cls + ".")]
    if "project" in rows.columns:
        rows = rows[rows["project"] == project]
    if rows.empty:
        raise ParameterError(f"no notes on methods of {cls!r} in {path!r} of {project!r} at release {from_release}")

    def labels(column: str) -> dict[str, int]:
        counted = pd.Series([lab for text in rows[column] if text for lab in str(text).split("; ")], dtype=object)
        return {str(k): int(v) for k, v in counted.value_counts().sort_index().sort_values(ascending=False, kind="stable").items()}

    return {
        "methods": len(rows),
        "withheld": {gate: int((rows[column] != AnchorStatus.FRESH.name).sum()) for gate, column in GATE_COLUMNS.items()},
        "changed_wide": labels("changed_wide"),
        "changed": labels("changed"),
    }


def language(table: pd.DataFrame) -> str:
    """The registered language of the table's files (:mod:`cvlib.notes.languages`).

    A table whose files are not all of one language (none is, in the
    committed histories) counts as :data:`~cvlib.notes.languages.DEFAULT_LANGUAGE`.
    """
    found = {getattr(language_for(str(path)), "name", "") for path in table["path"].unique()}
    only = found.pop() if len(found) == 1 else ""
    return only or DEFAULT_LANGUAGE


def _dependency_kind(label: str, own: str) -> str:
    return dependency_kind(label, own)


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
    step = replayed[(replayed["horizon"] == 1) & (replayed["status"] == AnchorStatus.DEPENDENCY_CHANGED.name)]
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
                "language": language(t),
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
        "withheld /100, wide": totals["per_100_wide"],
        "withheld /100, precise": totals["per_100_dependency"],
        "load ratio, wide": totals["load_ratio_wide"],
        "load ratio, precise": totals["load_ratio"],
        "false-FRESH % (symbol-only)": 100 * totals["false_fresh"],
        "shown by precise, withheld by wide": totals["released"].astype(int),
    }).set_axis(totals["project"]).rename_axis(None)


def step_statuses(table: pd.DataFrame, steps: Iterable[tuple[str, str, str, str]]) -> pd.DataFrame:
    """What each gate says of a note anchored at one release and checked at a later one, for given steps.

    For experiments that pick release steps by what a gate said (the notes
    trials chose steps where the symbol-only gate shows a note the
    dependency-aware gate withholds): the committed tables are rebuilt with
    the gate's current rules, so a step chosen under one rule is checked
    again under every rule.

    Parameters
    ----------
    table : pandas.DataFrame
        One project's release history (:func:`load_history`).
    steps : iterable of (str, str, str, str)
        ``(from_version, to_version, path, qualname)``.

    Returns
    -------
    pandas.DataFrame
        One row per step, in order: the four fields, then ``symbol``,
        ``precise`` and ``wide``, each gate's status name.
    """
    steps = list(steps)
    by_version = {str(v): int(r) for r, v in zip(table["release"], table["version"])}
    unknown = sorted({v for s in steps for v in s[:2] if v not in by_version})
    if unknown:
        raise NotesError(f"versions {unknown} are not in the table; expected some of {sorted(by_version)}")
    indexes = {rule: _indexes(table, rule) for rule in RULE_COLUMNS}
    rows = []
    for start, stop, path, qualname in steps:
        begin, end = by_version[start], by_version[stop]
        row: dict[str, object] = {"from_version": start, "to_version": stop, "path": path, "qualname": qualname}
        note = anchor(indexes["precise"][begin], path, qualname)
        row["symbol"] = classify(note, indexes["precise"][end], dependencies=False).status.name
        for rule in ("precise", "wide"):
            row[rule] = classify(anchor(indexes[rule][begin], path, qualname), indexes[rule][end]).status.name
        rows.append(row)
    return pd.DataFrame(rows, columns=["from_version", "to_version", "path", "qualname", "symbol", "precise", "wide"])
