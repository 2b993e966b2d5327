"""Draws of :class:`random.Random` written out, as the random plans make them by the million.

The draws are those of :class:`random.Random`'s ``randint``, ``choice`` and
``sample`` (CPython's algorithms since 3.2, made of ``getrandbits`` words),
without the layers of checks and calls of the library methods; a plain
statement of the generators with the methods themselves is checked to draw
the same plans (``tests/reference_random_plans.py``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

#: ``random.Random.seed`` for an integer seed without its Python wrapper (which only adds the reset of
#: ``gauss``'s cached value; nothing here draws from ``gauss``).
seed: Callable[[random.Random, int], None] = random.Random.__mro__[1].seed  # type: ignore[attr-defined]


def below(bits: Callable[[int], int], n: int) -> int:
    """A uniform integer in ``0 … n-1`` drawn as ``Random._randbelow`` draws it (rejection on ``n.bit_length()`` bits).

    Parameters
    ----------
    bits : callable
        The generator's ``getrandbits``.
    n : int
        How many values (at least 1).

    Returns
    -------
    int
    """
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return r


def sample(bits: Callable[[int], int], population: Sequence[Any], k: int) -> list[Any]:
    """``Random.sample(population, k)``: a pool of the items for small populations, rejection of repeats otherwise.

    Parameters
    ----------
    bits : callable
        The generator's ``getrandbits``.
    population : sequence
        What to pick from.
    k : int
        How many distinct items.

    Returns
    -------
    list
        The picks, in the order drawn.
    """
    n = len(population)
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    result = []
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            j = below(bits, n - i)
            result.append(pool[j])
            pool[j] = pool[n - i - 1]
        return result
    selected: set[int] = set()
    for _ in range(k):
        j = below(bits, n)
        while j in selected:
            j = below(bits, n)
        selected.add(j)
        result.append(population[j])
    return result
