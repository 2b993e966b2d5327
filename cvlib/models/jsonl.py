"""Recording files on disk: JSON Lines, plain or gzip-compressed, appended whole and read strictly.

A recording is ``*.jsonl`` or ``*.jsonl.gz``. A study of this round makes tens
of thousands of calls whose prompts repeat each other, so its recordings are
gzip: each append is one gzip member (a reader concatenates them, as ``gzip``
and ``zcat`` do), and :func:`compact` rewrites a finished file as one member
(one of today's 4.2 MB recordings becomes 63 kB). A reader's own script reads
either form in three lines::

    import gzip, json
    opener = gzip.open if path.endswith(".gz") else open
    calls = [json.loads(line) for line in opener(path, "rt", encoding="utf-8")]

A recorder killed mid-write leaves its last line (or gzip member) cut short.
:func:`read_lines` reports that with the line's number (a
:class:`~cvlib.models.errors.RecordingDamagedError`) unless the caller is a
recorder about to resume (``allow_cut_tail``), and :func:`repair_tail` drops
the cut part before anything is appended, so a resumed recording never holds a
duplicated or half-written line.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

from cvlib.models.errors import RecordingDamagedError, RecordingError

__all__ = ["append_lines", "compact", "is_gzip", "read_lines", "repair_tail"]


def is_gzip(path: str | os.PathLike[str]) -> bool:
    """Whether the recording at ``path`` is gzip-compressed (by its name: ``.gz``).

    Parameters
    ----------
    path : str or os.PathLike
        A recording's path.

    Returns
    -------
    bool
    """
    return os.fspath(path).endswith(".gz")


def _gzip_text(path: Path) -> tuple[bytes, bool]:
    """The decompressed bytes of every whole gzip member, and whether a cut member followed them."""
    raw = path.read_bytes()
    out: list[bytes] = []
    while raw:
        member = zlib.decompressobj(wbits=31)
        try:
            data = member.decompress(raw)
        except zlib.error:
            return b"".join(out), True
        if not member.eof:
            return b"".join(out), True
        out.append(data)
        raw = member.unused_data
    return b"".join(out), False


def _text(path: Path) -> tuple[bytes, bool]:
    """The recording's bytes (whole members of a gzip file) and whether its end was cut short."""
    if is_gzip(path):
        data, cut = _gzip_text(path)
        return data, cut or (bool(data) and not data.endswith(b"\n"))
    data = path.read_bytes()
    return data, bool(data) and not data.endswith(b"\n")


def read_lines(path: str | os.PathLike[str], *, allow_cut_tail: bool = False, resume_hint: str = "") -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every whole, non-blank line; a cut last line is an error unless allowed.

    Parameters
    ----------
    path : str or os.PathLike
        The recording.
    allow_cut_tail : bool
        Leave out a last line cut short by a kill (a recorder about to resume), instead of raising.
    resume_hint : str
        The command that resumes this recording, named in the error.

    Returns
    -------
    iterator of (int, str)
    """
    p = Path(path)
    if not p.is_file():
        raise RecordingError(f"recording {str(p)!r} does not exist")
    data, cut = _text(p)
    lines = data.decode("utf-8", "replace").split("\n")
    whole = lines[:-1]
    if cut and not allow_cut_tail:
        number = len(whole) + 1
        how = f"; resume it with: {resume_hint}" if resume_hint else "; run its recording command again to resume it"
        raise RecordingDamagedError(
            f"{p.name} line {number} is cut short (a recorder was stopped mid-write){how}", number
        )
    for number, line in enumerate(whole, 1):
        if line.strip():
            yield number, line


def repair_tail(path: str | os.PathLike[str]) -> None:
    """Drop what a kill cut short at the end of a recording, so appending starts on a whole line.

    Parameters
    ----------
    path : str or os.PathLike
        The recording (a missing or empty one is left alone).
    """
    p = Path(path)
    if not p.is_file() or p.stat().st_size == 0:
        return
    data, cut = _text(p)
    if not cut:
        return
    keep = data[: data.rfind(b"\n") + 1]
    if is_gzip(p):
        _replace(p, gzip.compress(keep, compresslevel=9, mtime=0))
    else:
        with p.open("rb+") as fh:
            fh.truncate(len(keep))


def _replace(path: Path, payload: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(payload)
        with tmp.open("rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def append_lines(path: str | os.PathLike[str], lines: Sequence[str]) -> None:
    """Append whole JSON lines in one write (one gzip member for ``.gz``), flushed to disk.

    Parameters
    ----------
    path : str or os.PathLike
        The recording.
    lines : sequence of str
        Lines without their newline.
    """
    if not lines:
        return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    repair_tail(p)
    payload = "".join(line + "\n" for line in lines).encode("utf-8")
    if is_gzip(p):
        payload = gzip.compress(payload, compresslevel=9, mtime=0)
    with p.open("ab") as fh:
        fh.write(payload)
        fh.flush()
        os.fsync(fh.fileno())


def compact(path: str | os.PathLike[str]) -> int:
    """Rewrite a gzip recording as one member (smaller), atomically; a plain one is left as it is.

    Parameters
    ----------
    path : str or os.PathLike
        The recording; it must not be cut short (resume it first).

    Returns
    -------
    int
        The file's size in bytes afterwards.
    """
    p = Path(path)
    if is_gzip(p):
        text = "".join(line + "\n" for _, line in read_lines(p)).encode("utf-8")
        _replace(p, gzip.compress(text, compresslevel=9, mtime=0))
    return p.stat().st_size
