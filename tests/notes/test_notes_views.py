"""The notes chapters' modules (cvlib/presentation/chapters/notes_*.py): tables and glued numbers agree with the replay they come from."""

from __future__ import annotations

import pandas as pd
import pytest

from cvlib.core.errors import ParameterError
from cvlib.notes import history as nh
from cvlib.notes import replay, views
from cvlib.notes import trials as nt
from cvlib.presentation.chapters import notes_published_trials as trials_chapter
from cvlib.presentation.chapters import notes_release_history as chapter
from cvlib.repository import data_path


@pytest.fixture(scope="module")
def replayed():
    return replay.replay_projects(["requests", "rpds-py"], data_path("code_history"))


def test_projects_are_pooled_by_language(replayed):
    assert replayed.languages == {"Python": ["requests"], "Rust": ["rpds-py"]}
    gates = chapter.gates_table(replayed).set_index("Project")
    assert list(gates.index) == ["Requests", "rpds-py", "Python, pooled", "Rust, pooled", "all projects"]
    assert gates.loc["Python, pooled"].equals(gates.loc["Requests"])
    assert gates.loc["all projects", "Note-steps"] == gates.loc["Requests", "Note-steps"] + gates.loc["rpds-py", "Note-steps"]


def test_withheld_kinds_add_up_to_each_gates_load(replayed):
    kinds = chapter.kinds_table(replayed).set_index(["Project", "Gate"])
    gates = chapter.gates_table(replayed).set_index("Project")
    columns = {"symbol-only": "Withheld per 100, symbol-only", "wide": "Withheld per 100, wide", "precise": "Withheld per 100, precise"}
    for (project, gate), row in kinds.iterrows():
        assert row[list(nh.WITHHELD_KINDS)].sum() == pytest.approx(gates.loc[project, columns[gate]])
    assert (kinds.xs("symbol-only", level="Gate")[["module name", "class member"]] == 0).all().all()


def test_release_numbers_are_the_tables_numbers(replayed):
    numbers = chapter.release_numbers(replayed)
    t = nh.gate_totals(replayed.replayed, replayed.languages).set_index("project")
    assert numbers["N_load_ratio"] == (pytest.approx(t.loc["all", "withheld_dependency"] / t.loc["all", "withheld_symbol"]), "ratio")
    assert numbers["N_rpds_py_per100_symbol"][0] == pytest.approx(t.loc["rpds-py", "per_100_symbol"])
    assert numbers["N_projects"] == (2, "count")
    assert "N_story_methods" not in numbers  # Flask is not replayed here: no story told
    assert all(isinstance(kind, str) for _, kind in numbers.values())


def test_formats_name_only_columns_the_table_shows(replayed):
    for table in (chapter.gates_table(replayed), chapter.step_shares_table(replayed), chapter.survival_table(replayed),
                  chapter.review_table(replayed), chapter.horizon_table(replayed), chapter.worst_steps_table(replayed)):
        assert set(chapter.formats(table)) <= set(table.columns)


def test_fallbacks_are_counted_per_language(replayed):
    from cvlib.notes import python, rust

    table = chapter.fallback_table(replayed)
    assert list(table.columns) == ["Language", "Reason", "Requests", "rpds-py"]
    by_reason = table.set_index("Reason")
    for project in ("Requests", "rpds-py"):
        assert by_reason.loc["all reasons", project] == by_reason.drop(index="all reasons")[project].sum() > 0
    python_rows = table[table["Language"] == "Python"]
    rust_rows = table[table["Language"] == "Rust"]
    assert list(python_rows["Reason"]) == list(python.FALLBACK_REASONS)
    assert list(rust_rows["Reason"]) == list(rust.FALLBACK_REASONS)
    assert (python_rows["rpds-py"] == 0).all() and (rust_rows["Requests"] == 0).all()
    numbers = chapter.release_numbers(replayed)
    assert numbers["N_fallback_steps"][0] == by_reason.loc["all reasons", "Requests"]
    assert numbers["N_rust_fallback_steps"][0] == by_reason.loc["all reasons", "rpds-py"]


def test_duplicates_need_a_python_project():
    rust = replay.replay_projects(["rpds-py", "jiter"], data_path("code_history"))
    with pytest.raises(ParameterError, match="at least one Python project"):
        chapter.duplicates_table(rust)


def test_trial_views_keep_the_published_counts():
    counts = nt.with_intervals(nt.load_trials(data_path("notes_trials/published_counts.csv")), confidence=0.95)
    numbers = trials_chapter.trial_numbers(counts, 0.95)
    assert numbers["N_label_glm_count"] == (113, "count") and numbers["N_label_glm_total"] == (120, "count")
    arms = counts[counts["table"] == "arms"].reset_index(drop=True)
    table = trials_chapter.arms_table(arms)
    assert table["Count"].iloc[0].startswith(f"{arms['count'].iloc[0]} of {arms['total'].iloc[0]}")
    assert isinstance(trials_chapter.provenance_table(arms, 0.5), pd.DataFrame)


def test_the_old_views_module_still_imports_the_science():
    assert views.replay_projects is replay.replay_projects and views.totals is replay.totals
    assert views.policy_curves is nt.policy_curves and views.ARM_NAMES is nt.ARM_NAMES
