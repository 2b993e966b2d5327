"""Magic Context's deterministic decay renderer, ported: tiers from rank, importance and budget pressure.

Magic Context (cortexkit/magic-context, MIT) keeps each history compartment in
four paraphrase tiers written by its historian and picks one tier per
compartment at render time, with no model call. This module ports the pieces
of that renderer the progressive-fidelity chapter reads, from these files (paths
in cortexkit/magic-context; the search index we read from lacks the two
TypeScript sources in the upstream repository, so we read them in mirrors of
it: ``decay-curve.ts`` in ``sl1097643327git/magic-context`` at commit
``c99ae8784c0c3d92b4850b8aba79033f16cceec1`` and in ``ahrav/magic-context``
at ``b13c5ffba08c83242d22f3bc860ea5f279346f76``, whose natural cost charges
nothing for archived compartments; ``decay-render.ts`` in
``sl1097643327git/magic-context`` at
``0d2a1bb60d36ca0cf614c2498c5d2307aee05ced``):

``packages/plugin/src/hooks/magic-context/decay-curve.ts``
    the half-life ``H = H50 * 2^((I - 50) / D) / max(p, P_FLOOR)`` with
    ``H50 = 24``, ``D = 25``, ``P_FLOOR = 0.10``; the age ``a`` of a
    compartment is its rank from the newest minus one (the newest has
    ``a = 0``); ``z = a / H`` is cut at ``0.201, 0.729, 1.322, 2.587`` into
    tiers P1-P4 and P5 (archived); importance is clamped to [1, 100];
    budget pressure is the *natural-tier* cost (every compartment at its
    tier under pressure 1) over the history budget, floored at 0.10, with a
    second pass that re-costs at that pressure and, if the result still
    overshoots the budget by more than 10 %, scales the pressure by the
    overshoot (``computeBudgetPressureTwoPass``).
``packages/plugin/src/hooks/magic-context/decay-render.ts``
    ranks are counted over the compartments oldest first, the newest being
    1; pressure is computed once per render; after the curve assigns tiers a
    guard demotes the *oldest* compartment one tier at a time until the
    rendering fits the budget.
``ARCHITECTURE.md`` (upstream, commit ``16749afcf500d8fb3596453f72833ea00f1a7859``) and ``transform-postprocess-phase.ts``
    re-tiering happens only on a HARD fold of the cached baseline (m[0]);
    between folds new compartments wait in the delta (m[1]) at full tier. A
    fold happens on the first render, when the provider's cache is already
    gone (e.g. idle past its TTL), when usage reaches the 85 %
    force-materialization band, or when the delta outgrows about 20 % of
    the history budget (the pressure backstop); the post-transform phase
    notes that force materialization "also forces m[0] materialization".
``docs/AUDIT-KNOWN-ISSUES.md`` (item A13)
    records that the shipped renderer calls the single-pass pressure and
    keeps the two-pass one as a tested reserve; we run the correction pass
    by default, as the renderer intends, and the
    sensitivity sweep runs the single pass too.

Where the simulation differs from the plugin, the port says so (owner
``port`` in :mod:`cvlib.fidelity.params`): our content objects are its
compartments; a tier's cost is the object's actual tokens in that form, not
the plugin's measured per-tier average (``TIER_COST``); P5 (archived) renders
as the anchor because the chapter has no empty tier, so an archived object
costs its anchor's tokens, where the plugin charges 0 for bytes it never
sends; and our one resident budget plays both the history budget and the
window whose usage the 85 % band measures.

This is our code, written from reading those files; none of theirs is copied.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from cvlib.core.errors import ParameterError

from .params import default

#: Half-life in compartments at importance 50 and pressure 1 (Magic Context's H50).
H50: float = default("mc_h50")  # type: ignore[assignment]
#: Importance points that double the half-life (Magic Context's D).
D: float = default("mc_d")  # type: ignore[assignment]
#: Tier cut points Z1-Z4 on z = age / half-life.
BOUNDARIES: tuple[float, ...] = default("mc_boundaries")  # type: ignore[assignment]
#: Pressure floor (Magic Context's P_FLOOR).
P_FLOOR: float = default("mc_p_floor")  # type: ignore[assignment]
#: Overshoot factor above which the second pressure pass corrects.
CORRECTION: float = default("mc_correction")  # type: ignore[assignment]
#: The archived tier (P5).
ARCHIVED = 5


def half_life(importance: float, pressure: float) -> float:
    """``H = H50 * 2^((I - 50) / D) / max(p, P_FLOOR)`` in compartments, importance clamped to [1, 100].

    Parameters
    ----------
    importance:
        The historian's importance score (a decay rate, not a relevance).
    pressure:
        Budget pressure; values below the floor count as the floor.

    Returns
    -------
    float
        The half-life, in compartments.
    """
    imp = max(1.0, min(100.0, float(importance)))
    return H50 * 2.0 ** ((imp - 50.0) / D) / max(float(pressure), P_FLOOR)


def tier(index: int, importance: float, pressure: float) -> int:
    """Magic Context's tier P1-P5 (1-5) for a compartment ``index`` places from the newest (1 = newest).

    The age is ``index - 1`` compartments, so the newest is always P1; a z
    exactly on a cut point belongs to the tier above it.

    Parameters
    ----------
    index:
        1-based rank from the newest compartment.
    importance:
        Importance, clamped to [1, 100].
    pressure:
        Budget pressure, floored at :data:`P_FLOOR`.

    Returns
    -------
    int
        1 (P1, verbose) to 4 (P4, anchor), or 5 (archived).
    """
    if isinstance(index, bool) or not isinstance(index, int):
        raise ParameterError(f"compartment index must be an integer rank from the newest, got {index!r}")
    if math.isnan(float(pressure)):
        raise ParameterError(f"pressure must be a number, got {pressure!r}")
    a = max(index, 1) - 1
    z = a / half_life(importance, pressure)
    for t, cut in enumerate(BOUNDARIES, start=1):
        if z < cut:
            return t
    return ARCHIVED


def _cost(costs: Sequence[Sequence[int]], i: int, t: int) -> int:
    return int(costs[i][t - 1])


def budget_pressure(
    importances: Sequence[float],
    costs: Sequence[Sequence[int]],
    budget: int,
    *,
    passes: int = 2,
) -> float:
    """Budget pressure of one render, from the natural-tier cost, with Magic Context's correction pass.

    Parameters
    ----------
    importances:
        One importance per compartment, *oldest first* (the last is the newest).
    costs:
        Per compartment, its cost in tokens at tiers P1-P5 (five numbers).
    budget:
        The history budget in tokens; a non-positive budget gives pressure 1,
        as in the plugin.
    passes:
        1 for the single forward pass, 2 to run the correction pass.

    Returns
    -------
    float
        ``max(P_FLOOR, natural / budget)``, scaled by ``actual / budget`` when
        the second pass finds the rendering at that pressure still more than
        :data:`CORRECTION` times the budget.
    """
    if passes not in (1, 2):
        raise ParameterError(f"pressure passes must be 1 or 2, got {passes!r}")
    if len(importances) != len(costs) or any(len(c) != ARCHIVED for c in costs):
        raise ParameterError("budget_pressure needs one importance and five tier costs per compartment")
    if budget <= 0:
        return 1.0
    n = len(importances)
    natural = sum(_cost(costs, i, tier(n - i, imp, 1.0)) for i, imp in enumerate(importances))
    p = max(P_FLOOR, natural / budget)
    if passes == 2:
        actual = sum(_cost(costs, i, tier(n - i, imp, p)) for i, imp in enumerate(importances))
        if actual > budget * CORRECTION:
            p = p * (actual / budget)
    return max(P_FLOOR, p)


def render_tiers(
    importances: Sequence[float],
    costs: Sequence[Sequence[int]],
    budget: int,
    *,
    passes: int = 2,
) -> tuple[tuple[int, ...], float]:
    """The tiers one render assigns, oldest first, and the pressure it used.

    Tiers come from the curve at the budget pressure; then, as in the
    plugin's budget guard, the oldest compartment not yet archived is
    demoted one tier at a time while the total cost exceeds the budget (at
    most five steps per compartment).

    Parameters
    ----------
    importances, costs, budget, passes:
        As for :func:`budget_pressure`.

    Returns
    -------
    tuple
        ``(tiers, pressure)``; tiers are 1-5, one per compartment, oldest first.
    """
    p = budget_pressure(importances, costs, budget, passes=passes)
    n = len(importances)
    tiers = [tier(n - i, imp, p) for i, imp in enumerate(importances)]
    if budget > 0:
        total = sum(_cost(costs, i, t) for i, t in enumerate(tiers))
        guard = 5 * n
        oldest = 0
        while total > budget and guard > 0:
            while oldest < n and tiers[oldest] >= ARCHIVED:
                oldest += 1
            if oldest >= n:
                break
            total += _cost(costs, oldest, tiers[oldest] + 1) - _cost(costs, oldest, tiers[oldest])
            tiers[oldest] += 1
            guard -= 1
    return tuple(tiers), p
