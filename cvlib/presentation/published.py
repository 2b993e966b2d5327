"""The article's published numbers, kept apart from everything we compute.

These are the *reference* column of each chapter's comparison table: claims
copied from the article (seed ``000``) and its README (seed ``001``), with the
parameters they were published for. Nothing in cvlib reads them to compute a
result; notebooks put them beside our numbers, and :func:`comparison` says
whether the two agree. When a reader reruns a chapter with other parameters,
the published numbers no longer describe that run, and the table says so
instead of reporting a spurious mismatch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cvlib.core.errors import ParameterError

#: For each experiment, what the article ran (``"params"``) and what it reported (``"values"``).
PUBLISHED: dict[str, dict[str, dict[str, Any]]] = {
    "C": {
        "params": {"depth": 5},
        "values": {"baseline_steps": 5, "validity_steps": 5, "overhead": 0},
    },
    "A": {
        "params": {"depth": 4, "change_tick": 1},
        "values": {
            "baseline_steps": 9,
            "validity_steps": 6,
            "baseline_pfw": 2,
            "validity_pfw": 0,
            "baseline_replans": 1,
            "validity_replans": 1,
            "baseline_scur": 0.75,
            "validity_scur": 0.50,
            "baseline_completed": True,
            "validity_completed": True,
        },
    },
    "D1": {
        "params": {"depths": [1, 2, 3, 5, 10], "change_tick": 0},
        "values": {"baseline_pfw": [0, 1, 2, 4, 9], "validity_pfw": [0, 0, 0, 0, 0]},
    },
    "D2": {
        "params": {
            "topologies": [[6, 1, 1], [4, 4, 4], [8, 2, 2]],
            "seed": 0,
            "grid_depths": [3, 4, 5, 6, 7, 8],
            "grid_branching": [1, 2, 3, 4],
            "grid_merging": [1, 2, 3, 4],
        },
        "values": {"nodes": [6, 25, 30], "baseline_pfw": [5, 24, 29], "grid_configs": 96, "grid_mismatches": 0},
    },
    "D3": {
        "params": {"branch_counts": [1, 4, 8], "pre_merge_depth": 6, "post_merge_depth": 2},
        "values": {
            "total_nodes": [8, 26, 50],
            "exposed_nodes": [8, 8, 8],
            "exposed_pct": [100.0, 30.8, 16.0],
            "baseline_pfw": [7, 7, 7],
        },
    },
    "E1": {
        "params": {"depth": 3, "change_tick": 1},
        "values": {"baseline_steps": 7, "validity_steps": 6, "verifications": 1},
    },
    "E2": {
        "params": {"depth": 3, "change_tick": 1},
        "values": {"baseline_steps": 3, "validity_steps": 4, "verifications": 1, "baseline_scur": 0.0, "validity_scur": 0.0},
    },
    "budget": {
        "params": {"depth": 4, "change_tick": 1, "budgets": [9, 8, 7, 6, 5, 4]},
        "values": {
            "both_complete": [9],
            "only_validity_completes": [8, 7, 6],
            "neither_completes": [5, 4],
        },
    },
    "law": {
        "params": {"cases": "the 15 published cases"},
        "values": {"cases": 15, "matches": 15},
    },
}


def published(experiment: str) -> dict[str, Any]:
    """The published values of one experiment (a copy, so a notebook cannot edit the reference)."""
    try:
        entry = PUBLISHED[experiment]
    except KeyError:
        raise ParameterError(f"no published numbers for {experiment!r}; expected one of {', '.join(PUBLISHED)}") from None
    return dict(entry["values"])


def at_published_params(experiment: str, params: Mapping[str, Any]) -> bool:
    """Whether ``params`` agree with the parameters the article published ``experiment`` for.

    Only the keys the article fixed are compared; extra keys (a budget left at
    None, a seed the article did not vary) are ignored.
    """
    if experiment not in PUBLISHED:
        raise ParameterError(f"no published numbers for {experiment!r}; expected one of {', '.join(PUBLISHED)}")
    reference = PUBLISHED[experiment]["params"]
    return all(_same(params[k], v) for k, v in reference.items() if k in params)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{round(value, 3):g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_show(v) for v in value)
    return str(value)


def comparison(rows: Iterable[tuple[str, Any, Any]], applies: bool = True):
    """A small table: quantity, the published value, ours, and whether they agree.

    Parameters
    ----------
    rows:
        ``(quantity, published value, our value)`` triples.
    applies:
        False when the run's parameters differ from the published ones; the
        ``agrees`` column then reads "n/a" rather than claiming a mismatch.
    """
    import pandas as pd

    out = []
    for quantity, ref, ours in rows:
        if not applies:
            verdict = "n/a (other parameters)"
        else:
            verdict = "yes" if _agree(ours, ref) else "no"
        out.append({"quantity": quantity, "published": _show(ref), "ours": _show(ours), "agrees": verdict})
    return pd.DataFrame(out).set_index("quantity")


def _agree(ours: Any, ref: Any) -> bool:
    """Equal, element by element; floats within the article's display precision (0.05)."""
    if isinstance(ours, (list, tuple)) or isinstance(ref, (list, tuple)):
        if not (isinstance(ours, (list, tuple)) and isinstance(ref, (list, tuple))) or len(ours) != len(ref):
            return False
        return all(_agree(a, b) for a, b in zip(ours, ref))
    if isinstance(ours, bool) or isinstance(ref, bool):
        return ours is ref or ours == ref
    if isinstance(ours, float) or isinstance(ref, float):
        return abs(float(ours) - float(ref)) < 0.05
    return ours == ref


def verdict(table) -> str:
    """One sentence on a :func:`comparison` table, for glueing into a chapter's prose."""
    agrees = list(table["agrees"])
    if not agrees:
        return "there is nothing to compare"
    if all(a.startswith("n/a") for a in agrees):
        return "the article published no numbers for these parameters, so there is nothing to compare"
    differ = [q for q, a in zip(table.index, agrees) if a == "no"]
    if not differ:
        return f"all {len(agrees)} published numbers are reproduced exactly"
    return f"{len(differ)} of {len(agrees)} published numbers differ ({', '.join(differ)})"
