"""The cost ledger: resident and management costs apart, and every form charged for its whole lineage."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvlib.core.errors import ParameterError
from cvlib.fidelity import (
    TokenLedger,
    first_divergence_tokens,
    generate_trajectory,
    generation_cost,
    lineage,
    make_object,
    make_policy,
    object_forms,
    run_schedule,
    set_generation_cost,
    stored_forms,
)
from cvlib.fidelity.experiments import own_call_generation_cost
from cvlib.fidelity.trajectories import MIGRATION


def test_first_divergence_counts_from_the_first_changed_object():
    tok = {("a", "full"): 10, ("a", "dense"): 4, ("b", "full"): 7, ("c", "anchor"): 2}
    prev = [("a", "full"), ("b", "full")]
    assert first_divergence_tokens(prev, [("a", "full"), ("b", "full"), ("c", "anchor")], tok) == 0
    assert first_divergence_tokens(prev, [("a", "dense"), ("b", "full"), ("c", "anchor")], tok) == 13


def test_management_excludes_resident_and_storage():
    led = TokenLedger(resident_tokens=1000, generation_tokens=5, validation_tokens=7, switching_tokens=11, regeneration_tokens=0, storage_token_turns=999)
    assert led.management_tokens == 23


def test_the_migrations_forms_are_charged_their_lineage_worked_by_hand():
    f = object_forms(MIGRATION)
    full, dense, rec, rc = f["full"].tokens, f["dense"].tokens, f["record"].tokens, f["record_cascaded"].tokens
    assert generation_cost(f["full"], f) == 0
    assert generation_cost(f["dense"], f) == full + dense  # one call: read the source, write the rewrite
    assert generation_cost(f["anchor"], f) == full + rec  # a view of the record costs the record
    # the cascaded record reads the dense rewrite, which had to be written first
    assert generation_cost(f["record_cascaded"], f) == (full + dense) + (dense + rc)
    assert generation_cost(f["anchor_cascaded"], f) == generation_cost(f["record_cascaded"], f)
    # the first edition charged the cascaded record only its own call, and its anchor the source record
    assert own_call_generation_cost(f["record_cascaded"], f) == dense + rc
    assert own_call_generation_cost(f["anchor_cascaded"], f) == full + rec


def test_a_shared_intermediate_is_paid_once():
    f = object_forms(MIGRATION)
    both = set_generation_cost(["dense", "record_cascaded"], f)
    assert both == generation_cost(f["record_cascaded"], f)
    assert set_generation_cost(["record", "anchor"], f) == generation_cost(f["record"], f)


def test_a_lineage_with_a_missing_intermediate_is_refused():
    f = object_forms(MIGRATION)
    del f["dense"]
    with pytest.raises(ParameterError, match="form 'dense' is in a lineage but was not produced"):
        lineage("record_cascaded", f)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000), st.sampled_from([0.1, 0.3, 0.7]), st.data())
def test_ledger_invariants_over_random_objects(seed, ratio, data):
    obj = make_object(np.random.default_rng(seed), "x")
    f = object_forms(obj, ratio)
    names = sorted(f)
    for n in names:
        ancestors = lineage(n, f)
        # a form is charged exactly the production of every form in its lineage, each once
        assert generation_cost(f[n], f) == sum(f[m].production_tokens for m in ancestors)
        # and never less than any form it was made from, plus its own call
        for p in f[n].parents:
            assert generation_cost(f[n], f) >= generation_cost(f[p], f) + f[n].production_tokens
        # a model call pays to read its input and write its output
        if f[n].mechanism == "model":
            parent = f[n].parents[0]
            assert f[n].production_tokens == f[parent].tokens + f[n].tokens
        else:
            assert f[n].production_tokens == 0
    subset = data.draw(st.lists(st.sampled_from(names), unique=True, min_size=1))
    extra = data.draw(st.sampled_from(names))
    cost = set_generation_cost(subset, f)
    standalone = [generation_cost(f[n], f) for n in subset]
    assert max(standalone) <= cost <= sum(standalone)  # shared intermediates paid once, none unpaid
    assert set_generation_cost(subset + [extra], f) >= cost  # keeping more never costs less
    closed = set().union(*(lineage(n, f) for n in subset))
    assert set_generation_cost(closed, f) == cost  # closing a set under its lineage adds nothing


@pytest.mark.parametrize("policy", ["full_while_feasible", "obligation_aware", "magic_context_decay"])
def test_a_schedules_generation_is_the_set_cost_of_what_it_keeps(policy):
    traj = generate_trajectory(3, n_turns=12, n_objects=5, n_probes=4, budget_fraction=0.2)
    store = stored_forms(traj)
    pol = make_policy(policy, probes=traj.probes)
    run = run_schedule(traj, pol, store)
    compacted = {k for t in run.turns for k, v in t.applied if v == "compact"}
    expected = 0
    for o in traj.objects:
        kept = [n for n in pol.forms if policy != "full_while_feasible" or n == "full" or o.object_id in compacted]
        expected += set_generation_cost(kept, store.reps[o.object_id])
    assert run.ledger.generation_tokens == expected
