"""Notes files: the notes a team keeps, in YAML or JSON, read into :class:`~cvlib.notes.Note` values.

Format (``.yaml``/``.yml`` or ``.json``; the same structure in both)::

    notes:
      - id: steps-one-based                   # unique, non-empty
        text: The step count is 1-based on purpose.
        path: pkg/runner.py                   # POSIX path relative to the repository root
        qualname: Runner.step                 # func, Class.method, outer.inner, CONSTANT, Type::method
        tier: high                            # high | medium | low
        approved: true                        # a human approved it against this fingerprint
        # the fingerprint, written by `cvlib notes anchor NOTES_FILE REPO_DIR`:
        raw_hash: 3f0c...                     # 64 hex digits
        norm_hash: 9a1b...                    # 64 hex digits
        dep_hash: 77d2...                     # 64 hex digits
        deps: {LIMIT: 2623bc8dc4bfe6da, helper: 89a994b9242bd05e}
        twins: []                             # optional: places with the same body when anchored

A bare list of notes is accepted too. Every note must carry its fingerprint:
the gate never anchors a note at read time (that would make every note FRESH
by construction). A note without one is an error that names the command that
writes it, ``cvlib notes anchor NOTES_FILE REPO_DIR``, run once a human has
checked the note against the code. Every error names the file, the note and
the field at fault.
"""

from __future__ import annotations

import copy
import io
import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .anchors import read_snapshot
from .errors import MissingFingerprintError, NotesError, NotesFileError
from .gate import Anchor, Note, SymbolIndex, Tier, anchor

FINGERPRINT_KEYS: tuple[str, ...] = ("raw_hash", "norm_hash", "dep_hash", "deps")
_NOTE_KEYS = {"id", "text", "path", "qualname", "tier", "approved", "twins", *FINGERPRINT_KEYS}
_REQUIRED = ("id", "text", "path", "qualname", "tier", "approved")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_HEX_SHORT = re.compile(r"^[0-9a-f]{8,64}$")
ANCHOR_COMMAND = "cvlib notes anchor"


def _load(path: Path) -> Any:
    if not path.is_file():
        raise NotesFileError(f"notes file {str(path)!r} does not exist or is not a regular file")
    suffix = path.suffix.lower()
    if suffix not in {".json", ".yaml", ".yml"}:
        raise NotesFileError(f"notes file {str(path)!r} must end in .yaml, .yml or .json")
    try:
        if path.stat().st_size > 16 * 1024 * 1024:
            raise NotesFileError(f"notes file {str(path)!r} is larger than 16 MiB")
        text = path.read_bytes().decode("utf-8")
        if suffix == ".json":
            return json.loads(text)
        import yaml

        return yaml.safe_load(text)
    except NotesFileError:
        raise
    except UnicodeDecodeError as err:
        raise NotesFileError(f"notes file {str(path)!r} is not UTF-8 text (byte {err.start} is not)") from None
    except Exception as err:  # json.JSONDecodeError, yaml.YAMLError, OSError
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise NotesFileError(f"notes file {str(path)!r} could not be read or parsed: {first}") from None


def _entries(data: Any, source: str) -> list[tuple[Mapping[str, Any], str]]:
    """Validated note entries (everything but the fingerprint), each with how errors name it."""

    def fail(message: str) -> NotesFileError:
        return NotesFileError(f"{source}: {message}")

    if isinstance(data, Mapping):
        if "anchor_dir" in data:
            raise fail(f"'anchor_dir' is not read any more: the gate never anchors a note at read time; "
                       f"write the fingerprints once with `{ANCHOR_COMMAND} {source} REPO_DIR` and remove 'anchor_dir'")
        unknown = sorted(map(str, set(data) - {"notes"}))
        if unknown:
            raise fail(f"unknown top-level key(s) {', '.join(map(repr, unknown))}; expected 'notes'")
        if "notes" not in data:
            raise fail("missing the top-level key 'notes' (a list of notes)")
        entries = data["notes"]
    else:
        entries = data
    if not isinstance(entries, list):
        raise fail(f"the notes must be a list, got {type(entries).__name__}")
    out = []
    seen: set[str] = set()
    for position, entry in enumerate(entries, start=1):
        where = f"note {position}"
        if not isinstance(entry, Mapping):
            raise fail(f"{where} must be a mapping, got {type(entry).__name__}")
        if isinstance(entry.get("id"), str) and entry["id"]:
            where = f"note {position} ({entry['id']!r})"
        unknown = sorted(map(str, set(entry) - _NOTE_KEYS))
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
        try:
            Tier(str(entry["tier"]).lower())
        except ValueError:
            raise fail(f"{where}: 'tier' must be high, medium or low, got {entry['tier']!r}") from None
        if not isinstance(entry["approved"], bool):
            raise fail(f"{where}: 'approved' must be true or false, got {entry['approved']!r}")
        out.append((entry, where))
    return out


