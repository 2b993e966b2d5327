"""The chapter "A model in the loop": its tables, forest plot, prompts and glued values, on a recording made by a scripted model."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from _scripted_models import FollowsTheRule, opened_as  # noqa: E402

from cvlib.experiments.agent_study import design  # noqa: E402
from cvlib.experiments.agent_study.design import record_study, study_tasks  # noqa: E402
from cvlib.presentation._study_models import CONTINUED  # noqa: E402
from cvlib.presentation.chapters import model_agent_loop as chapter  # noqa: E402
from cvlib.presentation.formatting import written  # noqa: E402


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | None]:
    folder = tmp_path_factory.mktemp("chapter")
    out = folder / "agent_study.smollm2-135m.jsonl.gz"
    with opened_as(design, FollowsTheRule()):
        record_study("scripted", out, study_tasks()[:14], (0, 1), progress=False)
    found = chapter.study_sources(chapter.MODELS, str(folder))
    assert found["smollm2-135m"] == out and found["qwen2.5-coder-1.5b"] is None
    return found


@pytest.fixture(scope="module")
def study(sources):
    return chapter.read_study(sources)


def test_a_model_without_a_recording_is_not_recorded_yet(study, sources) -> None:
    assert study.models == ("smollm2-135m",)
    coverage = chapter.coverage_table(study, sources)
    assert coverage.header[0] == "Model"
    assert any("not recorded yet" in row for row in coverage.rows)
    verdicts = chapter.verdict_table(study, chapter.MODELS)
    assert any("not recorded yet" in row for row in verdicts.rows)


def test_the_limits_say_which_recordings_are_short_of_the_plan(study, sources, monkeypatch) -> None:
    sentence = chapter.coverage_sentence(study, sources)
    assert "SmolLM2-135M repeat 0 has 14 of 200 tasks" in sentence
    assert "SmolLM2-135M repeat 2 has 0 of 200 tasks" in sentence
    assert "Qwen2.5-Coder-1.5B repeat 0 has 0 of 200 tasks" in sentence
    assert chapter.recording_state(study, sources).startswith("The recordings were still being made")
    monkeypatch.setattr(design, "STALE_TASKS", 10)
    monkeypatch.setattr(design, "CONTROL_TASKS", 4)
    monkeypatch.setattr(design, "PLANNED_REPEATS", {"smollm2-135m": (0, 1)})
    whole = {"smollm2-135m": sources["smollm2-135m"]}
    assert chapter.coverage_sentence(study, whole) == "every recording of the plan is whole, all 14 tasks in each: SmolLM2-135M repeats 0, 1"
    assert chapter.recording_state(study, whole).startswith("Every group the plan names was recorded")
    own = chapter.coverage_sentence(chapter.read_study({"my-model": None}), {"my-model": None})
    assert own == "this page reads a new recording (my-model: 0 tasks in the greedy repeat), not the plan's"
    assert "reader's own recording" in chapter.recording_state(chapter.read_study({"my-model": None}), {"my-model": None})
    reader = chapter.coverage_sentence(study, whole, reader=True)
    assert reader == "this page reads a new recording (SmolLM2-135M: 14 tasks in the greedy repeat), not the plan's"
    assert "reader's own recording" in chapter.recording_state(study, whole, reader=True)


def test_the_option_order_sentence_counts_answers_preferred_when_listed_first(study) -> None:
    import pandas as pd

    rows = pd.DataFrame({"model": ["smollm2-135m"] * 3, "answer": ["EXECUTE", "REPLAN", "VERIFY"],
                         "first_share": [0.7, 0.1, 0.3], "later_share": [0.6, 0.2, 0.3]})
    made = chapter.bias_sentence(replace(study, bias=rows))
    assert made == "SmolLM2-135M: 1 of 3 answers chosen more often when listed first than later (EXECUTE)"
    assert chapter.bias_sentence(replace(study, bias=rows.iloc[:0])).startswith("no sampled repeat")


def test_every_table_renders(study) -> None:
    for kind, metrics in (("primary", ["pre_failure_work"]), ("reference", ["pre_failure_work", "completed"]),
                          ("control", ["verifications", "steps_used"]), ("probe", ["correct"])):
        table = chapter.effects_table(study, kind, metrics)
        assert table.header[4].startswith("Mean difference")
    assert chapter.effects_table(study).rows and chapter.levels_table(study).rows
    for made in (chapter.levels_table(study, stale_fact=False), chapter.mcnemar_table(study), chapter.shares_table(study),
                 chapter.probe_table(study), chapter.bias_table(study)):
        assert made.header


def test_the_forest_plot_has_one_row_per_model_and_contrast(study) -> None:
    from cvlib.presentation.style import figure_problems

    figure = chapter.forest_figure(study)
    assert len(figure.axes) == 2 and figure_problems(figure) == []


def test_glued_values_quote_the_main_model_and_the_front_page_key(study, sources) -> None:
    values = chapter.chapter_values(study, sources, "smollm2-135m")
    texts = written(values)
    assert texts["AL_preregistration"] == chapter.PREREGISTRATION_COMMIT
    assert texts["AL_tasks"] == texts["AL_main_stale"] == texts["AL_s135_stale"]
    assert texts["AL_q15_finding"].endswith("not recorded yet")
    assert "by construction" in texts["AL_main_finding"] and "by instruction" in texts["AL_main_finding"]
    assert written(chapter.chapter_values(chapter.read_study(sources), sources, "smollm2-135m")) == texts  # same bytes


def test_a_tiny_recording_says_its_intervals_are_not_computable(sources) -> None:
    from cvlib.models.recording import read_recording

    records = read_recording(sources["smollm2-135m"])
    first = next(r.run for r in records if r.task["stale_fact"] and r.task["repeat"] == 0)
    one = [r for r in records if r.run == first]
    study = chapter.analyse({"smollm2-135m": one})
    texts = written(chapter.chapter_values(study, {"smollm2-135m": None}, "smollm2-135m"))
    assert "not computable" in texts["AL_main_read_pfw"]


def test_the_prompts_are_shown_whole_for_every_arm(sources) -> None:
    shown = chapter.conversations(sources, "smollm2-135m")
    assert set(shown) == {"transcript", "labelled", "told", "enforced"}
    assert shown["told"].startswith("[system]") and "Rule: do not EXECUTE" in shown["told"]
    assert "Rule: do not EXECUTE" not in shown["labelled"]
    assert chapter.conversations(sources, "qwen2.5-coder-1.5b") == {}


def test_no_glued_phrase_writes_a_zero_width_interval_as_an_interval(study, sources) -> None:
    for key, text in written(chapter.chapter_values(study, sources, "smollm2-135m")).items():
        assert "0.00 (0.00 to 0.00)" not in text and "(0 to 0)" not in text, (key, text)


def test_the_prompts_show_the_shared_turn_once_and_fold_each_whole_conversation(sources) -> None:
    shown = chapter.prompts_markdown(sources, "smollm2-135m")
    whole = chapter.conversations(sources, "smollm2-135m")
    system = whole["told"].split("\n\n")[0]
    assert shown.count("The system turn, the same in every arm") == 1
    assert shown.count("<details") == 4 and shown.count("</details>") == 4
    assert "+ Rule: do not EXECUTE" in shown  # the told arm's difference from the labelled one
    assert "`enforced`**: the same prompt as `told`, byte for byte" in shown
    blocks = re.findall(r"```text\n(.*?)\n```", shown, flags=re.S)
    assert blocks and all(len(line) <= 76 for block in blocks for line in block.splitlines())
    assert " ".join(system.split()[1:]) in " ".join(shown.replace(CONTINUED, "").split())  # wrapped, not cut
    assert chapter.prompts_markdown(sources, "qwen2.5-coder-1.5b") == "No stale-fact task of this recording is whole yet."


def test_the_predictions_table_is_folded_behind_its_verdict_counts(study) -> None:
    made = chapter.verdict_table(study, list(chapter.MODELS))
    assert made.collapsed == (len(made.rows) > 12)
    total = sum(int(n) for n in re.findall(r": (\d+)", made.summary or ""))
    assert total == len(made.rows)
