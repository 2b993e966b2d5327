"""Active resident tokens versus total management cost, kept apart.

Resident tokens are what the chosen forms occupy in each invocation's input.
Management cost is everything else a multi-representation design spends, each
line separately:

generation
    A (simulated) model call per model-made form: it reads the source and
    writes the form, so it costs ``source_tokens + tokens``. The full text is
    the source (no call) and the anchor is a deterministic view of the record
    (no extra call once the record exists).
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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .render import Representation


@dataclass(frozen=True, slots=True)
class Ledger:
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


def generation_cost(rep: Representation, forms: Mapping[str, Representation]) -> int:
    """Stand-alone generation cost of one form: a model call reads its input and writes the form.

    A view costs what the record it is a view of costs, since it cannot exist
    without it.
    """
    if rep.mechanism == "source":
        return 0
    if rep.mechanism == "model":
        return rep.source_tokens + rep.tokens
    base = forms.get("record")
    return generation_cost(base, forms) if base is not None else 0


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

