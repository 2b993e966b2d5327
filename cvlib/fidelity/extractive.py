"""The fair flat compaction: an extractive compactor that does its best at a target size.

A prose template (the ``summary``) is a flat compaction written to lose. A
fair baseline for "one flat compaction" is the best a single compaction can
keep at the same size. This
compactor reads the full text line by line (each line is one sentence of
narrative or one fact), values each line by the record elements it carries
exactly, and keeps the most valuable set of lines that fits the target, found
exactly by a 0/1 knapsack (ties go to fewer tokens, so narrative is the first
to go). The header line (the episode's identity) is always kept; kept lines
stay in their original order and verbatim, so the compaction never weakens a
force, swaps a status or adds a version.

It knows the record's elements (as the structured record's renderer does) but
never the obligations or probes, so like every generator it cannot aim at the
checks that will matter. It is an upper bound on what an extractive flat
compactor keeps, by construction: it maximises exactly what the checker
counts.
"""

from __future__ import annotations

from functools import lru_cache

from cvlib.core.errors import ParameterError

from .checker import check, element_level, segments
from .knapsack import mckp
from .records import ContentObject, Floor
from .render import LINEAGE, Representation, count_tokens, render_full


@lru_cache(maxsize=4096)
def _lines(obj: ContentObject) -> tuple[tuple[str, int, int], ...]:
    """Each line of the full text with its tokens and value (elements it carries EXACT, each counted once)."""
    lines = render_full(obj).split("\n")
    carriers: dict[str, int] = {}
    for e in obj.elements():
        best = None
        for i, line in enumerate(lines[1:], start=1):
            if element_level(obj, e.key, segments(line), line) == int(Floor.EXACT):
                if best is None or count_tokens(line) < count_tokens(lines[best]):
                    best = i
        if best is not None:
            carriers[e.key] = best
    value = [0] * len(lines)
    for i in carriers.values():
        value[i] += 1
    return tuple((line, count_tokens(line), value[i]) for i, line in enumerate(lines))


def render_compact(obj: ContentObject, ratio: float) -> Representation:
    """The extractive compaction of ``obj`` at ``ratio`` of its full text's tokens.

    Parameters
    ----------
    obj:
        The content object; its full text is what the compactor reads.
    ratio:
        Target size as a share of the full text's tokens, in (0, 1]. The
        header line is kept even when it alone exceeds the target.

    Returns
    -------
    Representation
        Named ``compact``; its claim is honest (exactly what the checker finds).
        Cached per (object, ratio): both are frozen values.
    """
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
        raise ParameterError(f"compaction ratio must be a number in (0, 1], got {ratio!r}")
    return _compact(obj, float(ratio))


@lru_cache(maxsize=8192)
def _compact(obj: ContentObject, ratio: float) -> Representation:
    lines = _lines(obj)
    full_tokens = sum(t for _, t, _ in lines)
    head_tokens = lines[0][1]
    room = max(0, int(round(ratio * full_tokens)) - head_tokens)
    body = lines[1:]
    pick = mckp([[0, t] for _, t, _ in body], [[0, v] for _, _, v in body], room) if body else ()
    kept = [lines[0][0]] + [line for (line, _, _), k in zip(body, pick or ()) if k == 1]
    text = "\n".join(kept)
    mech, parents = LINEAGE["compact"]
    rep = Representation(obj.object_id, "compact", text, count_tokens(text), frozenset(), mech, full_tokens, parents)
    honest = check(rep, obj).vector
    return Representation(obj.object_id, "compact", text, rep.tokens, honest, mech, full_tokens, parents)
