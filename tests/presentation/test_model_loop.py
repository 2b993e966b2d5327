"""The agent-loop chapter's results: read from a recording, references on the same tasks, readable figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from cvlib.core.errors import ParameterError  # noqa: E402
from cvlib.experiments.agent_study import chapter_recording  # noqa: E402
from cvlib.presentation import model_loop  # noqa: E402
from cvlib.presentation.style import figure_problems  # noqa: E402

SMALL = "data/model_trials/agent_loop.smollm2-135m.jsonl"


@pytest.fixture(scope="module")
def runs():
    return model_loop.agent_loop_runs(SMALL)


def test_references_run_on_exactly_the_recorded_tasks(runs) -> None:
    per_executor = runs.groupby("executor", observed=True)["task"].apply(frozenset)
    assert list(per_executor.index) == list(model_loop.EXECUTORS)
    assert len(set(per_executor)) == 1  # every executor on the same tasks
    base = runs[runs["executor"] == "baseline"].set_index("scenario")
    assert base.loc["A", "pre_failure_work"] == 2 and base.loc["C", "pre_failure_work"] == 0


def test_summary_counts_and_intervals(runs) -> None:
    summary = model_loop.agent_loop_summary(runs)
    row = summary.set_index("executor").loc["model_transcript"]
    assert row["tasks"] == 2 and row["decisions"] == runs.loc[runs["executor"] == "model_transcript", "decisions"].sum()
    assert row["pfw_low"] <= row["pfw"] <= row["pfw_high"]
    assert 0 <= row["completion_low"] <= row["completion"] <= row["completion_high"] <= 1
    values = model_loop.chapter_values(summary, model_loop.recording_facts(SMALL, runs), model_loop.budget_completion(runs))
    assert values["AL_tasks"] == (2, "count") and values["AL_named"] == (2, "count")
    assert "AL_gated_pfw" in values and "AL_va_lowest_budget" in values


def test_figure_and_tables_are_readable(runs) -> None:
    summary = model_loop.agent_loop_summary(runs)
    figure = model_loop.agent_loop_figure(summary)
    assert figure_problems(figure) == []
    table = model_loop.summary_table(summary)
    assert table.header[0] == "Executor" and len(table.rows) == len(model_loop.EXECUTORS)
    budgets = model_loop.budget_table(model_loop.budget_completion(runs))
    assert budgets.header[0] == "Budget"


def test_each_arm_shows_its_whole_conversation() -> None:
    shown = model_loop.shown_conversations(SMALL, "A")
    assert list(shown) == ["transcript", "labelled", "gated"]
    assert shown["gated"].startswith("[system]") and "EXECUTE is not allowed" in shown["gated"]
    assert "SUPERSEDED" not in shown["transcript"].split("[user]", 1)[1]
    with pytest.raises(ParameterError, match="no run of scenario 'D3'"):
        model_loop.shown_conversations(SMALL, "D3")


def test_a_missing_recording_is_one_line() -> None:
    with pytest.raises(ParameterError, match="does not exist"):
        chapter_recording("data/model_trials/none.jsonl")
