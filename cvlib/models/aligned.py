"""Aligned evaluation: reuse only what a fresh evaluation would have computed the same way.

A runtime reads a prompt in batches, and a token's keys and values round
differently depending on which batch computed them. Under ``aligned``
evaluation every prompt is read in batches of ``batch_size`` tokens that start
at multiples of ``batch_size`` (0, B, 2B, ...), the way a fresh runtime reads
it. A later prompt may then keep a whole batch of the previous one when it
shares every token up to that batch's end: those keys and values are, bit for
bit, what the fresh runtime would compute, because the same tokens were read
in the same batch at the same positions. Everything after the last whole
shared batch is read again from that boundary. So an answer depends on its
prompt and settings alone, as under ``pure`` evaluation (one token per batch),
at a fraction of ``pure``'s cost when prompts grow by appending (an agent's
transcript).

This module holds the arithmetic, which needs no model; :mod:`cvlib.models.llamacpp`
applies it to the runtime.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["aligned_reuse", "needs_priming", "priming_prompt"]


def _shared(first: Sequence[int], second: Sequence[int]) -> int:
    shared = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        shared += 1
    return shared


def aligned_reuse(previous: Sequence[int] | None, tokens: Sequence[int], batch: int) -> int:
    """How many leading tokens of ``tokens`` may be kept from the previous prompt's evaluation.

    Only whole batches of the previous *prompt* count: the runtime computed the
    previous answer's tokens one at a time, not in aligned batches, so they are
    never kept even where the new prompt repeats them. At least one token is
    always read, since the runtime needs the last prompt token's output.

    Parameters
    ----------
    previous : sequence of int or None
        The previous prompt's tokens (None: nothing is computed yet, or the caller reset).
    tokens : sequence of int
        This prompt's tokens.
    batch : int
        The batch size B; batches start at multiples of B.

    Returns
    -------
    int
        A multiple of ``batch``, 0 when nothing may be kept.
    """
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    if not previous or not tokens:
        return 0
    usable = min(_shared(previous, tokens), len(previous), len(tokens) - 1)
    return batch * (usable // batch)


def needs_priming(previous: Sequence[int], tokens: Sequence[int], reuse: int) -> bool:
    """Whether the runtime must be told to drop what it holds beyond ``reuse`` before this prompt.

    The runtime keeps the longest prefix its cache shares with a prompt. It
    keeps exactly ``reuse`` tokens by itself only when the two prompts part at
    ``reuse``, inside the previous prompt; anywhere else (a longer shared
    prefix, or one that runs on into the previous answer) it would keep more.

    Parameters
    ----------
    previous : sequence of int
        The previous prompt's tokens.
    tokens : sequence of int
        This prompt's tokens.
    reuse : int
        What :func:`aligned_reuse` allows (> 0).

    Returns
    -------
    bool
    """
    return not (reuse < len(previous) and _shared(previous, tokens) == reuse)


def priming_prompt(tokens: Sequence[int], reuse: int) -> list[int]:
    """A prompt that shares exactly ``reuse`` tokens with ``tokens``: sent first, it makes the runtime keep no more.

    Parameters
    ----------
    tokens : sequence of int
        This prompt's tokens (longer than ``reuse``).
    reuse : int
        Tokens to keep.

    Returns
    -------
    list of int
    """
    following = tokens[reuse]
    other = following - 1 if following > 0 else following + 1
    return [*tokens[:reuse], other]
