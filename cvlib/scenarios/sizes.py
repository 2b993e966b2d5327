"""How big a plan will be, known from its parameters before anything is built.

A generator asked for ``chain(10**9)`` would otherwise start allocating a
billion steps and be killed by the kernel minutes later, or fail with a bare
``MemoryError``; a diamond of depth 12 and branching factor a million asks for
more steps than there are atoms to store them. So every public generator, the
named scenarios that use them, spec files and the random plan families first
compute the size of the plan they are about to build, with the arithmetic
below (microseconds, whatever the parameters), and refuse a plan above the
limit with a :class:`~cvlib.core.errors.SizeLimitError` that says the size and
the limit.

The limits
----------
``steps`` (default :data:`DEFAULT_MAX_STEPS`, ten million) bounds a plan's
steps and its facts; its dependency links may number :data:`LINKS_PER_STEP`
times as many. Measured on the generators of this version (peak memory of
building and running the plan on both executors): a chain of ten million steps
takes about 1.5 GB, a diamond (``branching``) of 2.7 million steps and 5.1
million links about 1.2 GB, one of 6.3 million steps and 31 million links,
now refused for its links, took 3.7 GB. ``runs`` (default
:data:`DEFAULT_MAX_RUNS`) bounds how many scenario runs one call may ask for:
the tasks of a sweep, the schedules of a verification or TTL sweep, the plans
of an exposure sweep.

Each is overridden, in this order of precedence, by :func:`size_limits` (a
context manager, for a block of code), by the environment variables
``CVLIB_MAX_STEPS`` and ``CVLIB_MAX_RUNS`` (which also reach the worker
processes of a parallel sweep), or by the ``limit=`` argument of the checks.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from cvlib.core.errors import ParameterError, SizeLimitError
from cvlib.core.validation import decimal_digits, parse_int, require_int

__all__ = [
    "DEFAULT_MAX_RUNS",
    "DEFAULT_MAX_STEPS",
    "LINKS_PER_STEP",
    "MAX_RUNS_ENV",
    "MAX_STEPS_ENV",
    "PlanSize",
    "branching_layer_runs",
    "branching_size",
    "chain_size",
    "check_plan_size",
    "check_runs",
    "facts_size",
    "isolated_fan_out_size",
    "layered_dag_size",
    "max_runs",
    "max_steps",
    "multi_branch_size",
    "random_plan_size",
    "size_limits",
]

#: Most steps (and facts) one plan may have unless the limit is raised.
DEFAULT_MAX_STEPS = 10_000_000
#: Most scenario runs one call (a sweep, a set of schedules) may ask for unless the limit is raised.
DEFAULT_MAX_RUNS = 10_000_000
#: Dependency links allowed per step of the limit (links are cheap next to steps, but not free).
LINKS_PER_STEP = 2
#: Environment variable that sets the step limit (a positive integer in ASCII digits).
MAX_STEPS_ENV = "CVLIB_MAX_STEPS"
#: Environment variable that sets the run limit.
MAX_RUNS_ENV = "CVLIB_MAX_RUNS"

_STEPS_OVERRIDE: ContextVar[int | None] = ContextVar("cvlib_max_steps", default=None)
_RUNS_OVERRIDE: ContextVar[int | None] = ContextVar("cvlib_max_runs", default=None)


def _from_env(variable: str, default: int) -> int:
    text = os.environ.get(variable)
    if text is None or not text.strip():
        return default
    return parse_int(f"the environment variable {variable}", text, minimum=1)


def max_steps() -> int:
    """The step limit in force: :func:`size_limits`, else ``CVLIB_MAX_STEPS``, else :data:`DEFAULT_MAX_STEPS`.

    Returns
    -------
    int
    """
    override = _STEPS_OVERRIDE.get()
    return override if override is not None else _from_env(MAX_STEPS_ENV, DEFAULT_MAX_STEPS)


def max_runs() -> int:
    """The run limit in force: :func:`size_limits`, else ``CVLIB_MAX_RUNS``, else :data:`DEFAULT_MAX_RUNS`.

    Returns
    -------
    int
    """
    override = _RUNS_OVERRIDE.get()
    return override if override is not None else _from_env(MAX_RUNS_ENV, DEFAULT_MAX_RUNS)


@contextmanager
def size_limits(*, steps: int | None = None, runs: int | None = None) -> Iterator[None]:
    """Raise (or lower) the limits for the code inside the ``with`` block.

    >>> import cvlib as cv
    >>> with cv.size_limits(steps=20_000_000):
    ...     plan_ok = cv.sizes.chain_size(15_000_000).steps
    >>> plan_ok
    15000000

    The override lives in this thread's context only; worker processes of a
    parallel sweep see the environment variables instead.

    Parameters
    ----------
    steps : int or None
        Most steps (and facts) of one plan; its links may be ``LINKS_PER_STEP`` times as many.
    runs : int or None
        Most scenario runs of one call.

    Yields
    ------
    None
        The limits apply inside the ``with`` block and are restored after it.
    """
    tokens = []
    if steps is not None:
        tokens.append((_STEPS_OVERRIDE, _STEPS_OVERRIDE.set(require_int("steps", steps, minimum=1))))
    if runs is not None:
        tokens.append((_RUNS_OVERRIDE, _RUNS_OVERRIDE.set(require_int("runs", runs, minimum=1))))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


@dataclass(frozen=True, slots=True)
class PlanSize:
    """The size of a plan, from its parameters: exact for the article's generators, an upper bound for random ones.

    ``what`` names the plan as the caller asked for it (``"chain(depth=5)"``),
    so the error says which request was too large.
    """

    what: str
    steps: int
    links: int
    facts: int
    exact: bool = True

    def check(self, limit: int | None = None) -> PlanSize:
        """Return this size if it is within the limit, else raise a :class:`~cvlib.core.errors.SizeLimitError`.

        Parameters
        ----------
        limit : int or None
            The step limit; None uses :func:`max_steps`.

        Returns
        -------
        PlanSize
        """
        return check_plan_size(self, limit)


def _count(number: int) -> str:
    """A count for a message: digits with separators, or its order of magnitude when it is huge.

    Python refuses to print an int of more than 4,300 digits, and a message
    should not hold one anyway.
    """
    if number < 10**15:
        return f"{number:,}"
    return f"about 10^{decimal_digits(number) - 1}"


def check_plan_size(size: PlanSize, limit: int | None = None) -> PlanSize:
    """Refuse a plan whose steps, facts or links pass the limit, saying the size and the limit.

    Parameters
    ----------
    size : PlanSize
        What the plan would hold.
    limit : int or None
        The step limit; None uses :func:`max_steps`.

    Returns
    -------
    PlanSize
        ``size``, unchanged, when it is within the limit.
    """
    limit = max_steps() if limit is None else require_int("limit", limit, minimum=1)
    bound = "" if size.exact else "up to "
    hint = f"raise it with cvlib.size_limits(steps=...), {MAX_STEPS_ENV} or the command line's --max-steps"
    if size.steps > limit:
        raise SizeLimitError(
            f"{size.what} would have {bound}{_count(size.steps)} steps; the limit is {_count(limit)} ({hint})"
        )
    if size.facts > limit:
        raise SizeLimitError(
            f"{size.what} would rest on {bound}{_count(size.facts)} facts; the limit is {_count(limit)} ({hint})"
        )
    if size.links > LINKS_PER_STEP * limit:
        raise SizeLimitError(
            f"{size.what} would have {bound}{_count(size.links)} dependency links; the limit is "
            f"{_count(LINKS_PER_STEP * limit)} ({LINKS_PER_STEP} per step of the {_count(limit)}-step limit; {hint})"
        )
    return size


def check_runs(name: str, count: object, limit: int | None = None) -> int:
    """Refuse a request for more scenario runs than the run limit; return the count.

    Parameters
    ----------
    name : str
        What is counted, as the caller's parameter is called (``"n_schedules"``).
    count : object
        The number of runs asked for; it must be a non-negative integer.
    limit : int or None
        The run limit; None uses :func:`max_runs`.

    Returns
    -------
    int
    """
    count = require_int(name, count, minimum=0)
    limit = max_runs() if limit is None else require_int("limit", limit, minimum=1)
    if count > limit:
        raise SizeLimitError(
            f"{name} asks for {_count(count)} runs; the limit is {_count(limit)} "
            f"(raise it with cvlib.size_limits(runs=...) or {MAX_RUNS_ENV})"
        )
    return count


# -- the generators' plans --------------------------------------------------------------------


def chain_size(depth: object) -> PlanSize:
    """Size of :func:`~cvlib.scenarios.generators.chain`: ``depth`` steps, one link between neighbours.

    Parameters
    ----------
    depth : object
        The chain's depth (checked: an integer >= 1).

    Returns
    -------
    PlanSize
    """
    depth = require_int("depth", depth, minimum=1)
    return PlanSize(f"a chain of depth {_count(depth)}", depth, depth - 1, 1)


def branching_layer_runs(depth: int, branching_factor: int, merge_factor: int) -> list[list[int]]:
    """The diamond's shape: its layer widths as runs ``[width, layers]``, without a loop over the layers.

    The one definition of the diamond's layers: the first ``ceil(depth / 2)``
    layers multiply the width by the branching factor up to its cube, the
    others divide it by the merge factor down to 1, and the last layer is the
    single action. :func:`~cvlib.scenarios.generators.branching_layer_widths`
    expands the runs into one width per layer, and
    :func:`~cvlib.scenarios.generators.branching` builds the plan from them.

    Parameters
    ----------
    depth, branching_factor, merge_factor : int
        The diamond's parameters, already checked (integers >= 1).

    Returns
    -------
    list of [int, int]
        ``[width, number of consecutive layers of that width]``, in layer order.
    """
    bf, mf = branching_factor, merge_factor
    fanning = (depth + 1) // 2  # layers l with l < depth / 2
    cap = bf**3
    runs: list[list[int]] = [[bf**k, 1] for k in range(1, min(fanning, 3) + 1)]
    if fanning > 3:
        runs.append([cap, fanning - 3])
    width = runs[-1][0]
    merging = depth - fanning
    if mf == 1 or width == 1:
        if merging:
            runs.append([width, merging])
    else:
        power = mf
        while merging and width // power > 1:
            runs.append([width // power, 1])
            merging -= 1
            power *= mf
        if merging:
            runs.append([1, merging])
    last = runs[-1]
    if last[0] != 1:  # the last layer is the one action
        if last[1] == 1:
            runs.pop()
        else:
            last[1] -= 1
        runs.append([1, 1])
    return runs


def branching_size(depth: object, branching_factor: object = 2, merge_factor: object = 2) -> PlanSize:
    """Size of :func:`~cvlib.scenarios.generators.branching`, exact, in time that does not grow with ``depth``.

    Each step after the first layer has ``min(previous width, branching_factor)``
    predecessors, so the links are counted layer pair by layer pair.

    Parameters
    ----------
    depth, branching_factor, merge_factor : object
        The diamond's parameters (checked: integers >= 1).

    Returns
    -------
    PlanSize
    """
    depth = require_int("depth", depth, minimum=1)
    bf = require_int("branching_factor", branching_factor, minimum=1)
    mf = require_int("merge_factor", merge_factor, minimum=1)
    runs = branching_layer_runs(depth, bf, mf)
    steps = sum(width * count for width, count in runs)
    links = 0
    previous = None
    for width, count in runs:
        if previous is not None:
            links += width * min(previous, bf)
        links += (count - 1) * width * min(width, bf)
        previous = width
    what = f"a branching plan of depth {_count(depth)}, branching factor {_count(bf)} and merge factor {_count(mf)}"
    return PlanSize(what, steps, links, 1)


def multi_branch_size(pre_merge_depth: object, num_branches: object, post_merge_depth: object) -> PlanSize:
    """Size of :func:`~cvlib.scenarios.generators.multi_branch`: ``b * p + q`` steps on ``b`` facts.

    Parameters
    ----------
    pre_merge_depth, num_branches, post_merge_depth : object
        The plan's parameters (checked: integers >= 1).

    Returns
    -------
    PlanSize
    """
    p = require_int("pre_merge_depth", pre_merge_depth, minimum=1)
    b = require_int("num_branches", num_branches, minimum=1)
    q = require_int("post_merge_depth", post_merge_depth, minimum=1)
    what = f"a plan of {_count(b)} isolated branches of {_count(p)} steps merging into {_count(q)}"
    return PlanSize(what, b * p + q, b * (p - 1) + b + (q - 1), b)


def facts_size(num_facts: object) -> PlanSize:
    """Size of a list of ``num_facts`` fact names (``F1 … Fn``), before it is built.

    Parameters
    ----------
    num_facts : object
        How many facts (checked: an integer >= 1).

    Returns
    -------
    PlanSize
    """
    n = require_int("num_facts", num_facts, minimum=1)
    return PlanSize(f"a list of {_count(n)} facts", 0, 0, n)


def layered_dag_size(num_layers: object, max_width: object, num_facts: object, max_predecessors: object = 3) -> PlanSize:
    """Upper bound on the size of :func:`~cvlib.scenarios.random_plans.layered_dag` (widths are drawn at random).

    Parameters
    ----------
    num_layers, max_width, num_facts, max_predecessors : object
        The generator's parameters (checked: integers >= 1).

    Returns
    -------
    PlanSize
    """
    layers = require_int("num_layers", num_layers, minimum=1)
    width = require_int("max_width", max_width, minimum=1)
    facts = require_int("num_facts", num_facts, minimum=1)
    preds = require_int("max_predecessors", max_predecessors, minimum=1)
    steps = (layers - 1) * width + 1
    what = f"a layered random plan of {_count(layers)} layers up to {_count(width)} wide"
    return PlanSize(what, steps, steps * min(preds, width), facts, exact=False)


def isolated_fan_out_size(
    num_branches: object, fan_out: object, branch_depth: object = 2, post_merge_depth: object = 2
) -> PlanSize:
    """Upper bound on the size of :func:`~cvlib.scenarios.random_plans.isolated_fan_out` (level widths are random).

    Parameters
    ----------
    num_branches, fan_out, branch_depth, post_merge_depth : object
        The generator's parameters (checked: integers, ``branch_depth`` >= 0, the others >= 1).

    Returns
    -------
    PlanSize
    """
    b = require_int("num_branches", num_branches, minimum=1)
    fan = require_int("fan_out", fan_out, minimum=1)
    levels = require_int("branch_depth", branch_depth, minimum=0)
    q = require_int("post_merge_depth", post_merge_depth, minimum=1)
    steps = b * (1 + levels * fan) + q
    links = b * levels * fan * fan + b * fan + q
    what = f"an isolated fan-out plan of {_count(b)} branches, {_count(levels)} levels up to {_count(fan)} wide"
    return PlanSize(what, steps, links, b, exact=False)


def random_plan_size(family: str, max_steps: object) -> PlanSize:
    """Upper bound on the size of a plan that :func:`~cvlib.scenarios.random_plans.random_plan` may draw.

    Only the chain and layered families grow with ``max_steps`` (up to about
    twice it); the others are capped by constants in the drawing.

    Parameters
    ----------
    family : str
        One of :data:`~cvlib.scenarios.random_plans.FAMILIES`, or ``"mixed"`` for the largest of them.
    max_steps : object
        The family's size scale (checked: an integer >= 1).

    Returns
    -------
    PlanSize
    """
    scale = require_int("max_steps", max_steps, minimum=1)
    bounds = {
        "chain": chain_size(scale),
        "branching": max((branching_size(8, bf, 1) for bf in (1, 2, 3)), key=lambda s: (s.steps, s.links)),
        "multi_branch": multi_branch_size(8, 8, 4),
        "layered": max(
            (layered_dag_size(max(1, scale * 2 // (w + 1)), w, 6) for w in range(1, 7)),
            key=lambda s: (s.steps, s.links),
        ),
        "fan_out": isolated_fan_out_size(8, 4, 3, 3),
    }
    if family == "mixed":
        steps = max(s.steps for s in bounds.values())
        links = max(s.links for s in bounds.values())
        facts = max(s.facts for s in bounds.values())
    elif family in bounds:
        steps, links, facts = bounds[family].steps, bounds[family].links, bounds[family].facts
    else:
        raise ParameterError(f"plan family must be one of {', '.join(bounds)} or mixed; got {family!r}")
    return PlanSize(f"a random {family} plan with max_steps={_count(scale)}", steps, links, facts, exact=False)
