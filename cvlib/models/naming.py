"""Where a new recording goes, the same way for every study and chapter: ``<folder>/<experiment>.<model>.jsonl.gz``.

The model part is the spec's readable name: a bundled model's name, a GGUF
file's stem, or for a server ``server-`` and the model's name, with anything
but letters, digits, dots, dashes and underscores replaced, so a URL cannot
reach outside the folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from cvlib.core.errors import ParameterError

__all__ = ["new_recording_path", "recording_stem"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def recording_stem(spec: str | os.PathLike[str]) -> str:
    """The readable name of a model spec, safe as part of a file name.

    Parameters
    ----------
    spec : str or os.PathLike
        A bundled name, a GGUF path, a server URL (``http://host:port/v1#name``) or ``replay:PATH``.

    Returns
    -------
    str
    """
    text = os.fspath(spec)
    if text.startswith(("http://", "https://")):
        name = text.split("#", 1)[1] if "#" in text else text.split("://", 1)[1]
        stem = "server-" + name
    elif text.startswith("replay:"):
        stem = Path(text[len("replay:"):]).name.split(".jsonl")[0]
    else:
        stem = Path(text).name.removesuffix(".gguf")
    stem = _UNSAFE.sub("_", stem).strip("._") or "model"
    if not stem:
        raise ParameterError(f"model {text!r} has no name to file a recording under")
    return stem


def new_recording_path(folder: str | os.PathLike[str], experiment: str, spec: str | os.PathLike[str]) -> Path:
    """Where ``experiment``'s recording with the model ``spec`` goes in ``folder`` (created).

    Parameters
    ----------
    folder : str or os.PathLike
        ``data/model_trials`` for the book's recordings, ``_runs`` for a reader's own.
    experiment : str
        The study's experiment name (``agent_loop``, ``notes_trials``, ...).
    spec : str or os.PathLike
        The model's spec.

    Returns
    -------
    pathlib.Path
    """
    path = Path(folder) / f"{experiment}.{recording_stem(spec)}.jsonl.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path
