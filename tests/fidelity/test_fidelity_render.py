"""Rendering is deterministic, the token count is the documented one, and the full text keeps everything."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvlib.core.errors import ParameterError
from cvlib.fidelity import REPRESENTATIONS, check, count_tokens, generate_trajectory, render, render_all
from cvlib.fidelity.trajectories import MIGRATION


def test_token_count_is_words_plus_punctuation():
    assert count_tokens("Rule: must not retry approach B.") == 8
    assert count_tokens("urllib3 2.0.7") == 6


def test_rendering_is_deterministic():
    a, b = render_all(MIGRATION), render_all(MIGRATION)
    assert [a[n].text for n in REPRESENTATIONS] == [b[n].text for n in REPRESENTATIONS]


def test_unknown_form_is_refused():
    with pytest.raises(ParameterError, match="unknown representation 'tiny'"):
        render(MIGRATION, "tiny")


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_full_text_passes_every_check(seed):
    for obj in generate_trajectory(seed, n_objects=3, n_turns=6, n_probes=0).objects:
        assert check(render(obj, "full"), obj).vector == obj.all_checks()


def test_flat_summary_loses_which_version_conflict_killed_approach_b():
    """The chapter's illustration: the summary records a rejection, not the conflict."""
    summ, dense = render(MIGRATION, "summary"), render(MIGRATION, "dense")
    assert "version conflict" in summ.text
    assert ("rationale:approach B", 2) not in check(summ, MIGRATION).vector
    assert ("rationale:approach B", 2) in check(dense, MIGRATION).vector


def test_forms_shrink_in_the_documented_order_for_the_migration():
    toks = {n: render(MIGRATION, n).tokens for n in REPRESENTATIONS}
    assert toks["full"] > toks["dense"] > toks["record"] > toks["anchor"]
