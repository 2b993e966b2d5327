"""The values every language module of the notes gate shares: a symbol row and how it is hashed.

:mod:`cvlib.notes.anchors` reads files and builds rows; :mod:`cvlib.notes.python`
and :mod:`cvlib.notes.rust` parse one language each. Both sides need the row and
the hash, so they live here, below both.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

__all__ = ["DEP_LABEL_HEX_DIGITS", "HASH_HEX_DIGITS", "KINDS", "MIN_IDENTIFIABLE_NODES", "Symbol", "sha256"]

#: Normalized trees with fewer nodes than this never yield a RENAMED hint.
#: Chosen on the committed release histories (chapter *Notes on real release
#: histories* recomputes it): functions and methods below 9 nodes -- ``return
#: self``, ``self.close()``, one-line property getters -- share their
#: normalized hash with another symbol of the same release several times as
#: often as larger ones. ``def f(self): self.close()`` has 7 nodes;
#: ``def f(self, key): return self.get(key)`` has exactly 9.
MIN_IDENTIFIABLE_NODES: int = 9

#: Hex digits kept of the raw, normalized and dependency hashes in anchors (all 64).
HASH_HEX_DIGITS: int = 64

#: Hex digits kept per dependency in an anchor, enough to name which dependency
#: changed; the gate itself decides on the full 64-digit dependency hash.
DEP_LABEL_HEX_DIGITS: int = 16

#: What a symbol can be, across languages.
KINDS: tuple[str, ...] = ("class", "function", "method", "nested", "constant", "attribute", "type", "macro")


@dataclass(frozen=True, slots=True)
class Symbol:
    """One anchorable symbol found in a file.

    Attributes
    ----------
    path, qualname
        Where it is (``qualname`` unique within ``path``).
    kind
        ``"function"``, ``"method"``, ``"class"``, ``"nested"``, ``"constant"``,
        ``"attribute"`` (Python), or for Rust also ``"type"`` and ``"macro"``.
    raw_hash, norm_hash
        SHA-256 hex digests (see the module docstring).
    lines
        Source lines from the first decorator to the last line.
    nodes
        Size of the normalized tree (AST nodes, contexts not counted).
    dep_hash, deps
        The dependency fingerprint when it is already known (release tables);
        empty when it is computed on demand from the source.
    """

    path: str
    qualname: str
    kind: str
    raw_hash: str
    norm_hash: str
    lines: int
    nodes: int
    dep_hash: str = ""
    deps: tuple[tuple[str, str], ...] = ()

    @property
    def identifiable(self) -> bool:
        """Large enough that an identical body elsewhere is evidence of a move."""
        return self.nodes >= MIN_IDENTIFIABLE_NODES


def sha256(text: str) -> str:
    """Hex SHA-256 of a text (lone surrogates from undecodable bytes kept)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_HEX_DIGITS]
