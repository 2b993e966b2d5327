"""Find the symbols of Python source and hash them twice: as written, and as parsed.

A note about code is only as good as the code it was written against, so the
gate needs a fingerprint that changes exactly when the code's meaning could
have changed. Two fingerprints per symbol:

* the **raw hash**: SHA-256 of the symbol's source lines as written (from its
  first decorator to its last line). Any edit at all changes it.
* the **normalized hash**: SHA-256 of a canonical serialisation of the
  symbol's syntax tree (the :mod:`ast` module), with comments and formatting
  gone (the parser drops them), every docstring dropped (the symbol's own and
  those of functions and classes nested in it) and the symbol's own name left
  out, so that a rename can be recognised as the same body elsewhere.
  Everything else counts: constants, operators, names, argument names,
  defaults, decorators, annotations, nested definitions.

The serialisation is our own, not :func:`ast.dump`, because ``ast.dump``'s text
differs between Python versions (3.12 added ``type_params``; 3.13 hides empty
fields); ours skips empty and ``None`` fields, so a hash computed on 3.11 stays
the hash on 3.13 for code both can parse.

Which symbols exist (design choices)
------------------------------------
* module-level functions (``kind="function"``), classes (``"class"``) and the
  functions defined in a class body (``"method"``, qualified ``Class.method``;
  nested classes give ``Outer.Inner.method``). Definitions under a module- or
  class-level ``if``/``try``/``with``/``for``/``while`` count as if they were
  written at that level.
* functions nested in a function are **not** symbols of their own: they are
  part of the enclosing function's body, so a note on an inner helper anchors
  on the function that holds it (and goes stale when any of it changes).
* a qualified name defined twice in one file (a property's getter and setter,
  or ``if``/``else`` variants) gets an ordinal suffix from the second
  definition on, in source order: ``Response.content``, ``Response.content#2``.
  Qualified names are therefore unique per file.
* :data:`MIN_IDENTIFIABLE_NODES`: a normalized tree with fewer nodes than this
  (not counting ``Load``/``Store``/``Del`` contexts) is too small to identify —
  ``def f(self): pass`` has 4, ``def f(self): return self._x`` has 6. Such
  bodies recur all over real code, so finding one elsewhere is no evidence that
  *this* one moved there; :mod:`cvlib.notes.gate` never turns them into a
  RENAMED hint. See that constant for how the number was chosen.
"""

from __future__ import annotations

import ast
import hashlib
import os
import tokenize
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from .errors import NotesError

#: Normalized trees with fewer nodes than this never yield a RENAMED hint.
#: Chosen on the committed release histories (chapter *Notes on real release
#: histories* recomputes it): functions and methods below 9 nodes -- ``return
#: self``, ``self.close()``, one-line property getters -- share their
#: normalized hash with another symbol of the same release several times as
#: often as larger ones, so a lone twin of such a body is weak evidence that
#: *this* body moved there. ``def f(self): self.close()`` has 7 nodes;
#: ``def f(self, key): return self.get(key)`` has exactly 9.
MIN_IDENTIFIABLE_NODES: int = 9

#: Hex digits kept of each SHA-256 hash in anchors (all 64, since the gate's promise
#: is only as strong as its hash).
HASH_HEX_DIGITS: int = 64

KINDS: tuple[str, ...] = ("class", "function", "method")

_DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_DOCSTRING_HOLDERS = _DEF_TYPES + (ast.Module,)
_BLOCK_TYPES: tuple[type, ...] = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)
if hasattr(ast, "TryStar"):  # Python >= 3.11
    _BLOCK_TYPES = _BLOCK_TYPES + (ast.TryStar,)


@dataclass(frozen=True, slots=True)
class Symbol:
    """One function, method or class found in a file.

    Attributes
    ----------
    path, qualname
        Where it is (``qualname`` unique within ``path``).
    kind
        ``"function"``, ``"method"`` or ``"class"``.
    raw_hash, norm_hash
        SHA-256 hex digests (see the module docstring).
    lines
        Source lines from the first decorator to the last line.
    nodes
        Size of the normalized tree (AST nodes, contexts not counted).
    """

    path: str
    qualname: str
    kind: str
    raw_hash: str
    norm_hash: str
    lines: int
    nodes: int

    @property
    def identifiable(self) -> bool:
        """Large enough that an identical body elsewhere is evidence of a move."""
        return self.nodes >= MIN_IDENTIFIABLE_NODES


class UnparsableSource(NotesError):
    """A file's text is not Python this interpreter can parse."""


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_HEX_DIGITS]


