"""Resident and management costs are kept apart and computed as documented."""

from cvlib.fidelity import Ledger, first_divergence_tokens, generation_cost, render_all
from cvlib.fidelity.trajectories import MIGRATION


def test_first_divergence_counts_from_the_first_changed_object():
    tok = {("a", "full"): 10, ("a", "dense"): 4, ("b", "full"): 7, ("c", "anchor"): 2}
    prev = [("a", "full"), ("b", "full")]
    assert first_divergence_tokens(prev, [("a", "full"), ("b", "full"), ("c", "anchor")], tok) == 0
    assert first_divergence_tokens(prev, [("a", "dense"), ("b", "full"), ("c", "anchor")], tok) == 13


def test_management_excludes_resident_and_storage():
    led = Ledger(resident_tokens=1000, generation_tokens=5, validation_tokens=7, switching_tokens=11, regeneration_tokens=0, storage_token_turns=999)
    assert led.management_tokens == 23


def test_generation_cost_by_mechanism():
    forms = render_all(MIGRATION)
    assert generation_cost(forms["full"], forms) == 0
    assert generation_cost(forms["dense"], forms) == forms["full"].tokens + forms["dense"].tokens
    assert generation_cost(forms["anchor"], forms) == generation_cost(forms["record"], forms)
