"""The chapters' apparatus: the registry of choices, tables, figures, glued numbers and the sensitivity sweep."""

import pandas as pd
import pytest

from cvlib.core.errors import ParameterError
from cvlib.fidelity import (
    POLICIES,
    cascade_dominance,
    findings_b,
    generate_trajectory,
    make_policy,
    migration_fixture,
    nominal_order_failures,
    outcomes_that_count,
    representation_table,
    run_schedule,
    sensitivity_a,
    sensitivity_b,
    stored_forms,
    survival,
    sweep_a,
    sweep_b,
    table,
)
from cvlib.fidelity import figures as F
from cvlib.fidelity import numbers as N
from cvlib.fidelity import params as P
from cvlib.fidelity.tables import POLICY_LABELS


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


def test_table_shows_human_names_and_no_index():
    df = pd.DataFrame({"policy": ["obligation_aware", "age_only"], "fails": [1.234, 2.0], "ok": [True, False], "n": [1200, 3]})
    view = table(df, {"policy": "Schedule", "fails": "Probe failures", "ok": "Legal", "n": "Tokens"}, {"fails": ".1f"}, {"policy": POLICY_LABELS})
    assert list(view.frame.columns) == ["Schedule", "Probe failures", "Legal", "Tokens"]
    assert view.frame.iloc[0].tolist() == ["Obligation-aware", "1.2", "yes", "1,200"]
    html = view._repr_html_()
    assert "<th>Schedule</th>" in html and "dataframe" in html and "<tbody>" in html
    assert "<th></th>" not in html  # no index column
    assert repr(view) == repr(table(df, {"policy": "Schedule", "fails": "Probe failures", "ok": "Legal", "n": "Tokens"}, {"fails": ".1f"}, {"policy": POLICY_LABELS}))
    with pytest.raises(ParameterError, match="no column"):
        table(df, {"nope": "X"})
    with pytest.raises(ParameterError, match="not shown"):
        table(df, {"n": "Tokens"}, {"fails": ".1f"})


@pytest.fixture(scope="module")
def small_runs():
    a = sweep_a(seeds=[0], n_objects=5, budget_fractions=[0.1, 0.3, 1.0])
    traj = generate_trajectory(0, n_objects=5)
    reps = representation_table(traj)
    b = sweep_b(seeds=[0], budget_fractions=[0.2, 0.5], n_turns=12, n_objects=5, n_probes=6)
    coupled = sweep_b(seeds=[0], budget_fractions=[0.2, 0.5], n_turns=12, n_objects=5, n_probes=6, importance_mode="coupled")
    return a, traj, reps, b, coupled


def _readable(fig):
    """Every figure is drawn 6.5 inches wide, and no text on it is smaller than 9 points."""
    assert fig.get_size_inches()[0] == pytest.approx(6.5)
    sizes = [t.get_fontsize() for t in fig.findobj(lambda o: hasattr(o, "get_fontsize") and hasattr(o, "get_text")) if t.get_text()]
    assert sizes and min(sizes) >= 9


def test_figures_are_readable_and_speak_in_words(small_runs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, traj, reps, b, _ = small_runs
    store = stored_forms(traj)
    runs = {p: run_schedule(traj, make_policy(p), store) for p in ("magic_context_decay", "book_decay")}
    folds = {p: N.fold_turns(make_policy(p), r) for p, r in runs.items()}
    sens = pd.DataFrame(
        {"parameter": ["defaults", "lead"], "value": ["", "1"], "key": ["oa_legal", "oa_legal"], "holds": [True, False]}
    )
    for fig in (
        F.operating_points_figure(reps),
        F.budget_figure(a),
        F.probe_failures_figure(b),
        F.legality_figure(b),
        F.fold_trace_figure(traj, runs, folds),
        F.sensitivity_figure(sens, {"oa_legal": "never illegal"}),
    ):
        _readable(fig)
        legend_text = {t.get_text() for lg in fig.legends for t in lg.get_texts()}
        assert legend_text and not any("_" in t for t in legend_text)  # human words, not column keys
        plt.close(fig)
    with pytest.raises(ParameterError, match="lacks column"):
        F.budget_figure(a.drop(columns=["checks_total"]))


def test_glued_numbers_are_plain_values(small_runs):
    a, traj, reps, b, coupled = small_runs
    na = N.numbers_a(a, reps, cascade_dominance(traj), nominal_order_failures(traj))
    nb = N.numbers_b(b, coupled)
    mig = representation_table(migration_fixture())
    nm = N.numbers_migration(mig[mig.object_id == "migration"])
    for d in (na, nb, nm):
        assert all(k.startswith("F_") for k in d)
        assert all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in d.values())
    # the keys the book's introduction cites
    assert {"F_B_OA_ILLEGAL", "F_B_PRESSURE_ILLEGAL", "F_B_OA_FAILS", "F_B_PRESSURE_FAILS"} <= set(nb)
    assert nb["F_B_OA_ILLEGAL"] == 0.0
    assert na["F_A_CELLS"] == 3 and na["F_A_DOM_NOW"] == 0.0
    v = N.verdicts("F_B_", findings_b(b))
    assert set(v.values()) <= {"holds", "does not hold"}


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


def test_policies_have_labels_and_colours():
    assert set(POLICIES) == set(POLICY_LABELS) == set(F.POLICY_COLOURS)


def test_the_chapters_tables_render_with_human_headers(small_runs):
    from cvlib.fidelity import representation_sweep, run_experiment_b, tables
    from cvlib.fidelity.findings import findings_a

    a, traj, reps, b, coupled = small_runs
    reps3, dom, _ = representation_sweep([0], 5)
    mig = representation_table(migration_fixture()).query("object_id == 'migration'")
    found = findings_b(b)
    surv = survival(sensitivity_b(seeds=[0], budget_fractions=[0.3], only=["lead"]))
    df, runs = run_experiment_b(migration_fixture())
    views = [
        tables.migration_table(mig),
        tables.form_table(reps3),
        tables.condition_table(a, "legal_objects"),
        tables.comparison_table(a, "tiered_from_source", "three_forms"),
        tables.cost_by_condition(a),
        tables.findings_table(found, surv),
        tables.findings_table(findings_a(a, dom), survival(sensitivity_a(seeds=[0], budget_fractions=[0.3], only=["pin_fraction"]))),
        tables.policy_summary(b),
        tables.failure_table(b),
        tables.cost_table(b),
        tables.importance_table(b, coupled),
        tables.outcomes_table(outcomes_that_count(a, reps, b)),
        tables.choices(),
        tables.schedule_table(),
        tables.probe_table(runs, {"Turn 9": (9, "migration")}),
        tables.residency_table(runs, 9, {"migration": "Migration"}, df.set_index("policy")["probe_failures"]),
    ]
    for v in views:
        assert not any("_" in c for c in v.frame.columns)  # human column names
        assert "<th></th>" not in v._repr_html_()
    assert list(views[3].frame.columns)[0] == "Budget"
    with pytest.raises(ParameterError, match="has no probe"):
        tables.probe_table(runs, {"Turn 99": (99, "migration")})