def parse(source: str, path: str = "<snapshot>") -> ast.Module:
    """Parse ``source`` or raise :class:`UnparsableSource` naming ``path`` and the parser's complaint."""
    try:
        return ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        raise UnparsableSource(f"{path!r} does not parse as Python: {type(err).__name__}: {err}") from None


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _canon(node: object) -> str:
    """Deterministic, Python-version-stable text of an AST (no positions, no empty fields)."""
    if isinstance(node, ast.AST):
        parts = []
        for field in node._fields:
            value = getattr(node, field, None)
            if field == "body" and isinstance(node, _DOCSTRING_HOLDERS) and value and _is_docstring(value[0]):
                value = value[1:]
            if value is None or (isinstance(value, list) and not value):
                continue
            parts.append(f"{field}={_canon(value)}")
        return f"{type(node).__name__}({','.join(parts)})"
    if isinstance(node, list):
        return "[" + ",".join(_canon(item) for item in node) + "]"
    return repr(node)


def _strip_name(node: ast.AST) -> str:
    """Canonical text of a definition with its own name left out."""
    if isinstance(node, _DEF_TYPES):
        name = node.name
        node.name = ""
        try:
            return _canon(node)
        finally:
            node.name = name
    return _canon(node)


def _count_nodes(node: ast.AST) -> int:
    """Nodes of the normalized tree: docstrings and expression contexts not counted."""
    count = 0
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.expr_context):
            continue
        count += 1
        for field in current._fields:
            value = getattr(current, field, None)
            if isinstance(value, list):
                items = value
                if field == "body" and isinstance(current, _DEF_TYPES) and items and _is_docstring(items[0]):
                    items = items[1:]
                stack.extend(item for item in items if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
    return count


def normalized_text(node: ast.AST) -> str:
    """The canonical text the normalized hash is taken of (useful to see *why* two hashes differ)."""
    return _strip_name(node)


def _walk_defs(body: list[ast.stmt], prefix: str, in_class: bool) -> Iterator[tuple[str, str, ast.AST]]:
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            qualname = prefix + stmt.name
            yield qualname, "class", stmt
            yield from _walk_defs(stmt.body, qualname + ".", in_class=True)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + stmt.name, "method" if in_class else "function", stmt
        elif isinstance(stmt, _BLOCK_TYPES):
            for field in ("body", "orelse", "finalbody"):
                yield from _walk_defs(getattr(stmt, field, []) or [], prefix, in_class)
            for handler in getattr(stmt, "handlers", []) or []:
                yield from _walk_defs(handler.body, prefix, in_class)


def symbols(source: str, path: str = "<snapshot>") -> list[Symbol]:
    """Every function, method and class of one file, in source order.

    Raises
    ------
    UnparsableSource
        If ``source`` does not parse.
    """
    tree = parse(source, path)
    lines = source.splitlines(keepends=True)
    seen: dict[str, int] = {}
    found: list[Symbol] = []
    for qualname, kind, node in _walk_defs(tree.body, "", in_class=False):
        seen[qualname] = seen.get(qualname, 0) + 1
        if seen[qualname] > 1:
            qualname = f"{qualname}#{seen[qualname]}"
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        last = node.end_lineno or node.lineno
        raw = "".join(lines[first - 1 : last])
        found.append(
            Symbol(
                path=path,
                qualname=qualname,
                kind=kind,
                raw_hash=_sha256(raw),
                norm_hash=_sha256(_strip_name(node)),
                lines=last - first + 1,
                nodes=_count_nodes(node),
            )
        )
    return found


def read_source(data: bytes) -> str:
    """Decode a Python file's bytes the way Python would (PEP 263 coding line, BOM).

    Undecodable bytes are kept as surrogates, so the text fails to parse later
    (and notes on it become UNPARSABLE) instead of failing the whole snapshot.
    """
    try:
        encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        text = data.decode(encoding, errors="surrogateescape")
    except LookupError:
        text = data.decode("utf-8", errors="surrogateescape")
    return text[1:] if text.startswith("\ufeff") else text


def read_snapshot(root: str | os.PathLike[str]) -> dict[str, str]:
    """Read every ``.py`` file under ``root`` into a snapshot: POSIX relative path -> source text.

    Hidden directories (``.git``, ``.venv``, ...) and ``__pycache__`` are
    skipped; non-Python files are ignored. Keys come out sorted, so the same
    tree gives the same snapshot on every machine.
    """
    root_path = Path(root)
    if not root_path.is_dir():
        raise NotesError(f"repository directory {str(root)!r} does not exist or is not a directory")
    snapshot: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root_path):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for filename in sorted(filenames):
            if filename.endswith(".py"):
                full = Path(dirpath) / filename
                snapshot[full.relative_to(root_path).as_posix()] = read_source(full.read_bytes())
    return dict(sorted(snapshot.items()))


def check_snapshot(snapshot: object) -> Mapping[str, str]:
    """Refuse anything but a mapping of str paths to str sources, naming the first bad entry."""
    if not isinstance(snapshot, Mapping):
        raise NotesError(f"a snapshot must be a mapping of file path -> source text, got {type(snapshot).__name__}")
    for path, source in snapshot.items():
        if not isinstance(path, str) or not isinstance(source, str):
            raise NotesError(
                f"a snapshot maps str paths to str sources; entry {path!r} -> {type(source).__name__} is not one"
            )
    return snapshot
