"""Notes files: the notes a team keeps, in YAML or JSON, read into :class:`~cvlib.notes.Note` values.

Format (``.yaml``/``.yml`` or ``.json``; the same structure in both)::

    anchor_dir: ../v1.0        # optional; a directory, relative to this file,
                               # to anchor the notes that carry no hashes
    notes:
      - id: steps-one-based                   # unique, non-empty
        text: The step count is 1-based on purpose.
        path: pkg/runner.py                   # POSIX path relative to the repository root
        qualname: Runner.step                 # func, Class.method, Outer.Inner.method
        tier: high                            # high | medium | low
        approved: true                        # a human approved it against this anchor
        raw_hash: 3f0c...                     # 64 hex digits each, as `cvlib notes anchor` prints;
        norm_hash: 9a1b...                    # omit both to anchor against anchor_dir

A bare list of notes (without ``anchor_dir``) is accepted too. Every error
names the file, the note and the field at fault.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .anchors import read_snapshot
from .errors import NotesError, NotesFileError
from .gate import Anchor, Note, SymbolIndex, Tier, anchor

_NOTE_KEYS = {"id", "text", "path", "qualname", "tier", "approved", "raw_hash", "norm_hash"}
_REQUIRED = ("id", "text", "path", "qualname", "tier", "approved")
_HEX = re.compile(r"^[0-9a-f]{64}$")


def _load(path: Path) -> Any:
    if not path.is_file():
        raise NotesFileError(f"notes file {str(path)!r} does not exist or is not a file")
    suffix = path.suffix.lower()
    if suffix not in {".json", ".yaml", ".yml"}:
        raise NotesFileError(f"notes file {str(path)!r} must end in .yaml, .yml or .json")
    try:
        text = path.read_text(encoding="utf-8")
        if suffix == ".json":
            return json.loads(text)
        import yaml

        return yaml.safe_load(text)
    except Exception as err:  # json.JSONDecodeError, yaml.YAMLError, UnicodeDecodeError
        raise NotesFileError(f"notes file {str(path)!r} could not be parsed: {err}") from None


def parse_notes(data: Any, source: str = "notes", base_dir: Path | None = None) -> list[Note]:
    """Turn a parsed notes document into notes (see the module docstring for the format)."""

    def fail(message: str) -> NotesFileError:
        return NotesFileError(f"{source}: {message}")

    anchor_dir = None
    if isinstance(data, Mapping):
        unknown = sorted(set(data) - {"notes", "anchor_dir"})
        if unknown:
            raise fail(f"unknown top-level key(s) {', '.join(map(repr, unknown))}; expected 'notes' and optionally 'anchor_dir'")
        if "notes" not in data:
            raise fail("missing the top-level key 'notes' (a list of notes)")
        anchor_dir = data.get("anchor_dir")
        entries = data["notes"]
    else:
        entries = data
    if not isinstance(entries, list):
        raise fail(f"the notes must be a list, got {type(entries).__name__}")

    index: SymbolIndex | None = None
    if anchor_dir is not None:
        if not isinstance(anchor_dir, str) or not anchor_dir:
            raise fail(f"'anchor_dir' must be a directory path, got {anchor_dir!r}")
        folder = (base_dir or Path(".")) / anchor_dir
        try:
            index = SymbolIndex.from_snapshot(read_snapshot(folder))
        except NotesError as err:
            raise fail(f"'anchor_dir': {err}") from None

    notes: list[Note] = []
    seen: set[str] = set()
    for position, entry in enumerate(entries, start=1):
        where = f"note {position}"
        if not isinstance(entry, Mapping):
            raise fail(f"{where} must be a mapping, got {type(entry).__name__}")
        if isinstance(entry.get("id"), str) and entry["id"]:
            where = f"note {position} ({entry['id']!r})"
        unknown = sorted(set(entry) - _NOTE_KEYS)
        if unknown:
            raise fail(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; expected {', '.join(sorted(_NOTE_KEYS))}")
        for key in _REQUIRED:
            if key not in entry:
                raise fail(f"{where}: missing required key {key!r}")
        for key in ("id", "text", "path", "qualname"):
            if not isinstance(entry[key], str) or (key != "text" and not entry[key]):
                raise fail(f"{where}: {key!r} must be a non-empty string, got {entry[key]!r}")
        if entry["id"] in seen:
            raise fail(f"{where}: duplicate id {entry['id']!r}")
        seen.add(entry["id"])
        tier_text = entry["tier"]
        try:
            tier = Tier(str(tier_text).lower())
        except ValueError:
            raise fail(f"{where}: 'tier' must be high, medium or low, got {tier_text!r}") from None
        if not isinstance(entry["approved"], bool):
            raise fail(f"{where}: 'approved' must be true or false, got {entry['approved']!r}")
        has = [k for k in ("raw_hash", "norm_hash") if k in entry]
        if has:
            if len(has) != 2:
                raise fail(f"{where}: give both 'raw_hash' and 'norm_hash', or neither (to anchor against 'anchor_dir')")
            for key in ("raw_hash", "norm_hash"):
                if not isinstance(entry[key], str) or not _HEX.match(entry[key]):
                    raise fail(f"{where}: {key!r} must be 64 lowercase hex digits, got {entry[key]!r}")
            note_anchor = Anchor(entry["path"], entry["qualname"], entry["raw_hash"], entry["norm_hash"])
        elif index is None:
            raise fail(f"{where}: no 'raw_hash'/'norm_hash', and the file has no 'anchor_dir' to anchor against")
        else:
            try:
                note_anchor = anchor(index, entry["path"], entry["qualname"])
            except NotesError as err:
                raise fail(f"{where}: {err}") from None
        notes.append(Note(id=entry["id"], text=entry["text"], anchor=note_anchor, tier=tier, approved=entry["approved"]))
    return notes


def read_notes(path: str | Path) -> list[Note]:
    """Read a notes file (YAML or JSON); raises :class:`NotesFileError` naming what is wrong."""
    path = Path(path)
    return parse_notes(_load(path), source=str(path), base_dir=path.parent)


def note_entry(note: Note) -> dict[str, Any]:
    """A note as a notes-file entry (the inverse of :func:`parse_notes` for one note)."""
    return {
        "id": note.id,
        "text": note.text,
        "path": note.anchor.path,
        "qualname": note.anchor.qualname,
        "tier": note.tier.value,
        "approved": note.approved,
        "raw_hash": note.anchor.raw_hash,
        "norm_hash": note.anchor.norm_hash,
    }
