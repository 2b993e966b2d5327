"""The frozen reader's identity: a SHA-256 over the files that decide how a second-edition answer is read.

``preregistration_part4.md`` names the reader by this digest, computed at the
commit that adds it; a test recomputes it from the working tree and compares, so
an edit to any of these files after the freeze fails the suite instead of
drifting silently. The files: the reader, the first reader whose helpers it uses,
the parsing helpers, the task model (how an edit is applied), the prompts (the
decline form and the context the echo check reads), the strict classifier
published beside it, and the stale harms.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["READER_FILES", "reader_digest", "reader_file_digests"]

#: The files of the frozen reader, relative to the repository root, in the order they are hashed.
READER_FILES: tuple[str, ...] = (
    "cvlib/experiments/notes_study/second_reading.py",
    "cvlib/experiments/notes_study/reading.py",
    "cvlib/experiments/notes_study/classify.py",
    "cvlib/experiments/notes_study/tasks.py",
    "cvlib/experiments/notes_study/second_prompts.py",
    "cvlib/experiments/notes_study/strict.py",
    "cvlib/experiments/notes_study/manipulation.py",
    "data/model_trials/notes_stale_effects_2.yaml",
)


def reader_file_digests(root: str | os.PathLike[str]) -> dict[str, str]:
    """Each reader file's SHA-256 (of its bytes), by its path under ``root``.

    Parameters
    ----------
    root : str or os.PathLike
        The repository root.

    Returns
    -------
    dict of str to str
    """
    base = Path(root)
    return {name: hashlib.sha256((base / name).read_bytes()).hexdigest() for name in READER_FILES}


def reader_digest(root: str | os.PathLike[str]) -> str:
    """The reader's SHA-256: of the lines ``<file digest>  <path>`` of :func:`reader_file_digests`, in order.

    Parameters
    ----------
    root : str or os.PathLike
        The repository root.

    Returns
    -------
    str
    """
    lines = "".join(f"{digest}  {name}\n" for name, digest in reader_file_digests(root).items())
    return hashlib.sha256(lines.encode()).hexdigest()


if __name__ == "__main__":  # python -m cvlib.experiments.notes_study.reader_identity [ROOT]
    import sys

    here = sys.argv[1] if len(sys.argv) > 1 else "."
    for path, digest in reader_file_digests(here).items():
        print(f"{digest}  {path}")
    print(f"reader {reader_digest(here)}")
