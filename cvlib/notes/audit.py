"""Audit the notes only the precise gate withholds: did what they depend on change in behaviour?

A note-step is *precise-only* when the precise dependency-aware gate withholds
it one release later and the symbol-only gate shows it (its own code is
unchanged after normalization, a dependency in its file is not). Any gate that
never shows a note whose behaviour changed must withhold every precise-only
note-step whose changed dependency is code the note's symbol runs and that can
change its result or effects; it may show the others, whose change no call of
the symbol can observe. So the symbol-only load plus the precise-only
note-steps whose change is in behaviour is a lower bound on the review load of
every sound gate on these histories.

:func:`precise_only_groups` lists the precise-only note-steps of a replay
grouped by (project, release step, first changed dependency), the
dependency :func:`cvlib.notes.gate.explain` names first for each note
(:func:`cvlib.notes.gate.ordered_changes`; the tables carry no depths, so
among the changed dependencies the first by label). A human reads the diffs
of the largest groups and of a seeded random sample of the rest
(:func:`audit_sample`), then of every other group (the census,
:func:`audit_census`), and records a verdict per group in
``data/code_history/precise_only_audit.csv`` (:func:`read_audit`);
:func:`check_audit` fails when a recorded group is no longer in the replay as
recorded, or a census misses one, and :func:`audit_bound` turns the verdicts
into the bound: estimated from the sample with a Wilson interval, and
counted from the census.

Run ``python -m cvlib.notes.audit`` for the listing (``--help`` for options).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from cvlib.core.intervals import proportion_interval

from . import history as nh
from .errors import NotesError
from .gate import AnchorStatus, ordered_changes

#: The keys of a group of precise-only note-steps.
GROUP_KEYS: tuple[str, ...] = ("project", "from_version", "to_version", "dependency", "kind")

#: The verdicts a group may get (its change can alter the symbol's result or effects; no call can observe it; not settled).
VERDICTS: tuple[str, ...] = ("behaviour", "spelling", "unsure")

#: How a group came into the audit (among the largest groups, drawn at random from the rest, or read with every other group).
STRATA: tuple[str, ...] = ("top", "sample", "census")


@dataclass(frozen=True)
class AuditDesign:
    """How the groups of an audit table were chosen (:func:`audit_sample`'s arguments, and whether every other group was read too)."""

    min_steps: int
    draws: int
    seed: int
    census: bool = False


#: The design of ``data/code_history/precise_only_audit.csv`` (every group of 8 or more note-steps, then 120
#: note-steps drawn with seed 23 for the estimate, then every other group for the census that replaces it).
DESIGN = AuditDesign(min_steps=8, draws=120, seed=23, census=True)

#: Columns of the audit table.
AUDIT_COLUMNS: tuple[str, ...] = (*GROUP_KEYS, "note_steps", "stratum", "draws", "verdict", "behaviour_steps", "spelling_steps",
                                  "reason")


def precise_only(replayed: pd.DataFrame, versions: dict[str, list[str]]) -> pd.DataFrame:
    """The one-release note-steps the precise gate withholds and the symbol-only gate shows, with their first changed dependency.

    Parameters
    ----------
    replayed
        :func:`cvlib.notes.history.replay` rows, with a ``project`` column.
    versions
        Project -> its version strings in release order, to name the steps.

    Returns
    -------
    DataFrame
        ``project``, ``from_version``, ``to_version``, ``path``,
        ``qualname``, ``dependency`` and ``kind`` (the first changed
        dependency of the note and its kind), ``changed`` (all of them).
    """
    if "project" not in replayed.columns:
        raise NotesError("precise_only() needs replay rows with a 'project' column (cvlib.notes.views.replay_projects)")
    step = replayed[(replayed["horizon"] == 1) & (replayed["status"] != AnchorStatus.FRESH.name)
                    & (replayed["status_symbol"] == AnchorStatus.FRESH.name)]
    unknown = sorted(set(step["project"]) - set(versions))
    if unknown:
        raise NotesError(f"no versions given for project(s) {unknown}; expected a key for each replayed project")
    firsts = [ordered_changes(str(changed).split("; "), qualname)[0]
              for changed, qualname in zip(step["changed"], step["qualname"])]
    return pd.DataFrame({
        "project": step["project"].to_numpy(),
        "from_version": [versions[p][int(k)] for p, k in zip(step["project"], step["from_release"])],
        "to_version": [versions[p][int(k)] for p, k in zip(step["project"], step["to_release"])],
        "path": step["path"].to_numpy(),
        "qualname": step["qualname"].to_numpy(),
        "dependency": [c.label for c in firsts],
        "kind": [c.kind for c in firsts],
        "changed": step["changed"].to_numpy(),
        "_order": step["from_release"].to_numpy(),
    })


def precise_only_groups(replayed: pd.DataFrame, versions: dict[str, list[str]]) -> pd.DataFrame:
    """:func:`precise_only` grouped by project, release step and first changed dependency, largest first.

    Parameters
    ----------
    replayed
        :func:`cvlib.notes.history.replay` rows, with a ``project`` column.
    versions
        Project -> its version strings in release order.

    Returns
    -------
    DataFrame
        :data:`GROUP_KEYS`, ``note_steps`` (precise-only note-steps the group
        accounts for) and ``notes`` (their symbols, ``path::qualname``,
        ``"; "``-joined); ordered by ``note_steps`` descending, then project,
        release and dependency, so the order is the same on every run.
    """
    rows = precise_only(replayed, versions)
    keys = list(GROUP_KEYS)
    grouped = rows.assign(note=rows["path"] + "::" + rows["qualname"]).groupby(keys, sort=False)
    out = grouped.agg(note_steps=("note", "size"), notes=("note", lambda s: "; ".join(sorted(s))),
                      _order=("_order", "first")).reset_index()
    out = out.sort_values(["note_steps", "project", "_order", "dependency", "kind"],
                          ascending=[False, True, True, True, True], kind="stable")
    return out.drop(columns="_order").reset_index(drop=True)


def _draw_key(seed: int, project: str, start: str, stop: str, note: str) -> str:
    """A note-step's place in the seeded draw: a hash of the seed and what names the note-step, nothing else."""
    return hashlib.sha256("\0".join((str(seed), project, start, stop, note)).encode()).hexdigest()


def audit_sample(groups: pd.DataFrame, min_steps: int, draws: int, seed: int) -> pd.DataFrame:
    """The groups to audit: every group of at least ``min_steps`` note-steps, then those of ``draws`` note-steps drawn from the rest.

    The draw is of note-steps, uniformly without replacement: each note-step
    gets a key, the SHA-256 of the seed and its project, release step and
    symbol, and the ``draws`` smallest keys are drawn. A note-step's key does
    not depend on the others, so when a rule change removes some note-steps,
    the rest of the sample stays drawn (one more takes each removed draw's
    place), and drawing more keeps the earlier ones. The share of drawn
    note-steps with a verdict estimates that share among all the unaudited
    note-steps, each weighing the same.

    Parameters
    ----------
    groups
        :func:`precise_only_groups`.
    min_steps
        Groups of at least this many note-steps are audited whole.
    draws
        How many note-steps to draw from the other groups.
    seed
        Part of every key.

    Returns
    -------
    DataFrame
        The chosen rows of ``groups`` (the whole ones first, in ``groups``'
        order), with ``stratum`` (:data:`STRATA`) and ``draws`` (how many
        drawn note-steps fall in the group; 0 for the whole ones).
    """
    for name, value in (("min_steps", min_steps), ("draws", draws), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise NotesError(f"{name} must be a whole number >= 0, got {value!r}")
    whole = groups["note_steps"] >= min_steps
    rest = groups[~whole].reset_index(drop=True)
    total = int(rest["note_steps"].sum())
    if draws > total:
        raise NotesError(f"draws must be at most the {total} note-steps in groups of fewer than {min_steps}, got {draws}")
    keys = sorted((_draw_key(seed, r.project, r.from_version, r.to_version, note), i)
                  for i, r in enumerate(rest.itertuples(index=False)) for note in str(r.notes).split("; "))
    counts = np.bincount([i for _, i in keys[:draws]], minlength=len(rest)).astype(int)
    head = groups[whole].assign(stratum="top", draws=0)
    drawn = rest.assign(stratum="sample", draws=counts)[counts > 0]
    return pd.concat([head, drawn], ignore_index=True)


def audit_census(groups: pd.DataFrame, design: AuditDesign) -> pd.DataFrame:
    """Every group, each in its stratum: :func:`audit_sample`'s under ``design``, then the rest as ``census``.

    The sample estimates what the unread groups hold; reading them all
    (the census) replaces the estimate by a count, and keeping the strata
    shows how good the estimate was.

    Parameters
    ----------
    groups
        :func:`precise_only_groups`.
    design
        The top groups' size and the draw.

    Returns
    -------
    DataFrame
        The rows of :func:`audit_sample`, then every other group with
        ``stratum`` ``census`` and ``draws`` 0, in ``groups``' order.
    """
    chosen = audit_sample(groups, design.min_steps, design.draws, design.seed)
    keys = list(GROUP_KEYS)
    seen = set(chosen[keys].itertuples(index=False, name=None))
    others = groups[[k not in seen for k in groups[keys].itertuples(index=False, name=None)]]
    return pd.concat([chosen, others.assign(stratum="census", draws=0)], ignore_index=True)


def read_audit(path: str | Path) -> pd.DataFrame:
    """Read an audit table (:data:`AUDIT_COLUMNS`) and check its values.

    Parameters
    ----------
    path
        A CSV file such as ``data/code_history/precise_only_audit.csv``.

    Returns
    -------
    DataFrame

    Raises
    ------
    NotesError
        If the file is missing, lacks a column, or holds an unknown verdict or
        stratum, a count that is not a whole number, ``behaviour_steps`` and
        ``spelling_steps`` that do not fit the verdict (all of the group's
        note-steps behaviour for ``behaviour``, all spelling for
        ``spelling``; for ``unsure``, not all of either and at most all
        together: a group whose note-steps differ is ``unsure`` and counts
        those shown to be behaviour and those shown to be spelling), a group
        twice, or a row without a reason.
    """
    path = Path(path)
    if not path.is_file():
        raise NotesError(f"no audit table at {str(path)!r}")
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in AUDIT_COLUMNS if c not in frame.columns]
    if missing:
        raise NotesError(f"audit table {str(path)!r} lacks column(s) {', '.join(missing)}")
    for column, allowed in (("verdict", VERDICTS), ("stratum", STRATA)):
        bad = sorted(set(frame[column]) - set(allowed))
        if bad:
            raise NotesError(f"audit table {str(path)!r}: {column} must be one of {', '.join(allowed)}, got {bad}")
    for column in ("note_steps", "draws", "behaviour_steps", "spelling_steps"):
        bad = sorted(v for v in set(frame[column]) if not v.isdigit())
        if bad:
            raise NotesError(f"audit table {str(path)!r}: {column} must be a whole number, got {bad}")
        frame[column] = frame[column].astype(int)
    b, sp, n, verdict = frame["behaviour_steps"], frame["spelling_steps"], frame["note_steps"], frame["verdict"]
    fits = (((verdict == "behaviour") & (b == n) & (sp == 0)) | ((verdict == "spelling") & (sp == n) & (b == 0))
            | ((verdict == "unsure") & (b < n) & (sp < n) & (b + sp <= n)))
    wrong = frame[~fits | (frame["draws"] > n) | ((frame["stratum"] != "sample") & (frame["draws"] != 0))]
    if not wrong.empty:
        row = wrong.iloc[0]
        raise NotesError(f"audit table {str(path)!r}: the group {row[list(GROUP_KEYS)].tolist()} has verdict {row['verdict']!r} "
                         f"with behaviour_steps={row['behaviour_steps']}, spelling_steps={row['spelling_steps']} and "
                         f"draws={row['draws']} of {row['note_steps']} note-steps in stratum {row['stratum']!r}; expected all "
                         "behaviour for 'behaviour', all spelling for 'spelling', not all of either for 'unsure', draws at most "
                         "note_steps, and draws 0 outside the sample")
    twice = frame[frame.duplicated(list(GROUP_KEYS), keep=False)]
    if not twice.empty:
        raise NotesError(f"audit table {str(path)!r} lists a group twice: {twice.iloc[0][list(GROUP_KEYS)].tolist()}")
    empty = frame[frame["reason"].str.strip() == ""]
    if not empty.empty:
        raise NotesError(f"audit table {str(path)!r}: the group {empty.iloc[0][list(GROUP_KEYS)].tolist()} has no reason")
    return frame[list(AUDIT_COLUMNS)]


def check_audit(audit: pd.DataFrame, groups: pd.DataFrame) -> None:
    """Fail when the audit no longer describes the replay: a group gone, or with another note-step count.

    Parameters
    ----------
    audit
        :func:`read_audit`.
    groups
        :func:`precise_only_groups` of the current replay.

    Raises
    ------
    NotesError
        Naming the first group that differs, or, for an audit with a census,
        the first group of the replay it lacks.
    """
    current = {tuple(row): int(n) for row, n in zip(groups[list(GROUP_KEYS)].itertuples(index=False), groups["note_steps"])}
    for row in audit.itertuples(index=False):
        group = tuple(getattr(row, k) for k in GROUP_KEYS)
        if group not in current:
            raise NotesError(f"the audited group {list(group)} is no longer precise-only in the replay; audit again")
        if current[group] != int(row.note_steps):
            raise NotesError(f"the audited group {list(group)} now holds {current[group]} note-steps, "
                             f"the audit recorded {row.note_steps}; audit again")
    if (audit["stratum"] == "census").any():
        read = set(audit[list(GROUP_KEYS)].itertuples(index=False, name=None))
        unread = [g for g in current if g not in read]
        if unread:
            raise NotesError(f"the audit's census lacks the group {list(unread[0])} of the replay "
                             f"({len(unread)} group(s) unread); audit again")


@dataclass(frozen=True)
class AuditBound:
    """What the audit says of the review load any sound gate must carry.

    ``symbol`` and ``precise`` are the two gates' loads (note-steps withheld);
    ``audited`` the note-steps of the top groups, of which ``behaviour``,
    ``spelling`` and ``unsure`` (``behaviour`` and ``spelling`` count the
    note-steps of mixed groups shown to be so too); ``rest`` the other precise-only
    note-steps, of which ``draws`` were drawn and ``drawn_behaviour``,
    ``drawn_spelling`` fell in groups judged so. ``bound`` (with ``bound_low``, ``bound_high``) = symbol +
    behaviour + rest x (share of behaviour among the drawn, Wilson interval);
    unsure counts as not shown to be behaviour, so the bound stays a lower
    bound. ``spelling_low``/``spelling_high``: the Wilson interval of the
    spelling share of the rest; ``releasable`` (with its interval) = the
    spelling note-steps of the top groups + rest x that share, what a sound
    gate could show beyond the precise one if the unsure ones are behaviour,
    so :attr:`best` = precise - releasable is the other end: a sound gate's
    least load lies between ``bound`` and ``best``.

    With a census (``census``: every precise-only note-step's group read),
    ``rest_behaviour`` and ``rest_spelling`` count the rest's note-steps
    shown to be behaviour and spelling, and :attr:`exact_bound`,
    :attr:`exact_best` replace the estimates by counts.
    """

    symbol: int
    precise: int
    audited: int
    behaviour: int
    spelling: int
    unsure: int
    rest: int
    draws: int
    drawn_behaviour: int
    drawn_spelling: int
    confidence: float
    bound: float
    bound_low: float
    bound_high: float
    spelling_low: float
    spelling_high: float
    releasable: float
    releasable_low: float
    releasable_high: float
    census: bool = False
    rest_behaviour: int = 0
    rest_spelling: int = 0

    @property
    def exact_bound(self) -> int:
        """The least load of a sound gate as a census counts it (the symbol-only load and every note-step shown to be behaviour)."""
        return self.symbol + self.behaviour + self.rest_behaviour

    @property
    def exact_best(self) -> int:
        """The load of a gate that shows exactly the spelling changes a census found (the unsure ones withheld)."""
        return self.precise - self.spelling - self.rest_spelling

    @property
    def exact_unsure(self) -> int:
        """The precise-only note-steps a census showed to be neither behaviour nor spelling."""
        return self.precise_only - self.behaviour - self.rest_behaviour - self.spelling - self.rest_spelling

    @property
    def best(self) -> float:
        """The load of a gate that shows exactly the note-steps whose change is spelling (unsure ones withheld)."""
        return self.precise - self.releasable

    @property
    def best_low(self) -> float:
        """:attr:`best` at the high end of the spelling share's interval."""
        return self.precise - self.releasable_high

    @property
    def best_high(self) -> float:
        """:attr:`best` at the low end of the spelling share's interval."""
        return self.precise - self.releasable_low

    @property
    def precise_only(self) -> int:
        """Note-steps the precise gate withholds and the symbol-only gate shows."""
        return self.precise - self.symbol

    def ratio(self, load: float) -> float:
        """A load over the symbol-only gate's (the chapter's load ratio)."""
        return load / self.symbol


def audit_bound(audit: pd.DataFrame, symbol: int, precise: int, confidence: float = 0.95) -> AuditBound:
    """The lower bound on a sound gate's load that an audit implies.

    Parameters
    ----------
    audit
        :func:`read_audit` (checked against the replay with :func:`check_audit`).
    symbol, precise
        Note-steps the symbol-only and the precise gate withhold over the same one-release steps.
    confidence
        Of the Wilson intervals.

    Returns
    -------
    AuditBound

    Raises
    ------
    NotesError
        If the loads are inconsistent with the audit (the audited note-steps
        exceed the precise-only ones) or nothing was drawn from a non-empty rest.
    """
    if isinstance(symbol, bool) or isinstance(precise, bool) or not 0 < symbol <= precise:
        raise NotesError(f"need 0 < symbol <= precise loads, got symbol={symbol!r}, precise={precise!r}")
    top = audit[audit["stratum"] == "top"]
    sample = audit[audit["stratum"] == "sample"]
    audited = int(top["note_steps"].sum())
    counts = {"behaviour": int(top["behaviour_steps"].sum()), "spelling": int(top["spelling_steps"].sum())}
    counts["unsure"] = audited - counts["behaviour"] - counts["spelling"]
    rest = precise - symbol - audited
    if rest < 0:
        raise NotesError(f"the audit's top groups hold {audited} note-steps, more than the {precise - symbol} precise-only ones")
    draws = int(sample["draws"].sum())
    drawn = {v: int(sample.loc[sample["verdict"] == v, "draws"].sum()) for v in VERDICTS}
    if rest > 0 and draws == 0:
        raise NotesError(f"{rest} precise-only note-steps are outside the top groups but none was drawn")
    if draws > rest:
        raise NotesError(f"the audit draws {draws} note-steps from a rest of {rest}")
    if rest:
        share, s_share = drawn["behaviour"] / draws, drawn["spelling"] / draws
        low, high = proportion_interval(drawn["behaviour"], draws, confidence)
        s_low, s_high = proportion_interval(drawn["spelling"], draws, confidence)
    else:
        share = low = high = s_share = s_low = s_high = 0.0
    base = symbol + counts["behaviour"]
    others = audit[audit["stratum"] != "top"]
    census = bool((audit["stratum"] == "census").any()) and int(others["note_steps"].sum()) == rest
    return AuditBound(symbol=symbol, precise=precise, audited=audited, behaviour=counts["behaviour"],
                      spelling=counts["spelling"], unsure=counts["unsure"], rest=rest, draws=draws,
                      drawn_behaviour=drawn["behaviour"], drawn_spelling=drawn["spelling"], confidence=confidence,
                      bound=base + rest * share, bound_low=base + rest * low, bound_high=base + rest * high,
                      spelling_low=s_low, spelling_high=s_high, releasable=counts["spelling"] + rest * s_share,
                      releasable_low=counts["spelling"] + rest * s_low, releasable_high=counts["spelling"] + rest * s_high,
                      census=census, rest_behaviour=int(others["behaviour_steps"].sum()) if census else 0,
                      rest_spelling=int(others["spelling_steps"].sum()) if census else 0)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cvlib.notes.audit``: print the precise-only groups of the committed tables as CSV.

    Parameters
    ----------
    argv
        Command-line arguments (``--data``, ``--projects``, ``--min-steps``, ``--draws``, ``--seed``, ``--design``).

    Returns
    -------
    int
        The exit status.
    """
    parser = argparse.ArgumentParser(prog="python -m cvlib.notes.audit",
                                     description="Print the precise-only groups of the release tables as CSV.")
    parser.add_argument("--data", default="data/code_history", help="folder of the release tables")
    parser.add_argument("--projects", nargs="+", default=list(PROJECTS))
    parser.add_argument("--min-steps", type=int, default=None,
                        help="print only the groups to audit: those of at least MIN_STEPS note-steps ...")
    parser.add_argument("--draws", type=int, default=0, help="... and those of DRAWS note-steps drawn from the rest")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw")
    parser.add_argument("--design", action="store_true", help="the committed audit's design: " + str(DESIGN))
    args = parser.parse_args(argv)
    try:
        groups = replayed_groups(args.projects, args.data)
        if args.design:
            groups = (audit_census(groups, DESIGN) if DESIGN.census
                      else audit_sample(groups, DESIGN.min_steps, DESIGN.draws, DESIGN.seed))
        elif args.min_steps is not None:
            groups = audit_sample(groups, args.min_steps, args.draws, args.seed)
    except NotesError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    groups.to_csv(sys.stdout, index=False)
    return 0


#: The projects of the committed release tables.
PROJECTS: tuple[str, ...] = ("requests", "flask", "httpie", "jiter", "rpds-py")


def replayed_groups(projects: Sequence[str], folder: str | Path) -> pd.DataFrame:
    """:func:`precise_only_groups` of the replay of some projects' tables.

    Parameters
    ----------
    projects
        Table names under ``folder``.
    folder
        The folder of the release tables.

    Returns
    -------
    DataFrame
    """
    tables = nh.load_histories(projects, folder)
    replayed = pd.concat([nh.replay(t) for t in tables.values()], ignore_index=True)
    return precise_only_groups(replayed, {p: nh.versions(t) for p, t in tables.items()})


if __name__ == "__main__":
    raise SystemExit(main())
