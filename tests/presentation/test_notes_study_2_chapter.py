"""The notes study's second edition as pages: tables on small built inputs, the status against the plan, errors, blindness."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study import second_design as sd
from cvlib.experiments.notes_study import second_predictions as sp
from cvlib.experiments.notes_study.second_tasks import load_second_edition
from cvlib.presentation import notes_study_2_tables as tables
from cvlib.presentation.chapters import notes_study_2 as chapter
from tests._scripted_models import StaleUnlessRefuted

ROOT = Path(__file__).resolve().parents[2]
EDITION = load_second_edition(ROOT / "data" / "model_trials")
COLUMNS = ["model", "task", "rule_kind", "variant", "repeat", "arm", "outcome", "strict", "echo", "reason"]


def answers(rows: list[tuple[str, str, str, int, str, str]], strict: dict[int, str] | None = None,
            echo: set[int] | None = None) -> pd.DataFrame:
    """Built outcomes: (model, task, variant, repeat, arm, outcome) rows, the strict reading the same unless given."""
    frame = pd.DataFrame([{"model": m, "task": t, "rule_kind": "api", "variant": v, "repeat": r, "arm": a, "outcome": o,
                           "strict": (strict or {}).get(i, o), "echo": i in (echo or set()), "reason": ""}
                          for i, (m, t, v, r, a, o) in enumerate(rows)], columns=COLUMNS)
    return frame.assign(stale=frame["outcome"] == "stale_edit", held_back=frame["outcome"].isin(("unchanged", "declined")))


def paired(model: str, n: int, first: tuple[str, str], second: tuple[str, str], first_stale: int, second_stale: int):
    """n tasks, greedy: ``first_stale`` of them stale in first (variant, arm), ``second_stale`` in second."""
    rows = []
    for i in range(n):
        rows.append((model, f"t{i:02d}", first[0], 0, first[1], "stale_edit" if i < first_stale else "unchanged"))
        rows.append((model, f"t{i:02d}", second[0], 0, second[1], "stale_edit" if i < second_stale else "declined"))
    return rows


# -- status ------------------------------------------------------------------------------------------------------
def test_the_plan_has_184_greedy_groups_per_model_and_two_sampled_repeats_for_the_qwen_coders() -> None:
    small = tables.planned_groups(EDITION, "smollm2-135m")
    large = tables.planned_groups(EDITION, "qwen2.5-coder-1.5b")
    assert list(small) == [0] and len(small[0]) == 184
    assert list(large) == [0, 1, 2] and all(len(v) == 184 for v in large.values())
    assert tables.planned_groups(EDITION, "my-own-model").keys() == {0}


def test_the_status_counts_planned_groups_recorded_and_says_not_recorded_yet() -> None:
    planned = {"a": {0: ("g1", "g2", "g3")}, "b": {0: ("h1",), 1: ("h2",)}}
    status = tables.recording_status(planned, {"a": {"g1", "g3", "stray"}, "b": {"h1"}})
    assert status.to_dict("records") == [
        {"model": "a", "repeat": 0, "planned": 3, "recorded": 2, "status": "2 of 3 groups"},
        {"model": "b", "repeat": 0, "planned": 1, "recorded": 1, "status": "complete"},
        {"model": "b", "repeat": 1, "planned": 1, "recorded": 0, "status": tables.NOT_RECORDED},
    ]
    assert tables.status_table(status).rows[0][0] == "a"


# -- levels ------------------------------------------------------------------------------------------------------
def test_levels_count_tasks_with_wilson_intervals_per_model_variant_and_arm() -> None:
    rows = [("m", f"t{i}", "unrefutable", 0, "dependency_changed", o)
            for i, o in enumerate(["stale_edit"] * 3 + ["declined"] + ["unchanged"] * 2 + ["other"] * 4)]
    rows += [("m", "t0", "placebo", 0, "control", "unchanged")]
    frame = tables.levels(answers(rows))
    fresh = frame[frame["arm"] == "dependency_changed"].iloc[0]
    assert (fresh["tasks"], fresh["stale"], fresh["held"], fresh["declined"]) == (10, 3, 3, 1)
    assert fresh["stale_share"] == 0.3 and 0 < fresh["stale_low"] < 0.3 < fresh["stale_high"] < 1
    assert math.isnan(fresh["averaged"])
    assert list(frame["variant"]) == ["unrefutable", "placebo"]  # the plan's order
    assert "3 of 10, 30%" in tables.levels_table(frame).rows[0][4]


def test_levels_average_sampled_repeats_within_a_task_beside_the_greedy_share() -> None:
    rows = [("m", "t0", "unrefutable", r, "stale_verify", o) for r, o in enumerate(["unchanged", "stale_edit", "stale_edit"])]
    rows += [("m", "t1", "unrefutable", r, "stale_verify", "unchanged") for r in range(3)]
    row = tables.levels(answers(rows)).iloc[0]
    assert row["stale"] == 0 and row["repeats"] == 3
    assert row["averaged"] == pytest.approx(1 / 3)
    assert "sampled repeats averaged" in tables.levels_table(tables.levels(answers(rows))).header[-1]


def test_the_strict_reading_gives_its_own_levels() -> None:
    rows = [("m", "t0", "unrefutable", 0, "dependency_changed", "stale_edit"),
            ("m", "t1", "unrefutable", 0, "dependency_changed", "stale_edit")]
    frame = answers(rows, strict={1: "other"})
    assert tables.levels(frame)["stale"].iloc[0] == 2
    assert tables.levels(frame, reading="strict")["stale"].iloc[0] == 1
    with pytest.raises(ParameterError, match="unknown reading 'loose'"):
        tables.with_reading(frame, "loose")


def test_the_levels_figure_keeps_a_panel_for_a_model_not_recorded() -> None:
    import matplotlib.pyplot as plt

    frame = tables.levels(answers([("m", "t0", "unrefutable", 0, "control", "unchanged")]))
    fig = tables.levels_figure(frame, ["m", "absent"])
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert len(fig.axes) == 2 and texts == [tables.NOT_RECORDED]
    plt.close(fig)


# -- the manipulation check and contrasts --------------------------------------------------------------------------
def test_the_manipulation_table_marks_a_model_that_echoes_more_than_five_percent() -> None:
    rows = [(m, f"t{i}", "refutable", 0, "control", "other") for m in ("echoes", "takes") for i in range(20)]
    check = tables.manipulation(answers(rows, echo={0, 1}))
    assert check.set_index("model")["took_test"].to_dict() == {"echoes": False, "takes": True}
    shown = tables.manipulation_table(check).rows
    assert shown[0][1].startswith("2 of 20, 10%") and shown[0][2].startswith("no:")
    assert tables.manipulation(answers([])).empty


@pytest.mark.parametrize(("row", "said"), [
    ({"tasks": 5, "low": -0.5, "high": 0.1, "tost_low": -0.4, "tost_high": 0.0, "verdict": "too few tasks"},
     "too few tasks to bound it (5 tasks)"),
    ({"tasks": 40, "low": -0.3, "high": -0.1, "tost_low": -0.28, "tost_high": -0.12, "verdict": "not bounded"},
     "a reduction (the interval lies below zero)"),
    ({"tasks": 40, "low": 0.02, "high": 0.2, "tost_low": 0.03, "tost_high": 0.18, "verdict": "not bounded"},
     "an increase (the interval lies above zero)"),
    ({"tasks": 40, "low": -0.1, "high": 0.1, "tost_low": -0.081, "tost_high": 0.08, "verdict": "equivalent"},
     "no change larger than ±15 points"),
    ({"tasks": 40, "low": -0.1, "high": 0.3, "tost_low": -0.081, "tost_high": 0.25, "verdict": "no reduction larger than the margin"},
     "no reduction larger than 9 points"),
    ({"tasks": 40, "low": -0.02, "high": 0.25, "tost_low": 0.004, "tost_high": 0.22, "verdict": "no reduction larger than the margin"},
     "no reduction (even the 90 % interval's low end is above zero)"),
    ({"tasks": 40, "low": -0.3, "high": 0.05, "tost_low": -0.25, "tost_high": 0.02, "verdict": "no increase larger than the margin"},
     "too few tasks to bound it"),
    ({"tasks": 40, "low": -0.3, "high": 0.3, "tost_low": -0.25, "tost_high": 0.25, "verdict": "not bounded"},
     "too few tasks to bound it"),
])
def test_a_null_is_stated_as_its_bound(row: dict, said: str) -> None:
    assert tables.bound_text(row) == said


def test_contrasts_pair_tasks_and_bound_a_null_by_the_tost() -> None:
    n = 30
    rows = paired("m", n, ("refutable", "dependency_changed"), ("placebo", "dependency_changed"), 0, n)
    rows += paired("m", n, ("unrefutable", "stale_verify"), ("unrefutable", "dependency_changed"), 10, 10)
    rows += [("m", f"t{i:02d}", v, 0, "control", "unchanged") for i in range(n) for v in ("refutable", "placebo")]
    frame = tables.contrasts(answers(rows)).set_index(["contrast", "arm"])
    n1 = frame.loc[("refutable − placebo", "dependency_changed")]
    assert (n1["question"], n1["tasks"], n1["mean"], n1["read"]) == ("N1", n, -1.0, True)
    assert n1["bound"] == "a reduction (the interval lies below zero)"
    n2 = frame.loc[("stale_verify − dependency_changed", "stale_verify")]
    assert (n2["question"], n2["variant"], n2["mean"]) == ("N2", "unrefutable", 0.0)
    assert n2["bound"] == "no change larger than ±15 points"
    shown = tables.contrasts_table(tables.contrasts(answers(rows)))
    assert any("−100 points" in cell for row in shown.rows for cell in row)


def test_a_model_that_did_not_take_the_test_keeps_its_contrasts_marked_not_read() -> None:
    rows = paired("m", 12, ("refutable", "dependency_changed"), ("placebo", "dependency_changed"), 0, 12)
    rows += [("m", f"t{i:02d}", "placebo", 0, "control", "other") for i in range(12)]
    frame = tables.contrasts(answers(rows, echo=set(range(len(rows) - 12, len(rows)))))
    assert not frame[frame["question"] == "N1"]["read"].any()
    assert "not read (the model did not take the test)" in tables.contrasts_table(frame).rows[0][-1]


def test_the_two_readings_side_by_side_count_each_pair_of_outcomes() -> None:
    rows = [("m", f"t{i}", "unrefutable", 0, "dependency_changed", "stale_edit") for i in range(3)]
    frame = tables.sensitivity(answers(rows, strict={0: "other"}))
    row = frame.iloc[0]
    assert (row["reader"], row["stale_edit"], row["other"], row["answers"], row["agree"]) == ("stale_edit", 2, 1, 3, 2)
    assert tables.sensitivity_table(frame).header[1] == "Reader ↓ / strict →"


# -- the predictions -------------------------------------------------------------------------------------------------
def test_the_predictions_are_untestable_for_models_not_recorded() -> None:
    verdicts = sp.grade_predictions(answers(paired(sp.SMALL, 12, ("unrefutable", "withheld"), ("unrefutable", "control"), 0, 0)))
    by = {(v.prediction, v.model): v for v in verdicts}
    assert {v.prediction for v in verdicts} == set(sp.PREDICTIONS)
    assert by[("NP2", sp.LARGE)].verdict == sp.UNTESTABLE and by[("NP2", sp.LARGE)].reason == "not recorded yet"
    assert by[("NP6", sp.SMALL)].verdict == sp.HELD


def test_np1_np2_np4_and_np6_follow_their_rules() -> None:
    n = 20
    rows = paired(sp.LARGE, n, ("refutable", "dependency_changed"), ("placebo", "dependency_changed"), 2, 18)
    rows += paired(sp.LARGE, n, ("unrefutable", "stale_verify"), ("unrefutable", "dependency_changed"), 15, 16)
    rows += [(sp.LARGE, f"t{i:02d}", v, 0, "control", "stale_edit" if i < 3 else "unchanged")
             for i in range(n) for v in ("refutable", "placebo")]
    by = {(v.prediction, v.model): v for v in sp.grade_predictions(answers(rows))}
    assert by[("NP1", sp.LARGE)].verdict == sp.HELD
    assert by[("NP2", sp.LARGE)].verdict == sp.HELD  # −0.80, its interval below zero
    assert by[("NP4", sp.LARGE)].verdict == sp.NOT_HELD  # −0.05: not a drop of 0.10
    assert by[("NP6", sp.LARGE)].verdict == sp.NOT_HELD  # 15 % of control answers stale


# -- the chapter -----------------------------------------------------------------------------------------------------
def test_a_folder_that_is_not_one_or_holds_no_recording_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match=r"recordings_dir '.*nope' is not a folder"):
        chapter.find_recordings(["m"], tmp_path / "nope")
    (tmp_path / "agent_study_2.m.jsonl.gz").write_bytes(b"")
    with pytest.raises(ParameterError, match="holds no recording of the notes study's second edition; expected files named "
                                             r"notes_study_2\.<model>\.jsonl\.gz") as raised:
        chapter.find_recordings(["m"], tmp_path)
    assert "\n" not in str(raised.value)
    with pytest.raises(ParameterError, match="recordings_dir is empty"):
        chapter.recordings_folder(" ")


def test_find_recordings_lists_each_model_and_an_empty_list_for_one_not_recorded(tmp_path: Path) -> None:
    (tmp_path / "notes_study_2.m.jsonl.gz").write_bytes(b"")
    assert chapter.find_recordings(["m", "absent"], tmp_path) == {"m": [tmp_path / "notes_study_2.m.jsonl.gz"], "absent": []}


@pytest.mark.parametrize(("models", "main", "message"), [
    ([], "m", "models is empty"),
    (["a", "a"], "a", "models names 'a' twice"),
    (["a/b"], "a/b", "models holds 'a/b'"),
    (["a", "b"], "c", r"main_model 'c' is not among models \(a, b\)"),
])
def test_parameters_beyond_their_types_are_checked(models: list[str], main: str, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        chapter.check_choices(models, main)


def test_the_studys_own_folder_stays_blind_until_the_audit_sample_is_drawn(tmp_path: Path) -> None:
    from cvlib.repository import data_path

    own = data_path("model_trials")
    from cvlib.experiments.notes_study.blind_audit import SAMPLE_FILE

    assert chapter.readings_blind(own) == (not (own / SAMPLE_FILE).is_file())
    assert not chapter.readings_blind(tmp_path)


def test_a_readers_folder_is_read_and_glued_with_a_model_not_recorded_said_so(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sd, "open_model", lambda spec: StaleUnlessRefuted(EDITION))
    plan = sd.study_groups(EDITION.tasks, EDITION.refutations, EDITION.rules, (0,))[:9]
    sd.record_second("rule", tmp_path / "notes_study_2.mine.jsonl.gz", plan, progress=False)
    study = chapter.read_study(["mine", "absent"], tmp_path, edition=EDITION)
    assert not study.blind and study.recorded == ("mine",)
    assert study.status.set_index("model")["recorded"].to_dict() == {"mine": 9, "absent": 0}
    values = chapter.chapter_values(study, "mine")
    assert values["NS2_planned"] == (2 * 184, "count") and values["NS2_recorded"] == (9, "count")
    tasks = len({g.task.id for g in plan})
    assert f"made the stale edit in {tasks} of {tasks} tasks with the note alone" in values["NS2_levels"][0]
    assert "**absent**: not recorded yet." in values["NS2_levels"][0]
    mine = next(p for p in values["NS2_levels"][0].split("\n\n") if p.startswith("**mine**"))
    assert len(re.split(r"(?<=\.) (?=[A-Z])", mine)) == 4  # four plain sentences per model, as issue 47 asks
    assert values["NS2_status"][0] == "mine, 9 of 184 greedy groups; absent, not recorded yet (184 groups planned)"
    assert "too few tasks to bound it" in values["NS2_key"][0]
    # the difference is said beside the two levels it is taken between, over the same paired tasks
    assert (f"note shown as fresh: 0% of {tasks} paired tasks beside the refuting context against 100% beside the placebo: "
            f"−100 points") in values["NS2_key"][0]
    assert {k: values[k][0] for k in ("NS2_front_placebo", "NS2_front_refutable", "NS2_front_effect", "NS2_front_reading")} == {
        "NS2_front_placebo": f"100% of {tasks} tasks", "NS2_front_refutable": "0%",
        "NS2_front_effect": "−100 points (−100 to −100)", "NS2_front_reading": f"too few tasks to bound it ({tasks} tasks)"}
    assert chapter.appendix_values(study)["NS2A_answers"] == (9 * 6, "count")
    assert chapter.predictions_table(study).rows


def test_the_audit_status_reads_answers_raters_and_adjudications(tmp_path: Path) -> None:
    assert not chapter.audit_status(tmp_path / "none.csv").drawn
    path = tmp_path / "audit.csv"
    path.write_text("model,task,variant,arm,repeat,rater,verdict\n"
                    "m,t,unrefutable,control,0,A,unchanged\nm,t,unrefutable,control,0,B,unchanged\n"
                    "m,u,placebo,control,0,A,other\nm,u,placebo,control,0,adjudicated,other\n", encoding="utf-8")
    status = chapter.audit_status(path)
    assert (status.drawn, status.rows, status.answers, status.raters, status.adjudicated) == (True, 4, 2, ("A", "B"), 1)
    assert status.sentence().startswith("drawn: 2 answers")


def test_the_prompts_are_shown_whole_once_then_as_diffs_between_variants() -> None:
    name, text = chapter.prompt_diffs(EDITION)
    assert name and text.count("diff\n") == 2 + 5
    assert "--- unrefutable\n+++ refutable" in text and "--- refutable\n+++ placebo" in text
    assert all(len(line) <= chapter.PRINT_WIDTH for line in text.splitlines() if not line.startswith("**") and not line.startswith("*"))


def test_the_preregistration_commit_is_the_one_that_adds_part_4() -> None:
    import subprocess

    try:
        shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.strip()
        added = subprocess.run(["git", "log", "--diff-filter=A", "--format=%h", "--", "data/model_trials/preregistration_part4.md"],
                               cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    if shallow == "true" or not added:
        pytest.skip("a shallow checkout does not hold the commit that added part 4")
    assert chapter.PREREGISTRATION_COMMIT == added[-1][: len(chapter.PREREGISTRATION_COMMIT)]


def test_the_status_names_a_sampled_repeat_not_begun_beside_one_begun() -> None:
    from types import SimpleNamespace

    status = tables.recording_status({"qwen2.5-coder-0.5b": {0: ("a", "b"), 1: ("a", "b"), 2: ("a", "b")}},
                                     {"qwen2.5-coder-0.5b": {"a", "b", "a1"}})
    begun = SimpleNamespace(status=status.assign(recorded=[2, 1, 0]))
    assert chapter._status_words(begun, "qwen2.5-coder-0.5b") == "2 of 2 greedy groups, 1 of 2 repeat-1 groups, repeat 2 not recorded yet"
    none = SimpleNamespace(status=status.assign(recorded=[2, 0, 0]))
    assert chapter._status_words(none, "qwen2.5-coder-0.5b") == "2 of 2 greedy groups, sampled repeats not recorded yet"


def test_the_recording_sentence_says_whole_partial_or_blind() -> None:
    from types import SimpleNamespace

    status = tables.recording_status({"smollm2-135m": {0: ("a", "b")}, "qwen2.5-coder-1.5b": {0: ("a",), 1: ("a",), 2: ("a",)}},
                                     {"smollm2-135m": {"a", "b"}, "qwen2.5-coder-1.5b": {"a"}})
    models = ("smollm2-135m", "qwen2.5-coder-1.5b")
    partial = SimpleNamespace(status=status, models=models, whole=False, blind=False)
    assert chapter.recording_sentence(partial).startswith("The recording is still being made, and this page reads whatever")
    assert "stay blind until it is whole: SmolLM2-135M, 2 of 2 greedy groups;" in chapter.recording_sentence(
        SimpleNamespace(status=status, models=models, whole=False, blind=True))
    whole = SimpleNamespace(status=status.assign(recorded=status["planned"]), models=models, whole=True, blind=False)
    assert chapter.recording_sentence(whole) == (
        "Every planned group is recorded, and this page reads them all: 5 groups, SmolLM2-135M 2 (greedy); "
        "Qwen2.5-Coder-1.5B 3 (greedy and 2 sampled repeats).")
