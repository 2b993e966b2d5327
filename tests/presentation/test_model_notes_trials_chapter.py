"""The chapter "Small coding models and stale notes": tables, figures, prompts and glued values, on a scripted recording."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from _scripted_models import HoldsBackWhenRefuted, opened_as  # noqa: E402

from cvlib.experiments.notes_study import design as nd  # noqa: E402
from cvlib.experiments.notes_study import load_refutations, load_stale_effects, load_tasks  # noqa: E402
from cvlib.experiments.notes_study.analysis import NOT_RECORDED  # noqa: E402
from cvlib.presentation.chapters import model_notes_trials as chapter  # noqa: E402
from cvlib.presentation.formatting import written  # noqa: E402
from cvlib.presentation.style import figure_problems  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "model_trials"
TASKS = load_tasks(DATA / "notes_tasks.yaml")
EFFECTS = load_stale_effects(str(DATA / "notes_stale_effects.yaml"))
REFUTATIONS = {k: r for k, r in load_refutations(DATA / "notes_refutations.yaml").items() if r.verified}


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    folder = tmp_path_factory.mktemp("notes_chapter")
    out = folder / "notes_study.qwen2.5-coder-0.5b.jsonl.gz"
    with opened_as(nd, HoldsBackWhenRefuted(TASKS, true_edits=True)):
        nd.record_notes_study("scripted", out, nd.study_order(TASKS)[:6], [("unrefutable", 0), ("refutable", 0)],
                              refutations=REFUTATIONS, effects=EFFECTS, progress=False)
    found = chapter.study_sources(chapter.MODELS, str(folder))
    assert found["qwen2.5-coder-0.5b"] == [out] and found["qwen2.5-coder-1.5b"] == [] and found["smollm2-135m"] == []
    return found


@pytest.fixture(scope="module")
def study(sources):
    return chapter.read_study(sources, TASKS, EFFECTS, ROOT / "data" / "code_history", DATA / "notes_audit.csv")


def test_the_coverage_says_what_is_recorded_and_what_is_not(study, sources) -> None:
    text = str(chapter.coverage_table(study, sources))
    assert text.count(NOT_RECORDED) == 2 + 4 + 2  # SmolLM2, the 0.5B model's sampled repeats, the 1.5B model
    assert "recorded" in text and "Qwen2.5-Coder-1.5B" in text


def test_every_table_renders_on_a_partial_study(study) -> None:
    for make in (chapter.shares_table, chapter.effects_table, chapter.contrasts_table, chapter.gate_table,
                 chapter.kinds_table, chapter.other_table, chapter.audit_table, chapter.predictions_table,
                 chapter.trials_table):
        assert str(make(study)), make.__name__
    effects = str(chapter.effects_table(study))
    assert "−100 points" in effects  # the scripted model holds back whenever it is refuted


def test_the_figures_fit_the_column(study) -> None:
    for make in (chapter.effects_figure, chapter.outcomes_figure):
        fig = make(study)
        assert not figure_problems(fig), (make.__name__, figure_problems(fig))


def test_glued_values_say_not_recorded_yet_and_are_deterministic(study, sources) -> None:
    values = chapter.chapter_values(study, TASKS, len(REFUTATIONS), "qwen2.5-coder-0.5b")
    assert values["MN_tasks"] == (6, "count") and values["MN_preregistration"][0] == chapter.PREREGISTRATION_COMMIT
    assert values["MN_q15_finding"][0] == f"Qwen2.5-Coder-1.5B: {NOT_RECORDED}"
    assert values["MN_q05_refute"][0] == "−100 points on each of the 6 tasks"  # every task's difference, so n is said
    assert values["MN_gate_withheld"][0] + values["MN_gate_shown"][0] == len(TASKS)
    assert NOT_RECORDED in values["MN_NP4"][0]
    again = chapter.read_study(sources, TASKS, EFFECTS, ROOT / "data" / "code_history", DATA / "notes_audit.csv")
    assert written(values) == written(chapter.chapter_values(again, TASKS, len(REFUTATIONS), "qwen2.5-coder-0.5b"))


def test_the_prompts_show_every_arm_in_both_variants() -> None:
    example = next(t for t in nd.study_order(TASKS) if t.id in REFUTATIONS)
    text = chapter.prompts_markdown(example, REFUTATIONS[example.id])
    assert text.count("````text") == 12 and text.count("[system]") == 12 and "{dropdown}" not in text
    assert text.count("A test from the project's checks") == 6


def test_a_difference_of_one_point_is_singular() -> None:
    from cvlib.presentation.chapters.model_notes_trials import _points

    assert _points(-0.0101, -0.06, 0.04) == "−1 point (−6 to +4)"
    assert _points(0.01, 0.0, 0.1).startswith("+1 point (")
    assert _points(-0.11, -0.2, 0.0).startswith("−11 points (")
    assert _points(0.0, 0.0, 0.0) == "0 points (0 to 0)"


def test_no_glued_phrase_writes_a_zero_width_interval_as_an_interval(study) -> None:
    texts = written(chapter.chapter_values(study, TASKS, len(REFUTATIONS), "qwen2.5-coder-0.5b"))
    for key, text in texts.items():
        assert "(0 to 0)" not in text and "0.00 to 0.00" not in text, (key, text)
        assert "tasks tasks" not in text and " 1 tasks" not in text, (key, text)


def test_long_tables_fold_behind_a_summary_and_no_header_is_a_raw_name(study) -> None:
    for made in (chapter.effects_table(study), chapter.contrasts_table(study), chapter.kinds_table(study),
                 chapter.predictions_table(study), chapter.trials_table(study)):
        assert made.summary and made.collapsed == (len(made.rows) > 12), made.summary
        assert not [h for h in made.header if "_" in h], made.header


def test_the_printed_prompts_fit_the_column_and_mark_each_wrapped_line() -> None:
    import re

    from cvlib.presentation._study_models import CONTINUED, prompt_block

    long = "    x = call(" + ", ".join(f"argument_{k}" for k in range(12)) + ")"
    shown = prompt_block(f"short line\n{long}\n```python\nend\n```")
    body = re.search(r"^(`{4,})text\n(.*)\n\1$", shown, flags=re.S)
    assert body, shown  # a longer fence than the one inside
    lines = body.group(2).splitlines()
    assert lines[0] == "short line" and all(len(line) <= 76 for line in lines)
    assert lines[2].startswith("    " + CONTINUED)  # the indentation kept, the continuation marked
    assert len(lines[1:-3]) > 1 and all(line.startswith("    " + CONTINUED) for line in lines[2:-3])
    assert " ".join(line.strip().removeprefix(CONTINUED) for line in lines[1:-3]) == long.strip()
