"""The determinism rows: read strictly, summarised without typing a number."""

from __future__ import annotations

from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.models import determinism_sentence, load_determinism
from cvlib.presentation._study_models import determinism_table

HEADER = "recording,threads,sampled,generated,identical\n"


def test_rows_are_read_and_said_per_recording_and_thread_count(tmp_path: Path) -> None:
    path = tmp_path / "determinism.csv"
    path.write_text(HEADER + "agent_study.qwen.jsonl.gz,1,204,204,203\nagent_study.qwen.jsonl.gz,2,204,204,204\n"
                    "notes_trials.qwen.jsonl,1,54,54,54\n")
    rows = load_determinism(path)
    assert [(r.threads, r.identical) for r in rows] == [(1, 203), (2, 204), (1, 54)]
    assert rows[0].share == pytest.approx(203 / 204)
    said = determinism_sentence(rows, "agent_study.")
    assert said == ("at 1 thread, 203 of 204 sampled calls of 1 recording came back byte-identical; "
                    "at 2 threads, 204 of 204 sampled calls of 1 recording came back byte-identical")
    both = determinism_sentence(rows, "")
    assert both.startswith("at 1 thread, 257 of 258 sampled calls of 2 recordings came back")
    assert "re-generated yet" in determinism_sentence(rows, "nothing.") and load_determinism(tmp_path / "absent.csv") == []


def test_a_bad_file_names_what_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "determinism.csv"
    path.write_text("recording,threads\nx,1\n")
    with pytest.raises(ParameterError, match="missing column"):
        load_determinism(path)
    path.write_text(HEADER + "x,one,3,3,3\n")
    with pytest.raises(ParameterError, match="line 2"):
        load_determinism(path)


def test_the_table_has_a_row_per_recording_and_a_column_per_thread_count(tmp_path: Path) -> None:
    path = tmp_path / "determinism.csv"
    path.write_text(HEADER + "agent_study.a.jsonl.gz,1,10,10,9\nagent_study.b.jsonl.gz,1,4,4,4\n"
                    "agent_study.a.jsonl.gz,2,10,10,7\nnotes_trials.c.jsonl,1,3,3,3\n")
    shown = determinism_table(load_determinism(path), "agent_")
    assert shown.header == ("Recording", "Byte-identical at 1 thread", "Byte-identical at 2 threads")
    assert shown.rows == (("agent_study.a.jsonl.gz", "9 of 10", "7 of 10"),
                          ("agent_study.b.jsonl.gz", "4 of 4", "not measured"))
