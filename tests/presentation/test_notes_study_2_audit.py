"""The blind audit as the pages show it: where it stands, kappa only once complete, every disagreement listed."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.notes_study import blind_audit as ba
from cvlib.presentation import notes_study_2_audit as audit

KEYS = [ba.AnswerKey("qwen2.5-coder-1.5b", f"task-{n}", "placebo", "dependency_changed", 0) for n in range(4)]
READER = ["stale_edit", "unchanged", "declined", "stale_edit"]


def _outcomes() -> pd.DataFrame:
    return pd.DataFrame([{"model": k.model, "task": k.task, "variant": k.variant, "arm": k.arm, "repeat": k.repeat,
                          "outcome": o} for k, o in zip(KEYS, READER)])


def _write(path: Path, columns: tuple[str, ...], rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _verdicts(folder: Path, rows: list[tuple[int, str, str]]) -> None:
    _write(folder / ba.VERDICT_FILE, ba.VERDICT_COLUMNS,
           [{**KEYS[i].row(), "rater": r, "verdict": v, "reason": f"{r} saw {v}"} for i, r, v in rows])


@pytest.fixture
def drawn(tmp_path: Path) -> Path:
    _write(tmp_path / ba.SAMPLE_FILE, ba.SAMPLE_COLUMNS, [k.row() for k in KEYS])
    return tmp_path


def test_an_audit_not_drawn_says_when_it_begins(tmp_path: Path) -> None:
    state = audit.read_audit(tmp_path, _outcomes())
    assert not state.drawn and not state.complete
    assert audit.audit_sentence(state).startswith("The blind audit's sample is not drawn yet")


def test_a_drawn_audit_without_every_verdict_prints_no_kappa(drawn: Path) -> None:
    state = audit.read_audit(drawn, _outcomes())
    assert (state.drawn, state.complete) == (4, False)
    assert audit.audit_sentence(state) == ("The blind audit is under way: 4 answers drawn, 0 raters so far; its agreement "
                                           "is printed once it is complete.")
    _verdicts(drawn, [(i, "ann", v) for i, v in enumerate(READER)])
    state = audit.read_audit(drawn, _outcomes())
    assert state.raters == ("ann",) and not state.complete and state.agreement.empty
    assert "kappa" not in audit.audit_sentence(state)


def test_a_complete_audit_gives_kappa_and_lists_every_disagreement(drawn: Path) -> None:
    ann = ["stale_edit", "unchanged", "declined", "other"]
    bo = ["stale_edit", "unchanged", "declined", "stale_edit"]
    _verdicts(drawn, [(i, "ann", v) for i, v in enumerate(ann)] + [(i, "bo", v) for i, v in enumerate(bo)]
              + [(3, ba.ADJUDICATED, "other")])
    state = audit.read_audit(drawn, _outcomes())
    assert state.complete and state.adjudicated == 1
    sentence = audit.audit_sentence(state)
    assert "each judged 4 answers drawn by seed and agreed on 3 of 4 (75%, Cohen's kappa" in sentence
    assert "matched their settled verdict on 3 of 4 (75%" in sentence
    listed = state.disagreements
    assert listed["between"].tolist() == ["raters", "reader"] and set(listed["answer"]) == {KEYS[3].answer_id}
    pooled = audit.agreement_table(state)
    # both pairs: 3 of 4 the same, chance 4/16 from the margins, so kappa (0.75 - 0.25) / 0.75
    assert pooled.rows == (("every model", "all", "4", "75%", "0.67", "75%", "0.67"),
                           ("Qwen2.5-Coder-1.5B", "placebo", "4", "75%", "0.67", "75%", "0.67"))
    assert len(audit.agreement_table(state, "stratum").rows) == 1
    shown = audit.disagreements_table(state).rows
    assert shown[0][4] == "the two raters" and shown[1][4] == "reader and settled verdict" and shown[1][7] == "other"


def test_a_drawn_answer_missing_from_the_readings_keeps_the_audit_incomplete(drawn: Path) -> None:
    _verdicts(drawn, [(i, r, v) for i, v in enumerate(READER) for r in ("ann", "bo")])
    state = audit.read_audit(drawn, _outcomes().iloc[:3])
    assert not state.complete and "not among the readings" in state.problems[0]


def test_a_verdict_file_that_does_not_read_is_a_one_line_error(drawn: Path) -> None:
    _verdicts(drawn, [(0, "ann", "maybe")])
    with pytest.raises(ParameterError, match="verdict 'maybe': expected one of"):
        audit.read_audit(drawn, _outcomes())


def test_the_studys_own_sample_is_the_draw_from_its_recordings_and_its_verdicts_read() -> None:
    from cvlib.repository import data_path

    data = data_path("model_trials")
    if not (data / ba.SAMPLE_FILE).is_file():
        pytest.skip("the study's audit sample is drawn only once every planned group is recorded (section 4.11)")
    sample = ba.read_sample(data / ba.SAMPLE_FILE)
    assert sample == ba.draw_sample(ba.recorded_answers(data)).answers and len(sample) >= 150
    if (data / ba.VERDICT_FILE).is_file():
        verdicts = ba.read_verdicts(data / ba.VERDICT_FILE, sample)
        assert len({v.rater for v in verdicts} - {ba.ADJUDICATED}) <= 2
