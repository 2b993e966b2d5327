"""Legality, preservation-dominance and operating-point dominance.

Legality is a predicate, not a rank: a representation is legal at a turn when
its *checked* vector satisfies every obligation that applies then.

Two dominance relations, both over a fixed set of evaluated checks:

* preservation: ``a`` passes every check ``b`` passes (and, strictly, one
  more). This is set inclusion, so it is a partial order: two forms of equal
  size can each keep something the other lost, and neither dominates.
* operating point: relative to a requirement set and a cost vector, ``a``
  meets at least the required checks ``b`` meets, costs no more on every
  compared dimension, and is strictly better somewhere. A form dominated as an
  operating point earns no place and can be merged away.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from cvlib.core.errors import ParameterError

from .records import Check, Obligation


def violated(vector: frozenset[Check], obligations: Iterable[Obligation]) -> tuple[Obligation, ...]:
    """The obligations a checked vector fails."""
    return tuple(o for o in obligations if o.check not in vector)


def is_legal(vector: frozenset[Check], obligations: Iterable[Obligation]) -> bool:
    """Whether a checked vector satisfies every given (currently applicable) obligation."""
    return not violated(vector, obligations)


def _restrict(v: frozenset[Check], evaluated: frozenset[Check] | None) -> frozenset[Check]:
    return v if evaluated is None else v & evaluated


def preserves_at_least(a: frozenset[Check], b: frozenset[Check], evaluated: frozenset[Check] | None = None) -> bool:
    """Non-strict preservation order: ``a`` passes every evaluated check that ``b`` passes."""
    return _restrict(a, evaluated) >= _restrict(b, evaluated)


def preservation_dominates(a: frozenset[Check], b: frozenset[Check], evaluated: frozenset[Check] | None = None) -> bool:
    """Strict preservation-dominance: every check ``b`` passes, and at least one more."""
    return _restrict(a, evaluated) > _restrict(b, evaluated)


def comparable(a: frozenset[Check], b: frozenset[Check], evaluated: frozenset[Check] | None = None) -> bool:
    """Whether the preservation order ranks ``a`` and ``b`` at all (it is partial: two forms can each keep what the other loses)."""
    return preserves_at_least(a, b, evaluated) or preserves_at_least(b, a, evaluated)


@dataclass(frozen=True, slots=True)
class OperatingPoint:
    """A representation seen as a point: what it passes and what it costs.

    ``costs`` maps a cost dimension (e.g. ``resident_tokens``,
    ``generation_tokens``) to a non-negative number; lower is better.
    """

    name: str
    checks: frozenset[Check]
    costs: tuple[tuple[str, float], ...]

    @staticmethod
    def make(name: str, checks: frozenset[Check], costs: Mapping[str, float]) -> OperatingPoint:
        """Build a point from a cost mapping, refusing negative costs."""
        for k, v in costs.items():
            if v < 0:
                raise ParameterError(f"cost {k!r} of {name!r} must be >= 0, got {v}")
        return OperatingPoint(name, frozenset(checks), tuple(sorted(costs.items())))

    def cost(self, key: str) -> float:
        """The cost on dimension ``key``."""
        for k, v in self.costs:
            if k == key:
                return v
        raise ParameterError(f"operating point {self.name!r} has no cost {key!r}; it has {[k for k, _ in self.costs]}")


def _cost_keys(a: OperatingPoint, b: OperatingPoint, cost_keys: Sequence[str] | None) -> list[str]:
    if cost_keys is not None:
        return list(cost_keys)
    ka, kb = [k for k, _ in a.costs], [k for k, _ in b.costs]
    if ka != kb:
        raise ParameterError(f"operating points {a.name!r} and {b.name!r} have different cost dimensions: {ka} vs {kb}")
    return ka


def operating_at_least(
    a: OperatingPoint, b: OperatingPoint, required: frozenset[Check], cost_keys: Sequence[str] | None = None
) -> bool:
    """Non-strict: ``a`` meets every required check ``b`` meets and costs no more anywhere."""
    keys = _cost_keys(a, b, cost_keys)
    return (a.checks & required) >= (b.checks & required) and all(a.cost(k) <= b.cost(k) for k in keys)


def operating_dominates(
    a: OperatingPoint, b: OperatingPoint, required: frozenset[Check], cost_keys: Sequence[str] | None = None
) -> bool:
    """Pareto dominance over (required checks met, every cost): no worse anywhere, strictly better somewhere."""
    if not operating_at_least(a, b, required, cost_keys):
        return False
    keys = _cost_keys(a, b, cost_keys)
    return (a.checks & required) > (b.checks & required) or any(a.cost(k) < b.cost(k) for k in keys)


def dominated_by(
    points: Sequence[OperatingPoint], required: frozenset[Check], cost_keys: Sequence[str] | None = None
) -> dict[str, tuple[str, ...]]:
    """For each point, the names of the points that dominate it (empty: it earns a place)."""
    return {
        p.name: tuple(q.name for q in points if q is not p and operating_dominates(q, p, required, cost_keys))
        for p in points
    }


def pareto_front(
    points: Sequence[OperatingPoint], required: frozenset[Check], cost_keys: Sequence[str] | None = None
) -> tuple[OperatingPoint, ...]:
    """The points no other point dominates, in input order: what survives merging the dominated away."""
    dom = dominated_by(points, required, cost_keys)
    return tuple(p for p in points if not dom[p.name])


def merge_dominated(
    points: Sequence[OperatingPoint], required: frozenset[Check], cost_keys: Sequence[str] | None = None
) -> tuple[tuple[OperatingPoint, ...], dict[str, tuple[str, ...]]]:
    """Drop dominated points; return the survivors and, for each dropped one, what dominated it."""
    dom = dominated_by(points, required, cost_keys)
    return tuple(p for p in points if not dom[p.name]), {k: v for k, v in dom.items() if v}
