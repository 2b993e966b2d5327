"""The determinism rows: read strictly, summarised without typing a number."""

from __future__ import annotations

from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.models import determinism_sentence, load_determinism

HEADER = "recording,threads,sampled,generated,identical\n"


def test_rows_are_read_and_said_per_recording_and_thread_count(tmp_path: Path) -> None:
    path = tmp_path / "determinism.csv"
    path.write_text(HEADER + "agent_study.qwen.jsonl.gz,1,204,204,203\nagent_study.qwen.jsonl.gz,2,204,204,204\n"
                    "notes_trials.qwen.jsonl,1,54,54,54\n")
    rows = load_determinism(path)
    assert [(r.threads, r.identical) for r in rows] == [(1, 203), (2, 204), (1, 54)]
    assert rows[0].share == pytest.approx(203 / 204)
    said = determinism_sentence(rows, "agent_study.")
    assert said == ("agent_study.qwen.jsonl.gz at 1 thread: 203 of 204 calls byte-identical; "
                    "agent_study.qwen.jsonl.gz at 2 threads: 204 of 204 calls byte-identical")
    assert "re-generated yet" in determinism_sentence(rows, "nothing.") and load_determinism(tmp_path / "absent.csv") == []


def test_a_bad_file_names_what_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "determinism.csv"
    path.write_text("recording,threads\nx,1\n")
    with pytest.raises(ParameterError, match="missing column"):
        load_determinism(path)
    path.write_text(HEADER + "x,one,3,3,3\n")
    with pytest.raises(ParameterError, match="line 2"):
        load_determinism(path)
