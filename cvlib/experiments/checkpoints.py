"""Checkpoint folders of a sweep: every chunk verified before it is used, never trusted.

A checkpoint folder holds the finished chunks of one sweep
(``chunk-NNNNNN.parquet``) and a manifest, ``sweep.json``, that says which
sweep they belong to and what each chunk must be::

    {"format": 2,
     "identity": {"spec": {...}, "seed": 3, "tasks": 3000, "chunk_size": 50, "cvlib_version": "0.1.0"},
     "chunks": {"0": {"start": 0, "stop": 50, "rows": 50, "bytes": 18432, "sha256": "9f2c..."}, ...}}

A file on disk can be damaged in more ways than a crash: edited by hand,
copied from another position or another sweep, truncated, replaced by a
directory, or left without its manifest. So when a sweep resumes, each chunk
is used only if it is a regular file whose size and SHA-256 match its
manifest entry and whose rows are the tasks of its range; any other chunk is
recomputed, with a :class:`CheckpointWarning` that says which and why. A chunk
file without a manifest entry is never read. Stray temporary files of an
interrupted write are removed. An unreadable or invalid manifest starts the
folder afresh (every chunk recomputed, with a warning); a valid manifest of
another sweep is refused with a :class:`~cvlib.core.errors.SweepError`, so
two sweeps never mix.

The manifest entry of a chunk is written before the chunk itself, both
atomically (a temporary file in the same folder, then :func:`os.replace`): a
crash between the two leaves an entry whose file is missing or torn, which
verification catches, and never a chunk file that looks finished without an
entry. While a sweep runs, it holds a lock on the folder (``.lock``), so a
second sweep started on the same folder is refused instead of mixing its
chunks in.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
import stat
import sys
import tempfile
import warnings
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cvlib.core.errors import SweepError
from cvlib.core.validation import shown

__all__ = [
    "MANIFEST_FORMAT",
    "Checkpoint",
    "CheckpointWarning",
    "ChunkRecord",
    "atomic_write",
    "cvlib_version",
]

#: Version of the manifest's layout; a manifest of another layout is not trusted.
MANIFEST_FORMAT = 2
_MANIFEST = "sweep.json"
_LOCK = ".lock"
_CHUNK_NAME = re.compile(r"chunk-(\d{6,})\.parquet")
_STRAY_TMP = re.compile(r"\.(chunk-\d{6,}\.parquet|sweep\.json)\..*\.tmp")
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: At most this many chunks are named in one warning; the rest are counted.
_NAMED_IN_WARNING = 10


class CheckpointWarning(UserWarning):
    """A checkpoint folder held something that could not be trusted; it is recomputed, never used."""


def cvlib_version() -> str:
    """The installed cvlib's version, part of a sweep's identity: another version may compute other rows.

    Read from the package metadata (:func:`importlib.metadata.version`) so
    this module need not import the whole of ``cvlib`` (the experiments layer
    would otherwise depend on the package that sits above it). A source tree
    run from ``PYTHONPATH`` with no installed metadata falls back to the
    version its already-loaded package declares.

    Returns
    -------
    str
    """
    try:
        return importlib.metadata.version("cvbook")
    except importlib.metadata.PackageNotFoundError:
        # The parent package is always loaded before this submodule, so this is a lookup, not an import.
        return str(sys.modules["cvlib"].__version__)


def atomic_write(path: Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` through a temporary file in the same folder, then rename it over ``path``.

    A reader sees the old file or the new one, never half of one; a crash
    leaves at most a ``.NAME.*.tmp`` file, which :class:`Checkpoint` removes.

    Parameters
    ----------
    path : pathlib.Path
        The file to write.
    write : collections.abc.Callable
        Called with the temporary path; writes the content there.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """What the manifest says one chunk file must be: its task range, row count, size and SHA-256."""

    start: int
    stop: int
    rows: int
    bytes: int
    sha256: str

    @classmethod
    def parse(cls, raw: object) -> ChunkRecord | None:
        """A record read from a manifest, or None if the entry is not one (it is then not trusted).

        Parameters
        ----------
        raw : object
            The manifest's entry for one chunk.

        Returns
        -------
        ChunkRecord or None
        """
        if not isinstance(raw, Mapping) or set(raw) != {"start", "stop", "rows", "bytes", "sha256"}:
            return None
        numbers = [raw[key] for key in ("start", "stop", "rows", "bytes")]
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in numbers):
            return None
        if not isinstance(raw["sha256"], str) or not _SHA256.fullmatch(raw["sha256"]):
            return None
        start, stop, rows, size = numbers
        return cls(start, stop, rows, size, raw["sha256"])


def _examples(problems: list[str]) -> str:
    shown = "; ".join(problems[:_NAMED_IN_WARNING])
    more = len(problems) - _NAMED_IN_WARNING
    return shown + (f"; and {more} more" if more > 0 else "")


class Checkpoint:
    """A checkpoint folder opened for one sweep: verified chunks in, new chunks out.

    Parameters
    ----------
    folder : str or os.PathLike
        The folder (created if missing).
    identity : dict
        What identifies the sweep (JSON-able): its description, seed, number
        of tasks, chunk size and the cvlib version. A folder whose manifest
        names another identity is refused.
    bounds : list
        The task range of each chunk, chunk 0 first.
    """

    def __init__(self, folder: str | os.PathLike[str], identity: Mapping[str, Any], bounds: list[tuple[int, int]]) -> None:
        self.folder = Path(folder)
        self.identity = json.loads(json.dumps(identity, sort_keys=True))  # the form it has once read back
        self.bounds = list(bounds)
        self.records: dict[int, ChunkRecord] = {}
        self._lock_fd: int | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise SweepError(f"checkpoint folder {str(self.folder)!r} cannot be created: {err.strerror}") from None
        if not self.folder.is_dir():
            raise SweepError(f"checkpoint folder {str(self.folder)!r} is not a folder")
        self._lock()
        try:
            self._remove_stray_temporaries()
            self._open_manifest()
        except BaseException:
            self.close()
            raise

    # -- the folder ----------------------------------------------------------------------------

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - no advisory locks on this platform
            return
        try:
            fd = os.open(self.folder / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise SweepError(f"checkpoint folder {str(self.folder)!r} cannot be locked: {err.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise SweepError(
                f"checkpoint folder {str(self.folder)!r} is in use by another running sweep; "
                f"wait for it to finish or use another folder"
            ) from None
        self._lock_fd = fd

    def close(self) -> None:
        """Release the folder's lock (the sweep is over, or failed)."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the flock
            self._lock_fd = None

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _remove_stray_temporaries(self) -> None:
        """Temporary files of a write that never finished: nobody else writes here while we hold the lock."""
        for entry in os.scandir(self.folder):
            if _STRAY_TMP.fullmatch(entry.name) and not entry.is_dir(follow_symlinks=False):
                try:
                    os.unlink(entry.path)
                except OSError as err:
                    raise SweepError(f"stray temporary file {entry.path!r} cannot be removed: {err.strerror}") from None

    def path(self, chunk: int) -> Path:
        """The file of chunk number ``chunk``.

        Parameters
        ----------
        chunk : int

        Returns
        -------
        pathlib.Path
        """
        return self.folder / f"chunk-{chunk:06d}.parquet"

    # -- the manifest --------------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        """The folder's ``sweep.json``."""
        return self.folder / _MANIFEST

    def _open_manifest(self) -> None:
        path = self.manifest_path
        where = f"checkpoint folder {str(self.folder)!r}"
        try:
            info = path.lstat()
        except FileNotFoundError:
            self._start_afresh(None)
            return
        except OSError as err:
            raise SweepError(f"{where}: its manifest cannot be read: {err.strerror}") from None
        if stat.S_ISDIR(info.st_mode):
            raise SweepError(f"{where}: {_MANIFEST} is a folder, not a manifest; remove it or use another folder")
        limit = 4096 + 512 * len(self.bounds)  # an entry takes about 150 bytes: anything larger is not ours
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            self._start_afresh("it is not a regular file of a plausible size")
            return
        try:
            text = path.read_bytes().decode("utf-8")
            manifest = json.loads(text)
        except OSError as err:
            raise SweepError(f"{where}: its manifest cannot be read: {err.strerror}") from None
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
            self._start_afresh(f"it is not valid JSON ({type(err).__name__})")
            return
        if not isinstance(manifest, dict):
            self._start_afresh("it is not a JSON object")
            return
        if manifest.get("format") != MANIFEST_FORMAT:
            old = {key: manifest.get(key) for key in ("spec", "tasks", "chunk_size")}
            mine = {key: self.identity.get(key) for key in ("spec", "tasks", "chunk_size")}
            if "spec" in manifest and old != mine:
                self._refuse(manifest)
            self._start_afresh("it is from an older cvlib and records no checksums")
            return
        if manifest.get("identity") != self.identity:
            if not isinstance(manifest.get("identity"), dict):
                self._start_afresh("it names no sweep")
                return
            self._refuse(manifest.get("identity"))
        chunks = manifest.get("chunks")
        if not isinstance(chunks, dict):
            self._start_afresh("its list of chunks is missing")
            return
        bad = []
        for key, raw in chunks.items():
            record = ChunkRecord.parse(raw)
            chunk = int(key) if isinstance(key, str) and key.isascii() and key.isdigit() else -1
            if record is None or not 0 <= chunk < len(self.bounds) or (record.start, record.stop) != self.bounds[chunk]:
                bad.append(shown(key))
                continue
            self.records[chunk] = record
        if bad:
            self._warn(f"{where}: manifest entries for chunks {_examples(bad)} are not valid; those chunks are recomputed")
            self._write_manifest()

    def _refuse(self, found: object) -> None:
        summary = json.dumps(found, sort_keys=True)[:200]
        raise SweepError(
            f"checkpoint folder {str(self.folder)!r} holds another sweep ({summary}); use a new folder or delete it"
        )

    def _start_afresh(self, why: str | None) -> None:
        if why is not None:
            self._warn(
                f"checkpoint folder {str(self.folder)!r}: its manifest cannot be trusted ({why}); "
                f"every chunk is recomputed"
            )
        self.records = {}
        self._write_manifest()

    def _write_manifest(self) -> None:
        manifest = {
            "format": MANIFEST_FORMAT,
            "identity": self.identity,
            "chunks": {str(chunk): asdict(self.records[chunk]) for chunk in sorted(self.records)},
        }
        text = json.dumps(manifest, sort_keys=True, indent=1)
        try:
            atomic_write(self.manifest_path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        except OSError as err:
            raise SweepError(f"checkpoint folder {str(self.folder)!r}: its manifest cannot be written: {err.strerror}") from None

    @staticmethod
    def _warn(message: str) -> None:
        warnings.warn(message, CheckpointWarning, stacklevel=4)

    # -- chunks --------------------------------------------------------------------------------

    def verified(self, load: Callable[[bytes], Any], task_ids: Callable[[Any], list[int] | None]) -> dict[int, Any]:
        """Every chunk that passes verification, loaded; the others are left to be recomputed.

        A chunk passes if its manifest entry is valid, its file is a regular
        file of the recorded size and SHA-256, ``load`` reads it, and it holds
        the recorded number of rows, which are the tasks of its range when
        ``task_ids`` can tell.

        Parameters
        ----------
        load : collections.abc.Callable
            Turns a chunk's bytes into a table; any exception it raises means the chunk is damaged.
        task_ids : collections.abc.Callable
            The task numbers of a loaded table's rows, or None if it has none.

        Returns
        -------
        dict
            Chunk number -> loaded table, for the chunks that can be used.
        """
        good: dict[int, Any] = {}
        damaged: list[str] = []
        listed = set(self.records)
        for chunk in sorted(listed):
            problem, table = self._check(chunk, self.records[chunk], load, task_ids)
            if problem is None:
                good[chunk] = table
            else:
                damaged.append(f"{chunk} ({problem})")
                del self.records[chunk]
        unlisted = []
        for entry in os.scandir(self.folder):
            match = _CHUNK_NAME.fullmatch(entry.name)
            if match and int(match.group(1)) not in listed:
                unlisted.append(entry.name)
        if damaged:
            self._warn(
                f"checkpoint folder {str(self.folder)!r}: chunks {_examples(damaged)} failed verification; "
                f"they are recomputed"
            )
            self._write_manifest()
        if unlisted:
            self._warn(
                f"checkpoint folder {str(self.folder)!r}: {len(unlisted)} chunk file(s) without a manifest entry "
                f"({_examples(sorted(unlisted))}) are not used; their chunks are recomputed"
            )
        return good

    def _check(
        self, chunk: int, record: ChunkRecord, load: Callable[[bytes], Any], task_ids: Callable[[Any], list[int] | None]
    ) -> tuple[str | None, Any]:
        path = self.path(chunk)
        try:
            info = path.lstat()
        except FileNotFoundError:
            return "missing", None
        except OSError as err:
            return f"cannot be read: {err.strerror}", None
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file", None
        if info.st_size != record.bytes:
            return f"{info.st_size:,} bytes, expected {record.bytes:,}", None
        try:
            data = path.read_bytes()
        except OSError as err:
            return f"cannot be read: {err.strerror}", None
        if hashlib.sha256(data).hexdigest() != record.sha256:
            return "its SHA-256 does not match", None
        try:
            table = load(data)
        except Exception as err:  # pyarrow's ArrowInvalid and friends: a damaged file, whatever the library says
            return f"unreadable: {type(err).__name__}", None
        rows = len(table)
        expected = record.stop - record.start
        if rows != record.rows or rows != expected:
            return f"{rows} rows, expected {expected}", None
        ids = task_ids(table)
        if ids is not None and ids != list(range(record.start, record.stop)):
            return f"its rows are not tasks {record.start}-{record.stop - 1}", None
        return None, table

    def save(self, chunk: int, data: bytes, rows: int) -> None:
        """Record chunk ``chunk`` in the manifest, then write its bytes (both atomically).

        Parameters
        ----------
        chunk : int
            The chunk's number.
        data : bytes
            The chunk's Parquet bytes.
        rows : int
            Rows in the chunk.
        """
        start, stop = self.bounds[chunk]
        self.records[chunk] = ChunkRecord(start, stop, rows, len(data), hashlib.sha256(data).hexdigest())
        self._write_manifest()
        path = self.path(chunk)
        if path.is_dir() and not path.is_symlink():
            try:
                path.rmdir()  # an empty folder in the chunk's place; a non-empty one is left alone
            except OSError:
                del self.records[chunk]
                self._write_manifest()
                self._warn(
                    f"checkpoint folder {str(self.folder)!r}: {path.name} is a non-empty folder; "
                    f"chunk {chunk} is kept in memory only and will be recomputed next time"
                )
                return
        try:
            atomic_write(path, lambda tmp: tmp.write_bytes(data))
        except OSError as err:
            raise SweepError(f"checkpoint folder {str(self.folder)!r}: chunk {chunk} cannot be written: {err.strerror}") from None

