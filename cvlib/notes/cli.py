"""``cvlib notes``: check a team's notes against a working tree, and anchor new ones.

``cvlib notes check NOTES_FILE REPO_DIR`` prints, for each note, where its code
stands and exactly what an agent would be shown: the note's text, or nothing.
``cvlib notes anchor REPO_DIR PATH QUALNAME`` prints a notes-file entry with
the hashes filled in, ready to paste.
"""

from __future__ import annotations

import json
import sys
from functools import wraps
from typing import Any

import click

from cvlib.core.errors import CvlibError
from .anchors import read_snapshot
from .gate import Note, Status, SymbolIndex, Tier, agent_visible, anchor, locate
from .notesfile import note_entry, read_notes

_FORMAT_HELP = """\b
NOTES_FILE is YAML (.yaml/.yml) or JSON (.json):
  anchor_dir: ../v1.0     # optional, relative to the file: anchor notes without hashes here
  notes:
    - id: steps-one-based
      text: The step count is 1-based on purpose.
      path: pkg/runner.py           # relative to REPO_DIR
      qualname: Runner.step         # func | Class.method
      tier: high                    # high | medium | low
      approved: true
      raw_hash: <64 hex>            # from `cvlib notes anchor`;
      norm_hash: <64 hex>           # omit both to use anchor_dir
"""


def _friendly(command):
    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any):
        try:
            return command(*args, **kwargs)
        except CvlibError as err:
            click.echo(f"error: {err}", err=True)
            sys.exit(2)

    return wrapper


@click.group("notes", context_settings={"help_option_names": ["-h", "--help"]})
def notes() -> None:
    """Code-anchored notes: shown to an agent only while approved, HIGH and FRESH."""


@notes.command("check", epilog=_FORMAT_HELP)
@click.argument("notes_file", type=click.Path(dir_okay=False))
@click.argument("repo_dir", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per note instead of text.")
@_friendly
def check(notes_file: str, repo_dir: str, as_json: bool) -> None:
    """Print each note's status in REPO_DIR and what an agent would see.

    Statuses: FRESH, CHANGED, RENAMED (with a hint for a human), AMBIGUOUS,
    MISSING, UNPARSABLE. Only an approved HIGH note that is FRESH is shown;
    everything else is withheld (absent, not labelled).
    """
    loaded = read_notes(notes_file)
    index = SymbolIndex.from_snapshot(read_snapshot(repo_dir))
    records = []
    for note in loaded:
        where = locate(note, index)
        visible = agent_visible(note, index)
        records.append(
            {
                "id": note.id,
                "status": where.status.name,
                "anchor": f"{note.anchor.path}::{note.anchor.qualname}",
                "tier": note.tier.name,
                "approved": note.approved,
                "hint": None if where.hint is None else str(where.hint),
                "candidates": [str(c) for c in where.candidates],
                "agent_sees": note.text if visible else None,
            }
        )
    if as_json:
        for record in records:
            click.echo(json.dumps(record, sort_keys=True))
        return
    for record in records:
        click.echo(f"{record['id']}: {record['status']}  {record['anchor']}  (tier {record['tier']}, "
                   f"{'approved' if record['approved'] else 'not approved'})")
        if record["hint"]:
            click.echo(f"  hint for a reviewer: moved to {record['hint']}")
        elif record["status"] == Status.AMBIGUOUS.name:
            click.echo(f"  reviewer: {len(record['candidates'])} symbols match: {', '.join(record['candidates'])}")
        if record["agent_sees"] is None:
            click.echo("  agent sees: nothing (withheld)")
        else:
            click.echo(f"  agent sees: {record['agent_sees']}")
    shown = sum(r["agent_sees"] is not None for r in records)
    click.echo(f"{len(records)} notes: {shown} shown, {len(records) - shown} withheld")


@notes.command("anchor")
@click.argument("repo_dir", type=click.Path(file_okay=False))
@click.argument("path")
@click.argument("qualname")
@click.option("--id", "note_id", default=None, help="Note id (default: the qualified name).")
@click.option("--text", default="", help="Note text.")
@click.option("--tier", type=click.Choice([t.value for t in Tier]), default="high", show_default=True)
@click.option("--approved/--not-approved", default=False, show_default=True)
@_friendly
def anchor_command(repo_dir: str, path: str, qualname: str, note_id: str | None, text: str, tier: str,
                   approved: bool) -> None:
    """Print a notes-file entry (YAML) anchoring a note on QUALNAME in PATH of REPO_DIR."""
    import yaml

    anchored = anchor(read_snapshot(repo_dir), path, qualname)
    note = Note(id=note_id or qualname, text=text, anchor=anchored, tier=Tier(tier), approved=approved)
    click.echo(yaml.safe_dump([note_entry(note)], sort_keys=False, allow_unicode=True), nl=False)
