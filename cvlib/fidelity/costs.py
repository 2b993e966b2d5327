"""Active resident tokens versus total management cost, kept apart, and a ledger that charges lineage.

Resident tokens are what the chosen forms occupy in each invocation's input.
Management cost is everything else a multi-representation design spends, each
line separately:

generation
    Every form is charged for everything it was made from. A model call reads
    its input and writes the form (``input + output`` tokens); a view is a
    deterministic rendering of another form (no call of its own); the full
    text is the source (free). A derived form's cost is the production of
    every form in its lineage, each intermediate once per object: a record
    cascaded from the dense rewrite costs the dense rewrite's production plus
    its own call, and an anchor viewed from that record costs both. A *set*
    of forms is charged the union of its lineages, so an intermediate shared
    by two forms is paid once (:func:`set_generation_cost`).
validation
    The checker reads every form it validates once (its tokens). Schedules
    that never consult the checker pay nothing here, and get no legality.
storage
    Tokens of every stored form, summed over the turns its object is admitted
    (token-turns: a different unit, never added to the others).
switching
    A structural first-divergence estimate of prompt-cache loss: when a
    resident form changes, every resident token from that object to the end
    of the prompt must be processed again. Provider-reported reuse is
    *unobserved* here, not zero.
regeneration
    Tokens of representations regenerated after first generation. None of
    our schedules regenerates (selection never silently regenerates), so the
    line is zero; it is kept so a regenerate-every-turn variant would show.

Charging a cascaded record only its own call (reading the dense rewrite,
not producing it) and a cascaded anchor the *source* record's cost would
make a cascade look cheaper than it is; :func:`generation_cost` charges the
whole lineage instead (the own-call charge survives only for comparison, in
:func:`cvlib.fidelity.experiments.own_call_generation_cost`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from cvlib.core.errors import ParameterError

from .render import Representation


@dataclass(frozen=True, slots=True)
class TokenLedger:
    """One schedule's costs over one trajectory, in tokens (storage in token-turns)."""

    resident_tokens: int
    generation_tokens: int
    validation_tokens: int
    switching_tokens: int
    regeneration_tokens: int
    storage_token_turns: int

    @property
    def management_tokens(self) -> int:
        """Generation + validation + switching + regeneration (storage is reported apart)."""
        return self.generation_tokens + self.validation_tokens + self.switching_tokens + self.regeneration_tokens


def lineage(name: str, forms: Mapping[str, Representation]) -> frozenset[str]:
    """``name`` and every form it was made from, transitively.

    Parameters
    ----------
    name:
        A key of ``forms``.
    forms:
        One object's forms by name; every parent named in a lineage must be
        present (a form cannot be charged for an intermediate nobody made).

    Returns
    -------
    frozenset of str
        The names of ``name`` and all its ancestors.
    """
    seen: set[str] = set()
    stack = [name]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        if n not in forms:
            raise ParameterError(f"form {n!r} is in a lineage but was not produced; have {sorted(forms)}")
        seen.add(n)
        stack.extend(forms[n].parents)
    return frozenset(seen)


def set_generation_cost(names: Iterable[str], forms: Mapping[str, Representation]) -> int:
    """Generation tokens of storing every form in ``names`` for one object.

    The union of their lineages is produced, each form once: a shared
    intermediate (the dense rewrite under a cascaded record) is paid once,
    and nothing that was produced is left unpaid.

    Parameters
    ----------
    names:
        Forms the condition or schedule keeps.
    forms:
        That object's forms by name (ancestors included).

    Returns
    -------
    int
        Sum of :attr:`~cvlib.fidelity.render.Representation.production_tokens` over the union of lineages.
    """
    needed: set[str] = set()
    for n in names:
        needed |= lineage(n, forms)
    return sum(forms[n].production_tokens for n in sorted(needed))


def generation_cost(rep: Representation, forms: Mapping[str, Representation]) -> int:
    """Stand-alone generation cost of one form: its own production and that of every form it was made from.

    Parameters
    ----------
    rep:
        The form to charge.
    forms:
        Its object's forms by name, its ancestors included.

    Returns
    -------
    int
        Tokens; 0 for the source.
    """
    merged = dict(forms)
    merged[rep.name] = rep
    return set_generation_cost([rep.name], merged)


def first_divergence_tokens(
    previous: Sequence[tuple[str, str]], current: Sequence[tuple[str, str]], tokens: Mapping[tuple[str, str], int]
) -> int:
    """Tokens re-processed when ``current`` replaces ``previous`` as the resident prompt.

    Both are ``(object_id, form)`` in prompt order; ``current`` may append new
    objects at the end (those are new input, not a cache loss). The cost is
    every current token from the first position where the two prompts differ
    among the objects both hold.
    """
    for i, (p, c) in enumerate(zip(previous, current)):
        if p != c:
            return sum(tokens[x] for x in current[i:])
    return 0
