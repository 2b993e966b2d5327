"""Forms generated each from its predecessor: the cascade full -> dense -> record -> anchor.

Rendering (:mod:`cvlib.fidelity.render`) makes each form from the source; the
checker (:mod:`cvlib.fidelity.checker`) reads a form back. The cascade needs
both, one after the other, so it sits above them.
"""

from __future__ import annotations

from .checker import check
from .records import ContentObject, Floor
from .render import Representation, _claims, count_tokens, render, render_anchor, render_record

__all__ = ["cascade"]


def cascade(obj: ContentObject) -> dict[str, Representation]:
    """Record and anchor generated each from its predecessor, not from the source.

    The cascade is full -> dense -> record -> anchor: each successor is
    rendered from a record restricted to the elements the checker found
    EXACT in its predecessor, so losses compound. Claims are the producer's
    usual claims for that form (it does not know what its input lost).
    """
    dense = render(obj, "dense")
    kept = frozenset(k for k, lv in check(dense, obj).vector if lv == int(Floor.EXACT))
    rec_obj = obj.restricted(kept)
    rec_text = render_record(rec_obj)
    rec = Representation(
        obj.object_id, "record_cascaded", rec_text, count_tokens(rec_text), _claims(obj, "record"), "model", dense.tokens, ("dense",)
    )
    kept2 = frozenset(k for k, lv in check(rec, obj).vector if lv == int(Floor.EXACT))
    anc_text = render_anchor(rec_obj.restricted(kept2 | {k for k in kept if k.startswith("constraint:")}))
    anc = Representation(
        obj.object_id, "anchor_cascaded", anc_text, count_tokens(anc_text), _claims(obj, "anchor"), "view", 0, ("record_cascaded",)
    )
    return {"dense": dense, "record_cascaded": rec, "anchor_cascaded": anc}