def _stored_anchor(entry: Mapping[str, Any], where: str, source: str) -> Anchor | None:
    """The fingerprint stored with a note, None when it has none; an error when it is half there or malformed."""

    def fail(message: str) -> NotesFileError:
        return NotesFileError(f"{source}: {where}: {message}")

    present = [k for k in FINGERPRINT_KEYS if k in entry]
    if not present:
        return None
    missing = [k for k in FINGERPRINT_KEYS if k not in entry]
    if missing:
        raise MissingFingerprintError(
            f"{source}: {where}: its fingerprint is incomplete (no {', '.join(map(repr, missing))}); "
            f"write it again with `{ANCHOR_COMMAND} {source} REPO_DIR --note {entry['id']}`")
    for key in ("raw_hash", "norm_hash", "dep_hash"):
        if not isinstance(entry[key], str) or not _HEX64.match(entry[key]):
            raise fail(f"{key!r} must be 64 lowercase hex digits, got {entry[key]!r}")
    deps = entry["deps"]
    if deps is None:
        deps = {}
    if not isinstance(deps, Mapping) or not all(isinstance(k, str) and isinstance(v, str) and _HEX_SHORT.match(v)
                                                for k, v in deps.items()):
        raise fail("'deps' must map dependency names to hex hashes (as `cvlib notes anchor` writes them)")
    twins = entry.get("twins") or []
    if not isinstance(twins, list) or not all(isinstance(t, str) for t in twins):
        raise fail(f"'twins' must be a list of 'path::qualname' strings, got {twins!r}")
    try:
        return Anchor(entry["path"], entry["qualname"], entry["raw_hash"], entry["norm_hash"], entry["dep_hash"],
                      tuple(sorted(deps.items())), tuple(twins))
    except NotesError as err:
        raise fail(str(err)) from None


def _note(entry: Mapping[str, Any], note_anchor: Anchor) -> Note:
    return Note(id=entry["id"], text=entry["text"], anchor=note_anchor, tier=Tier(str(entry["tier"]).lower()),
                approved=entry["approved"])


def parse_notes(data: Any, source: str = "notes") -> list[Note]:
    """Turn a parsed notes document into notes (see the module docstring for the format).

    Raises
    ------
    MissingFingerprintError
        If a note carries no stored fingerprint (the message names the command that writes one).
    NotesFileError
        If the document or a note is malformed.
    """
    notes = []
    for entry, where in _entries(data, source):
        stored = _stored_anchor(entry, where, source)
        if stored is None:
            raise MissingFingerprintError(
                f"{source}: {where} has no stored fingerprint, and the gate never anchors a note at read time; "
                f"check the note against the code, then write its fingerprint with `{ANCHOR_COMMAND} {source} REPO_DIR`")
        notes.append(_note(entry, stored))
    return notes


def read_notes(path: str | Path) -> list[Note]:
    """Read a notes file (YAML or JSON); raises :class:`NotesFileError` naming what is wrong."""
    path = Path(path)
    return parse_notes(_load(path), source=str(path))


def note_entry(note: Note) -> dict[str, Any]:
    """A note as a notes-file entry (the inverse of :func:`parse_notes` for one note)."""
    entry: dict[str, Any] = {
        "id": note.id,
        "text": note.text,
        "path": note.anchor.path,
        "qualname": note.anchor.qualname,
        "tier": note.tier.value,
        "approved": note.approved,
    }
    entry.update(fingerprint_fields(note.anchor))
    return entry


def fingerprint_fields(stored: Anchor) -> dict[str, Any]:
    """The fingerprint keys of a notes-file entry for an anchor."""
    fields: dict[str, Any] = {
        "raw_hash": stored.raw_hash,
        "norm_hash": stored.norm_hash,
        "dep_hash": stored.dep_hash,
        "deps": dict(stored.deps),
    }
    if stored.twins:
        fields["twins"] = list(stored.twins)
    return fields


