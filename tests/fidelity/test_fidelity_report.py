"""The chapters' apparatus in the fidelity package: the registry of choices, what a run shows (folds, probe outcomes) and the sensitivity sweep."""

import pytest

from cvlib.core.errors import ParameterError
from cvlib.fidelity import (
    generate_trajectory,
    make_policy,
    run_schedule,
    sensitivity_a,
    sensitivity_b,
    stored_forms,
    survival,
)
from cvlib.fidelity import numbers as N
from cvlib.fidelity import params as P


def test_every_choice_names_its_owner_and_the_books_choices_have_alternatives():
    t = P.choices_table()
    assert list(t.columns) == ["name", "default", "owner", "meaning", "alternatives"]
    assert t["name"].is_unique and set(t["owner"]) <= set(P.OWNERS)
    for c in P.book_choices():
        assert c.default not in c.alternatives
    named = {c.name for c in P.book_choices()}
    assert {"age_thresholds", "related_weight", "fold_every", "compact_ratio", "importance_mode"} <= named
    assert P.choice("mc_h50").owner == "Magic Context"
    with pytest.raises(ParameterError, match="unknown choice 'nope'"):
        P.choice("nope")
    with pytest.raises(ParameterError, match="owner"):
        P.Choice("x", 1, "someone", "m")


def test_fold_helpers():
    traj = generate_trajectory(1, n_turns=10, n_objects=4, n_probes=3, budget_fraction=0.3)
    store = stored_forms(traj)
    port = make_policy("magic_context_decay")
    run = run_schedule(traj, port, store)
    folds = N.fold_turns(port, run)
    assert folds[0] == traj.admitted_at[0]
    assert sum(N.fold_reasons(port, run).values()) == len(folds)
    variant = make_policy("book_decay", fold_every=3)
    assert N.fold_turns(variant, run_schedule(traj, variant, store)) == [0, 3, 6, 9]
    with pytest.raises(ParameterError, match="has no folds"):
        N.fold_turns(make_policy("pressure_only"), run)
    assert N.probe_outcome(run, run.probes[0].turn, run.probes[0].object_id) in ("passes", "fails")
    with pytest.raises(ParameterError, match="has no probe"):
        N.probe_outcome(run, 99, "nobody")


def test_sensitivity_varies_one_choice_at_a_time():
    sens = sensitivity_b(seeds=[0], budget_fractions=[0.3], only=["lead", "importance_mode"])
    assert list(dict.fromkeys(sens["parameter"])) == ["defaults", "lead", "importance_mode"]
    assert set(sens[sens.parameter == "importance_mode"]["value"]) == {"coupled"}
    surv = survival(sens)
    assert set(surv["key"]) == set(sens["key"])
    assert (surv["variations"] == 3).all()
    assert surv.set_index("key").loc["oa_legal", "holds_under"] == 3  # by construction: under every variation
    with pytest.raises(ParameterError, match="cannot vary"):
        sensitivity_b(seeds=[0], budget_fractions=[0.3], only=["mc_h50"])
    sa = sensitivity_a(seeds=[0], budget_fractions=[0.1, 0.5], only=["pin_fraction"])
    assert set(sa["parameter"]) == {"defaults", "pin_fraction"}
