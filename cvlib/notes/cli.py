"""``cvlib notes``: check a team's notes against a working tree, and write their fingerprints.

``cvlib notes check NOTES_FILE REPO_DIR`` prints, for each note, where its code
stands and exactly what an agent would be shown: the note's text, or nothing.
``cvlib notes anchor NOTES_FILE REPO_DIR`` writes the fingerprints of the notes
that have none (a human has checked them against this code);
``cvlib notes anchor REPO_DIR PATH QUALNAME`` prints a new entry, ready to paste.

Every error is one line on stderr: bad input (a malformed notes file, a note
without a fingerprint, an unknown symbol) exits 2; anything unexpected exits 1
and says to run with ``--debug`` for the traceback.

Help texts are plain words (no reST markup): click prints docstrings as written.
"""

from __future__ import annotations

import json
import sys
from functools import wraps
from typing import Any

import click

from cvlib.core.errors import CvlibError, ParameterError

from .anchors import Unreadable, read_snapshot
from .gate import AnchorStatus, Note, SymbolIndex, Tier, agent_visible, anchor, explain, locate
from .notesfile import anchor_notes_file, note_entry, read_notes

_FORMAT_HELP = """\b
NOTES_FILE is YAML (.yaml/.yml) or JSON (.json):
  notes:
    - id: steps-one-based
      text: The step count is 1-based on purpose.
      path: pkg/runner.py           # relative to REPO_DIR (.py, .rs, or a registered language)
      qualname: Runner.step         # func | Class.method | outer.inner | CONST | Type::method
      tier: high                    # high | medium | low
      approved: true
      raw_hash/norm_hash/dep_hash/deps: written by 'cvlib notes anchor NOTES_FILE REPO_DIR'
"""

_DEBUG = {"on": False}


def _friendly(command):
    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any):
        try:
            return command(*args, **kwargs)
        except CvlibError as err:
            # What was typed is wrong (2), or what was read is (1): the rule of every cvlib command.
            click.echo(f"error: {err}", err=True)
            sys.exit(2 if isinstance(err, ParameterError) else 1)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except Exception as err:  # never a traceback unless asked for
            if _DEBUG["on"]:
                raise
            first = str(err).strip().splitlines()[0] if str(err).strip() else ""
            click.echo(f"error: {type(err).__name__}: {first} (run `cvlib notes --debug ...` for the traceback)", err=True)
            sys.exit(1)

    return wrapper