def _round_trip(path: Path) -> tuple[Any, Any]:
    """A YAML notes file loaded so that writing it back keeps its comments, blank lines, order, quotes and indentation.

    ``ruamel.yaml``'s round-trip loader keeps what PyYAML drops (a rewrite
    used to delete every comment); the file's own indentation is guessed and
    reused. The file has already been read and checked by :func:`_load`.

    Returns
    -------
    tuple
        ``(data, writer)``: the document and the ``YAML`` object that writes it back.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    _, indent, offset = load_yaml_guess_indent(path.read_text(encoding="utf-8"))
    writer = YAML(typ="rt")
    writer.preserve_quotes = True
    writer.width = 120
    sequence, offset = indent or 2, offset or 0  # a list item's content column, and its dash's
    writer.indent(mapping=max(2, sequence - offset), sequence=sequence, offset=offset)
    return writer.load(path.read_text(encoding="utf-8")), writer


def _dump(path: Path, data: Any, writer: Any = None) -> bytes:
    if path.suffix.lower() == ".json":
        return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if writer is not None:
        out = io.StringIO()
        writer.dump(data, out)
        return out.getvalue().encode("utf-8")
    import yaml

    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120).encode("utf-8")


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _last_line(mapping: Any) -> tuple[Any, Any]:
    """The mapping and key whose line ends a block mapping (descending into a nested block such as ``deps``)."""
    holder, key = mapping, list(mapping)[-1]
    while isinstance(holder[key], Mapping) and holder[key] and hasattr(holder[key], "ca"):
        holder, key = holder[key], list(holder[key])[-1]
    return holder, key


def _refingerprint(entry: Any, fields: Mapping[str, Any]) -> None:
    """Replace an entry's fingerprint, keeping its layout when it was loaded round-trip.

    What follows an entry in the file (blank lines, the comment above the next
    note) is stored by ``ruamel.yaml`` with the entry's last line; it moves to
    the new last line, so the fingerprint lands above it, not below. An entry
    written on one line (a flow mapping) is written as a block once it holds
    the fingerprint, which does not fit on a line.
    """
    if not hasattr(entry, "ca") or not entry:  # JSON, or a plain mapping: nothing to keep
        for key in (*FINGERPRINT_KEYS, "twins"):
            entry.pop(key, None)
        entry.update(fields)
        return
    from ruamel.yaml.comments import CommentedMap

    holder, key = _last_line(entry)
    slot = holder.ca.items.get(key)
    tail = None
    if slot and len(slot) > 2 and slot[2] is not None and "\n" in slot[2].value:
        first, _, rest = slot[2].value.partition("\n")
        if rest:
            tail = copy.copy(slot[2])
            tail.value = "\n" + rest  # the new last line's own end, then what followed
            slot[2].value = first + "\n"
    for old in (*FINGERPRINT_KEYS, "twins"):
        entry.pop(old, None)
    entry.update({k: CommentedMap(v) if isinstance(v, dict) else v for k, v in fields.items()})
    if entry.fa.flow_style():
        entry.fa.set_block_style()
    if tail is not None:
        holder, key = _last_line(entry)
        holder.ca.items[key] = [None, None, tail, None]


def anchor_notes_file(path: str | Path, repo_dir: str | Path, ids: Sequence[str] = (), everything: bool = False) -> list[tuple[str, str]]:
    """Write fingerprints into a notes file, taken from the code in ``repo_dir``: what ``cvlib notes anchor`` does.

    Parameters
    ----------
    path
        The notes file (YAML or JSON); rewritten atomically, a YAML file with
        its comments, blank lines, key order and quoting kept (``ruamel.yaml``).
    repo_dir
        The working tree whose code the notes were checked against.
    ids
        Re-anchor these notes even if they have a fingerprint (after a human re-checked them).
    everything
        Re-anchor every note.

    Returns
    -------
    list of tuple
        ``(note id, what happened)`` per note, in file order; what happened is
        ``"anchored"`` (it had no fingerprint), ``"re-anchored"`` or ``"kept"``.

    Raises
    ------
    NotesFileError
        If the file is malformed, an id is unknown, or a note's symbol is not in ``repo_dir``
        (nothing is written then).
    """
    path = Path(path)
    data, writer = _load(path), None
    _entries(data, str(path))  # every error found on the plain reading, before anything else
    if path.suffix.lower() != ".json":
        data, writer = _round_trip(path)
    entries = _entries(data, str(path))
    known = {e["id"] for e, _ in entries}
    unknown = sorted(set(ids) - known)
    if unknown:
        raise NotesFileError(f"{path}: no note with id {', '.join(map(repr, unknown))}")
    index = SymbolIndex.from_snapshot(read_snapshot(repo_dir))
    report = []
    for entry, where in entries:
        stored = None
        try:
            stored = _stored_anchor(entry, where, str(path))
        except MissingFingerprintError:
            stored = None
        if stored is not None and not everything and entry["id"] not in ids:
            report.append((entry["id"], "kept"))
            continue
        try:
            fresh = anchor(index, entry["path"], entry["qualname"])
        except NotesError as err:
            raise NotesFileError(f"{path}: {where}: {err}") from None
        _refingerprint(entry, fingerprint_fields(fresh))
        report.append((entry["id"], "anchored" if stored is None else "re-anchored"))
    _atomic_write(path, _dump(path, data, writer))
    return report
