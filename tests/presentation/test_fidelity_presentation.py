"""The progressive-fidelity chapters' tables, figures and glued numbers, through the book's one presentation stack."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from cvlib.core.errors import ParameterError  # noqa: E402
from cvlib.fidelity import (  # noqa: E402
    POLICIES,
    cascade_dominance,
    findings_a,
    findings_b,
    generate_trajectory,
    migration_fixture,
    nominal_order_failures,
    object_forms,
    outcomes_that_count,
    representation_sweep,
    representation_table,
    run_experiment_b,
    sensitivity_a,
    sensitivity_b,
    survival,
    sweep_a,
    sweep_b,
)
from cvlib.presentation import fidelity_figures as F  # noqa: E402
from cvlib.presentation import fidelity_glue as G  # noqa: E402
from cvlib.presentation import fidelity_tables as T  # noqa: E402
from cvlib.presentation import formatting, style  # noqa: E402
from cvlib.presentation.chapters import fidelity_experiment_a as A  # noqa: E402
from cvlib.presentation.chapters import fidelity_experiment_b as B  # noqa: E402
from cvlib.presentation.tables import Table  # noqa: E402


@pytest.fixture(scope="module")
def small_runs():
    a = sweep_a(seeds=[0], n_objects=5, budget_fractions=[0.1, 0.3, 1.0])
    reps, dom, nominal = representation_sweep([0], 5)
    b = sweep_b(seeds=[0], budget_fractions=[0.2, 0.5], n_turns=12, n_objects=5, n_probes=6)
    coupled = sweep_b(
        seeds=[0], budget_fractions=[0.2, 0.5], n_turns=12, n_objects=5, n_probes=6, importance_mode="coupled"
    )
    return a, reps, dom, nominal, b, coupled


def test_schedules_have_one_label_and_one_colour_each():
    assert set(POLICIES) == set(T.SCHEDULE_LABELS) == set(F.SCHEDULE_COLOURS)
    assert set(F.CONDITION_COLOURS) == set(T.CONDITION_LABELS)
    assert set(F.FORM_COLOURS) == set(T.FORM_LABELS)
    assert T.label("obligation_aware") == "Obligation-aware" and T.label("nope") == "nope"


def test_colours_come_from_the_books_style():
    book = set(style.PALETTE.values()) | set(style.SERIES)
    for colours in (F.SCHEDULE_COLOURS, F.CONDITION_COLOURS, F.FORM_COLOURS):
        assert set(colours.values()) <= book
    # the schedule that checks what must stay legal is drawn like the validity-aware executor, the blind compactor like the baseline
    assert F.SCHEDULE_COLOURS["obligation_aware"] == style.PALETTE["validity_aware"]
    assert F.SCHEDULE_COLOURS["full_while_feasible"] == style.PALETTE["baseline"]


def test_tables_are_the_books_tables_with_human_names_and_its_number_formats(small_runs):
    a, reps, dom, _, b, coupled = small_runs
    view = T.condition_table(a, "legal_objects")
    assert isinstance(view, Table)
    assert view.header[0] == "Budget (share of full text)"
    assert [row[0] for row in view.rows] == [formatting.fmt(x, "share") for x in (0.1, 0.3, 1.0)]
    summary = T.policy_summary(b)
    assert summary.header[0] == "Schedule"
    assert {row[0] for row in summary.rows} == set(T.SCHEDULE_LABELS.values())
    means = b.groupby("policy", sort=False)["legality_violations"].mean()
    column = summary.header.index("Legality violations")
    assert [row[column] for row in summary.rows] == [formatting.fmt(v, "tenths") for v in means]
    forms = T.form_table(reps)
    share = forms.header.index("Required checks met")
    assert all(row[share].endswith("%") for row in forms.rows)
    assert "Own call only" in forms.header


def test_every_chapter_table_renders_without_index_or_column_keys(small_runs):
    a, reps, dom, _, b, coupled = small_runs
    found = findings_b(b)
    surv = survival(sensitivity_b(seeds=[0], budget_fractions=[0.3], only=["lead"]))
    df, runs = run_experiment_b(migration_fixture())
    views = [
        T.migration_table(representation_table(migration_fixture())),
        T.form_table(reps),
        T.condition_table(a, "legal_objects"),
        T.comparison_table(a, "tiered_from_source", "three_forms"),
        T.cost_by_condition(a),
        T.findings_table(found, surv),
        T.findings_table(
            findings_a(a, dom), survival(sensitivity_a(seeds=[0], budget_fractions=[0.3], only=["pin_fraction"]))
        ),
        T.policy_summary(b),
        T.failure_table(b),
        T.cost_table(b),
        T.importance_table(b, coupled),
        T.outcomes_table(outcomes_that_count(a, reps, b)),
        T.choices(),
        T.schedule_table(),
        T.probe_table(runs, {"Turn 9": (9, "migration")}),
        T.residency_table(runs, 9, {"migration": "Migration"}, df),
    ]
    for v in views:
        assert isinstance(v, Table)
        assert not any("_" in c for c in v.header)  # human column names
        if v.header[0] != "Name":  # the registry of choices shows each default as written in code
            assert "True" not in repr(v) and "False" not in repr(v)
        assert "<th></th>" not in v._repr_html_()
    assert views[3].header[0] == "Budget"
    assert {row[0] for row in views[0].rows} >= {"Full text", "Structured record"}
    by_mapping = T.residency_table(runs, 9, {"migration": "Migration"}, dict(zip(df["policy"], df["probe_failures"])))
    assert by_mapping == views[-1]
    with pytest.raises(ParameterError, match="has no probe"):
        T.probe_table(runs, {"Turn 99": (99, "migration")})
    with pytest.raises(ParameterError, match="no column"):
        T.condition_table(a.drop(columns=["condition"]), "legal_objects")


def _words_only(fig) -> None:
    legend_text = {t.get_text() for lg in fig.legends for t in lg.get_texts()}
    assert legend_text and not any("_" in t for t in legend_text)  # human words, not column keys


def test_figures_fail_clearly_on_a_table_without_the_columns_they_draw(small_runs):
    a = small_runs[0]
    with pytest.raises(ParameterError, match="lacks column"):
        F.budget_figure(a.drop(columns=["checks_total"]))


def test_glue_values_writes_each_kind_the_books_way(monkeypatch):
    glued: dict[str, str] = {}
    monkeypatch.setattr(formatting, "_glue_text", lambda key, text: glued.__setitem__(key, text))
    G.glue_values(
        {
            "F_B_OA_FAILS": 1.25,
            "F_B_OA_ILLEGAL": 0.04,
            "F_P_DECLARED_FRACTION": 0.5,
            "F_A_CELLS": 1200,
            "F_B_ALL_REPRODUCIBLE": "every",
            "F_B_MIG_FWF_FORM": "compact",
        }
    )
    assert glued == {
        "F_B_OA_FAILS": "1.25",
        "F_B_OA_ILLEGAL": "0.0",
        "F_P_DECLARED_FRACTION": "50%",
        "F_A_CELLS": "1,200",
        "F_B_ALL_REPRODUCIBLE": "every",
        "F_B_MIG_FWF_FORM": "extractive compaction",
    }


def test_the_chapters_value_sets_hold_everything_their_prose_names(small_runs):
    a, reps, dom, nominal, b, coupled = small_runs
    found_a = findings_a(a, dom)
    surv_a = survival(sensitivity_a(seeds=[0], budget_fractions=[0.3], only=["pin_fraction"]))
    va = A.chapter_values(a, reps, dom, nominal, found_a, surv_a, [0, 1])
    assert va["F_A_SENS_SEEDS"] == 2 and "F_P_COMPACT_RATIO" in va and "F_A_CELLS" in va
    found_b = findings_b(b)
    surv_b = survival(sensitivity_b(seeds=[0], budget_fractions=[0.3], only=["lead"]))
    outcomes = outcomes_that_count(a, reps, b)
    vb = B.chapter_values(b, coupled, found_b, surv_b, outcomes)
    counted = vb["F_B_OUTCOMES_PRODUCED"] + vb["F_B_OUTCOMES_NOT_PRODUCED"] + vb["F_B_OUTCOMES_UNTESTABLE"]
    assert counted == len(outcomes)
    assert vb["F_B_OUTCOME_FLAT"] == outcomes.loc[0, "result"]
    assert all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in {**va, **vb}.values())
    for key, kind in G.KINDS.items():
        formatting.quantity(kind)  # every kind named is one the book knows
        assert key.startswith(("F_A_", "F_B_", "F_P_"))


def test_the_numbers_of_experiment_bs_episodes():
    df, runs = run_experiment_b(migration_fixture())
    mig = B.migration_probe_values(runs)
    assert mig["F_B_MIG_OA_T9"] == "passes" and mig["F_B_MIG_FWF_FORM"] in T.FORM_LABELS
    with pytest.raises(ParameterError, match="has no probe"):
        B.migration_probe_values(runs, declared=99)
    with pytest.raises(ParameterError, match="outside"):
        B.quadrant_values(df, runs, turn=500)
    with pytest.raises(ParameterError, match="6 outcomes"):
        B.outcome_values(pd.DataFrame({"result": ["produced"]}))


def test_the_chapters_glued_numbers_are_plain_values():
    a = sweep_a(seeds=[0], n_objects=5, budget_fractions=[0.1, 0.3, 1.0])
    traj = generate_trajectory(0, n_objects=5)
    reps = representation_table(traj)
    b = sweep_b(seeds=[0], budget_fractions=[0.2, 0.5], n_turns=12, n_objects=5, n_probes=6)
    coupled = sweep_b(
        seeds=[0], budget_fractions=[0.2, 0.5], n_turns=12, n_objects=5, n_probes=6, importance_mode="coupled"
    )
    na = A.experiment_values(a, reps, cascade_dominance(traj), nominal_order_failures(traj))
    nb = B.sweep_values(b, coupled)
    mig = representation_table(migration_fixture())
    nm = A.migration_values(mig[mig.object_id == "migration"])
    for d in (na, nb, nm):
        assert all(k.startswith("F_") for k in d)
        assert all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in d.values())
    # the keys the book's introduction cites
    assert {"F_B_OA_ILLEGAL", "F_B_PRESSURE_ILLEGAL", "F_B_OA_FAILS", "F_B_PRESSURE_FAILS"} <= set(nb)
    assert nb["F_B_OA_ILLEGAL"] == 0.0
    assert na["F_A_CELLS"] == 3 and na["F_A_DOM_LINEAGE"] == 0.0
    v = G.verdicts("F_B_", findings_b(b))
    assert set(v.values()) <= {"holds", "does not hold"}
    with pytest.raises(ParameterError, match="lacks column"):
        A.experiment_values(a.drop(columns=["feasible"]), reps, cascade_dominance(traj), nominal_order_failures(traj))


def test_the_migrations_forms_are_printed_under_their_names(capsys):
    forms = object_forms(migration_fixture().obj("migration"))
    A.print_forms(forms, ["record"])
    out = capsys.readouterr().out
    assert out == f"--- {T.label('record')} ({forms['record'].tokens} tokens)\n{forms['record'].text}\n\n"
    with pytest.raises(ParameterError, match=r"no form\(s\) \['nope'\]"):
        A.print_forms(forms, ["record", "nope"])