@click.group("notes", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show the traceback of an unexpected error.")
def notes(debug: bool) -> None:
    """Code-anchored notes: shown to an agent only while approved, HIGH and FRESH."""
    _DEBUG["on"] = debug


def _first_changed(status: AnchorStatus, changes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What a reviewer looks at first: the note's own code if it changed, else the nearest changed dependency."""
    if status is AnchorStatus.CHANGED:
        return {"label": "its own code", "kind": "own code", "depth": 0}
    return changes[0] if changes else None


def _records(loaded: list[Note], index: SymbolIndex) -> list[dict[str, Any]]:
    records = []
    for note in loaded:
        where = locate(note, index)
        visible = agent_visible(note, index)
        changes = [{"label": c.label, "kind": c.kind, "depth": c.depth} for c in explain(note, index)]
        records.append(
            {
                "id": note.id,
                "status": where.status.name,
                "anchor": f"{note.anchor.path}::{note.anchor.qualname}",
                "tier": note.tier.name,
                "approved": note.approved,
                "hint": None if where.hint is None else str(where.hint),
                "candidates": [str(c) for c in where.candidates],
                "changed": list(where.changed),
                "changes": changes,
                "first_changed": None if visible else _first_changed(where.status, changes),
                "reason": where.reason or None,
                "agent_sees": note.text if visible else None,
            }
        )
    return records


@notes.command("check", epilog=_FORMAT_HELP)
@click.argument("notes_file")
@click.argument("repo_dir")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per note instead of text.")
@click.option("--explain", "explained", multiple=True, metavar="NOTE_ID",
              help="List every changed dependency of this note, nearest first (repeatable).")
@_friendly
def check(notes_file: str, repo_dir: str, as_json: bool, explained: tuple[str, ...]) -> None:
    """Print each note's status in REPO_DIR and what an agent would see.

    Statuses: FRESH, CHANGED, DEPENDENCY_CHANGED (with the dependencies that
    changed), RENAMED (with a hint for a human), AMBIGUOUS, MISSING,
    UNPARSABLE, UNREADABLE. Only an approved HIGH note that is FRESH is shown;
    everything else is withheld (absent, not labelled). For each withheld note
    it names the one change to look at first: the note's own code, or the
    changed dependency nearest to it (with its kind: module name, class
    member, class header, own binding, name appeared or disappeared);
    --explain NOTE_ID lists all of them. Notes must carry the fingerprint
    'cvlib notes anchor' writes; a note without one is refused.
    """
    loaded = read_notes(notes_file)
    unknown = sorted(set(explained) - {n.id for n in loaded})
    if unknown:
        raise ParameterError(f"--explain {unknown[0]!r}: {notes_file!r} has no note with that id")
    snapshot = read_snapshot(repo_dir)
    records = _records(loaded, SymbolIndex.from_snapshot(snapshot))
    if as_json:
        for record in records:
            click.echo(json.dumps(record, sort_keys=True))
        return
    for record in records:
        click.echo(f"{record['id']}: {record['status']}  {record['anchor']}  (tier {record['tier']}, "
                   f"{'approved' if record['approved'] else 'not approved'})")
        if record["hint"]:
            click.echo(f"  hint for a reviewer: moved to {record['hint']}")
        elif record["status"] == AnchorStatus.AMBIGUOUS.name:
            click.echo(f"  reviewer: {len(record['candidates'])} symbols match: {', '.join(record['candidates'])}")
        if record["changed"]:
            click.echo(f"  reviewer: dependencies changed: {', '.join(record['changed'])}")
        first = record["first_changed"]
        if first is not None:
            click.echo(f"  reviewer: look first at {first['label']} ({first['kind']})")
        if record["id"] in explained:
            if record["status"] == AnchorStatus.CHANGED.name:
                click.echo("  changed: its own code (own code)")
            for change in record["changes"]:
                depth = "depth unknown" if change["depth"] < 0 else f"depth {change['depth']}"
                click.echo(f"  changed: {change['label']} ({change['kind']}, {depth})")
            if not record["changes"] and record["status"] != AnchorStatus.CHANGED.name:
                click.echo("  changed: no dependency")

        if record["reason"]:
            click.echo(f"  reviewer: {record['reason']}")
        if record["agent_sees"] is None:
            click.echo("  agent sees: nothing (withheld)")
        else:
            click.echo(f"  agent sees: {record['agent_sees']}")
    shown = sum(r["agent_sees"] is not None for r in records)
    skipped = sorted(p for p, s in snapshot.items() if isinstance(s, Unreadable))
    tail = f"; {len(skipped)} file(s) could not be read: {', '.join(skipped[:5])}{', ...' if len(skipped) > 5 else ''}" if skipped else ""
    click.echo(f"{len(records)} notes: {shown} shown, {len(records) - shown} withheld{tail}")


@notes.command("anchor")
@click.argument("args", nargs=-1, required=True)
@click.option("--note", "note_ids", multiple=True, help="NOTES_FILE mode: re-anchor this note too (repeatable).")
@click.option("--all", "everything", is_flag=True, help="NOTES_FILE mode: re-anchor every note.")
@click.option("--id", "note_id", default=None, help="Entry mode: note id (default: the qualified name).")
@click.option("--text", default="", help="Entry mode: note text.")
@click.option("--tier", type=click.Choice([t.value for t in Tier]), default="high", show_default=True)
@click.option("--approved/--not-approved", default=False, show_default=True)
@_friendly
def anchor_command(args: tuple[str, ...], note_ids: tuple[str, ...], everything: bool, note_id: str | None,
                   text: str, tier: str, approved: bool) -> None:
    """Write fingerprints: anchor NOTES_FILE REPO_DIR, or anchor REPO_DIR PATH QUALNAME.

    \b
    NOTES_FILE REPO_DIR: fill in the fingerprint of every note that has none
      (after a human checked it against the code in REPO_DIR); --note ID or
      --all re-anchor notes that have one. The file is rewritten atomically.
    REPO_DIR PATH QUALNAME: print a new notes-file entry (YAML) for QUALNAME in
      PATH, fingerprint included, ready to paste.
    """
    if len(args) == 2:
        for note_id_done, what in anchor_notes_file(args[0], args[1], note_ids, everything):
            click.echo(f"{note_id_done}: {what}")
        return
    if len(args) != 3:
        raise click.UsageError("give NOTES_FILE REPO_DIR, or REPO_DIR PATH QUALNAME")
    import yaml

    repo_dir, path, qualname = args
    anchored = anchor(read_snapshot(repo_dir), path, qualname)
    note = Note(id=note_id or qualname, text=text, anchor=anchored, tier=Tier(tier), approved=approved)
    click.echo(yaml.safe_dump([note_entry(note)], sort_keys=False, allow_unicode=True, width=120), nl=False)
