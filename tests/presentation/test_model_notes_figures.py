"""The notes-trial chapter's figure and tables, on a small hand-made set of outcomes."""

from __future__ import annotations

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments import notes_study as nt
from cvlib.presentation import model_notes_figures as mnf
from cvlib.presentation.style import figure_problems


def outcomes():
    lines = []
    for k, kind in enumerate(["ordering", "security", "API contract"]):
        for arm in nt.ARMS:
            outcome = "stale_edit" if arm in nt.STALE_ARMS and k < 2 else "true_edit" if arm == "true_note" else "unchanged"
            lines.append({"experiment": nt.EXPERIMENT, "task": {"id": f"t{k}", "rule_kind": kind}, "arm": arm,
                          "outcome": {"outcome": outcome}})
    return nt.task_outcomes(lines)


def test_arms_figure_is_readable_and_has_one_bar_per_arm():
    import matplotlib.pyplot as plt

    fig = mnf.arms_figure(nt.arm_summary(outcomes()), 0.95)
    assert figure_problems(fig) == []
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [nt.ARM_LABELS[a] for a in nt.ARMS]
    plt.close(fig)


def test_tables_name_every_arm_and_count_tasks():
    summary = nt.arm_summary(outcomes())
    text = str(mnf.arms_table(summary, 0.95))
    assert all(nt.ARM_LABELS[a] in text for a in nt.ARMS)
    kinds = str(mnf.kinds_table(nt.kind_summary(outcomes())))
    assert "ordering" in kinds and "security" in kinds
    grid = str(mnf.tasks_table(nt.task_grid(outcomes())))
    assert "stale edit" in grid and "t2" in grid


def test_chapter_values_are_the_summary_counts():
    values = mnf.chapter_values(nt.arm_summary(outcomes()), outcomes(), 0.95)
    assert values["MN_tasks"] == (3, "count")
    assert values["MN_dependency_changed_count"] == (2, "count")
    assert values["MN_stale_edits"] == (6, "count") and values["MN_stale_trials"] == (9, "count")
    assert values["MN_withheld_count"] == (0, "count")
    assert values["MN_true_pct"][0] == 1.0


def test_figures_refuse_an_empty_summary():
    with pytest.raises(ParameterError):
        mnf.arms_figure(nt.arm_summary(outcomes()).iloc[0:0], 0.95)


def test_two_models_compare_on_the_tasks_both_completed():
    first = outcomes()
    second = first[~((first["task"] == "t2") & (first["arm"] == "withheld"))].copy()  # t2 unfinished
    second.loc[second["arm"] == "stale_labelled", "outcome"] = "unchanged"
    comparison = nt.compare_models({"small": first, "large": second})
    assert set(comparison["tasks"]) == {2}
    rows = comparison.set_index(["model", "arm"])
    assert rows.loc[("small", "stale_labelled"), "stale_edit"] == 2
    assert rows.loc[("large", "stale_labelled"), "stale_edit"] == 0
    text = str(mnf.models_table(comparison, 0.95))
    assert "small: stale edits" in text and "large: right outcome" in text
    values = mnf.comparison_values(comparison, ("0.5B", "1.5B"))
    assert values["MN_cmp_tasks"] == (2, "count") and values["MN_cmp_model_1"] == ("1.5B", "text")
    assert values["MN_cmp_1_stale_labelled"] == (0, "count")
    assert values["MN_cmp_0_gap"] == (2 - values["MN_cmp_0_withheld"][0], "count")
    assert values["MN_cmp_1_gap"][0] <= 0 and values["MN_cmp_gap_verdict"][0] in ("closed", "narrowed")
    dashes = mnf.comparison_values(None)
    assert set(dashes) == set(values) and {v for v, _ in dashes.values()} == {"–"}
    with pytest.raises(ParameterError):
        nt.compare_models({})
