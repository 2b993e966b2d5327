"""Model files: where the user cache is, and a file's SHA-256 computed once per version of the file.

Hashing a 469 MB model takes a second or two; a recording asks for the hash
in every worker. So the hash is kept beside the file's size and modification
time in the user cache, and computed again only when either changes.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from cvlib.models.errors import ModelError, ModelMissingError

__all__ = ["GGUF_MAGIC", "check_gguf", "file_sha256", "user_cache"]

#: The first four bytes of every GGUF file.
GGUF_MAGIC = b"GGUF"
_CHUNK = 1 << 22


def user_cache() -> Path:
    """Where joined model files and hashes are kept: ``$CVBOOK_MODEL_CACHE``, else ``$XDG_CACHE_HOME/cvbook/models``.

    Returns
    -------
    pathlib.Path
        The folder (not created here).
    """
    explicit = os.environ.get("CVBOOK_MODEL_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cvbook" / "models"


def check_gguf(path: str | os.PathLike[str]) -> Path:
    """``path`` as an existing GGUF file, or a one-line error saying what it is instead.

    Parameters
    ----------
    path : str or os.PathLike
        A model file.

    Returns
    -------
    pathlib.Path
        The resolved path.
    """
    p = Path(path).expanduser()
    if not p.is_file():
        raise ModelMissingError(f"model file {str(p)!r} does not exist; expected a GGUF file")
    with p.open("rb") as fh:
        head = fh.read(4)
    if head != GGUF_MAGIC:
        raise ModelError(f"model file {str(p)!r} is not a GGUF file (it starts with {head!r}, expected {GGUF_MAGIC!r})")
    return p.resolve()


def _hash_cache() -> Path:
    return user_cache() / "sha256.json"


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of the file at ``path``, hex; reused from the cache while its size and modification time hold.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    str
    """
    p = Path(path).resolve()
    stat = p.stat()
    key = f"{p}|{stat.st_size}|{stat.st_mtime_ns}"
    cache_file = _hash_cache()
    try:
        cache = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        cache = {}
    if isinstance(cache, dict) and isinstance(cache.get(key), str):
        return str(cache[key])
    digest = hashlib.sha256()
    with p.open("rb") as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(block)
    value = digest.hexdigest()
    if not isinstance(cache, dict):
        cache = {}
    cache[key] = value
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(cache, sort_keys=True, indent=0))
        os.replace(tmp, cache_file)
    except OSError:
        pass  # a read-only cache only costs the hash again next time
    return value

