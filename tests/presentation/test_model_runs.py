"""The book's table of every model run: one row per recording, read from the calls, held against the plan."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from cvlib.core.errors import ParameterError
from cvlib.evals.runners import agent_samples, notes_groups
from cvlib.models.jsonl import append_lines
from cvlib.models.recording import HEADER_KEY
from cvlib.presentation.model_runs import ModelRun, main, model_runs, models_run_markdown, models_run_table
from cvlib.repository import data_path, project_root

XLLAMACPP = {"name": "xllamacpp", "version": "1"}


def _call(experiment: str, task: dict[str, Any], run: str | None, *, runtime: dict[str, str] = XLLAMACPP,
          grammar: str | None = None, temperature: float = 0.0, evaluation: str = "cached") -> str:
    settings = {"max_tokens": 8, "temperature": temperature, "seed": 0, "threads": 1, "context_size": 4096,
                "stop": [], "evaluation": evaluation, **({"grammar": grammar} if grammar else {})}
    line = {"experiment": experiment, "arm": "told", "task": task, "step": 0, "model": "m.gguf", "model_sha256": "0" * 64,
            "runtime": runtime, "settings": settings, "prompt": [["user", "go"]], "response": "EXECUTE",
            "decision": None, "outcome": None, **({"run": run} if run else {})}
    return json.dumps(line)


def _header(experiment: str) -> str:
    return json.dumps({HEADER_KEY: {"format": 2, "experiment": experiment, "resume": "x"}})


GRAMMAR = 'root ::= "EXECUTE"'


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """Recordings of every kind the table tells apart, in no particular order, with files that are not recordings."""
    # the agent study's second edition with SmolLM2-135M, by the project's recorder: two tasks, three cells
    cells = [(0, 0), (0, 1), (1, 0)]
    append_lines(tmp_path / "agent_study_2.smollm2-135m.jsonl.gz", [_header("agent_study_2")] + [
        _call("agent_study_2", {"index": i, "order": o}, f"t{i} o{o}", grammar=GRAMMAR, evaluation="pure")
        for i, o in cells for _ in range(2)])
    # the same study imported from inspect: a llama.cpp server through openai-api, and the cvlib provider
    served = {"name": "inspect/openai-api/llamacpp", "version": "0.3", "content_addressed": "false", "via": "inspect",
              "constraint": "grammar", "attempts": "1", "admitted": "true", "reused": "false"}
    append_lines(tmp_path / "agent_study_2.openai-api_llamacpp_big.jsonl.gz",
                 [_call("agent_study_2", {"index": 0, "order": 0}, "t0 o0", runtime=served, grammar=GRAMMAR,
                        evaluation="pure")])
    in_process = {**XLLAMACPP, "via": "inspect", "constraint": "json_schema", "attempts": "1", "admitted": "true"}
    append_lines(tmp_path / "agent_study_2.cvlib_smollm2-135m.jsonl.gz",
                 [_call("agent_study_2", {"index": 0, "order": 0}, "t0 o0", runtime=in_process, grammar=GRAMMAR,
                        evaluation="pure")])
    # the notes study's second edition with a reader's own server, greedy and sampled
    server = {"name": "openai-server", "version": "b1", "content_addressed": "false"}
    append_lines(tmp_path / "notes_study_2.my-model.jsonl", [
        _call("notes_study_2", {"id": "a", "variant": "refutable", "repeat": 0}, "a refutable r0", runtime=server,
              evaluation="fresh"),
        _call("notes_study_2", {"id": "a", "variant": "refutable", "repeat": 1}, "a refutable r1", runtime=server,
              temperature=0.7, evaluation="fresh")])
    # the first editions: a study with its plan, and exploratory trials without groups
    append_lines(tmp_path / "agent_study.qwen2.5-coder-1.5b.jsonl",
                 [_call("agent_study", {"index": 3, "repeat": 0}, "t3 r0", grammar=GRAMMAR)])
    append_lines(tmp_path / "notes_trials.qwen2.5-coder-0.5b.jsonl", [_call("notes_trials", {"id": "b"}, None)])
    (tmp_path / "README.md").write_text("not a recording\n", encoding="utf-8")
    (tmp_path / "agent_study_2.smollm2-135m.jsonl.gz.lock").write_text("", encoding="utf-8")
    (tmp_path / "other_study.m.jsonl").write_text("{}\n", encoding="utf-8")
    return tmp_path


def test_one_row_per_recording_by_study_edition_then_model(folder: Path) -> None:
    runs = model_runs(folder)
    assert [r.file for r in runs] == [
        "agent_study.qwen2.5-coder-1.5b.jsonl",
        "agent_study_2.smollm2-135m.jsonl.gz",  # a bundled model first, the smallest first
        "agent_study_2.cvlib_smollm2-135m.jsonl.gz",  # then a reader's, by name
        "agent_study_2.openai-api_llamacpp_big.jsonl.gz",
        "notes_trials.qwen2.5-coder-0.5b.jsonl",
        "notes_study_2.my-model.jsonl",
    ]
    assert [(r.study, r.edition, r.model) for r in runs] == [
        ("agent study", "first edition", "Qwen2.5-Coder-1.5B"),
        ("agent study", "second edition", "SmolLM2-135M"),
        ("agent study", "second edition", "cvlib_smollm2-135m"),
        ("agent study", "second edition", "openai-api_llamacpp_big"),
        ("notes study", "exploratory trials", "Qwen2.5-Coder-0.5B"),
        ("notes study", "second edition", "my-model"),
    ]


def test_where_and_how_come_from_each_calls_runtime_and_settings(folder: Path) -> None:
    runs = {r.file.split(".")[1]: r for r in model_runs(folder) if r.study == "agent study" and r.edition == "second edition"}
    assert runs["smollm2-135m"].where == "in process (llama.cpp)"
    assert runs["smollm2-135m"].constrained == "grammar"  # the project's recorder: its settings' grammar
    assert runs["cvlib_smollm2-135m"].where == "inspect, provider cvlib: in process (llama.cpp)"
    assert runs["cvlib_smollm2-135m"].constrained == "JSON schema"  # what the call records wins
    assert runs["openai-api_llamacpp_big"].where == "inspect, provider openai-api/llamacpp"
    assert {r.settings for r in runs.values()} == {"greedy, pure"}
    assert runs["smollm2-135m"].how == "in process (llama.cpp); grammar; greedy, pure"
    [notes] = [r for r in model_runs(folder) if r.file.startswith("notes_study_2.")]
    assert (notes.where, notes.constrained, notes.settings) == ("an OpenAI-compatible server", "free text",
                                                                "greedy and sampled at 0.7, fresh")


def test_what_was_recorded_is_held_against_the_plan(folder: Path) -> None:
    runs = {r.file: r for r in model_runs(folder)}
    mine = runs["agent_study_2.smollm2-135m.jsonl.gz"]
    assert (mine.calls, mine.tasks, mine.groups, mine.planned) == (6, 2, 3, len(agent_samples()))
    assert mine.status == "in progress" and mine.recorded == f"in progress: 3 of {len(agent_samples())} cells, 2 tasks"
    notes = runs["notes_study_2.my-model.jsonl"]  # a model outside the plan: the greedy repeat
    assert (notes.tasks, notes.groups, notes.planned) == (1, 2, len(notes_groups((0,))))
    first = runs["agent_study.qwen2.5-coder-1.5b.jsonl"]  # the first edition planned one repeat of 200 tasks for it
    assert first.planned == 200 and first.recorded == "in progress: 1 of 200 groups, 1 task"
    trials = runs["notes_trials.qwen2.5-coder-0.5b.jsonl"]
    assert (trials.groups, trials.planned, trials.recorded, trials.status) == (None, None, "1 task", "")


def test_a_finished_run_is_complete_and_a_longer_one_says_so() -> None:
    done = ModelRun("f", "agent study", "second edition", "m", "w", "c", "s", 10, 200, 600, "cells", 600)
    assert (done.status, done.recorded) == ("complete", "complete: 600 cells, 200 tasks")
    over = ModelRun("f", "agent study", "second edition", "m", "w", "c", "s", 10, 200, 601, "cells", 600)
    assert (over.status, over.recorded) == ("more than planned", "more than planned: 601 of 600 cells, 200 tasks")
    unplanned = ModelRun("f", "notes study", "first edition", "m", "w", "c", "s", 10, 44, 86, "groups", None)
    assert (unplanned.status, unplanned.recorded) == ("", "86 groups, 44 tasks")


def test_a_recording_being_written_is_read_to_its_last_whole_line(folder: Path) -> None:
    path = folder / "agent_study_2.smollm2-135m.jsonl.gz"
    with gzip.open(path, "ab") as handle:  # a member cut short, as a recorder appending right now leaves it
        handle.write(_call("agent_study_2", {"index": 9, "order": 0}, "t9 o0").encode()[:50])
    raw = path.read_bytes()
    path.write_bytes(raw[:-8])
    [row] = [r for r in model_runs(folder) if r.file == path.name]
    assert row.groups == 3


def test_the_table_is_one_row_per_run_in_order(folder: Path) -> None:
    table = models_run_table(model_runs(folder))
    assert table.header == ("Study", "Model", "How it ran", "Calls", "Recorded") and len(table.rows) == 6
    assert table.rows[1] == ("agent study, second edition", "SmolLM2-135M", "in process (llama.cpp); grammar; greedy, pure",
                             "6", f"in progress: 3 of {len(agent_samples())} cells, 2 tasks")
    text = models_run_markdown(model_runs(folder))
    assert text.startswith("<!-- Written by `python -m cvlib.presentation.model_runs --write book/models_run.md`;")
    assert text.endswith(table._repr_html_() + "\n") and '<td class="num">6</td>' in text
    assert text == models_run_markdown(model_runs(folder))


@pytest.mark.parametrize(("count", "folded"), [(15, False), (16, True)])
def test_a_table_of_more_than_fifteen_runs_folds_behind_its_row_count(count: int, folded: bool) -> None:
    runs = [ModelRun(f"f{i}", "agent study", "second edition", f"m{i}", "w", "c", "s", 1, 1, 1, "cells", None)
            for i in range(count)]
    table = models_run_table(runs)
    assert table.collapsed is folded
    assert ("<details" in table._repr_html_()) is folded
    assert (f"{count} recordings, one row each" in table._repr_html_()) is folded


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: p / "missing", "recordings folder .*missing' does not exist"),
    (lambda p: p, "no study recording in .*; expected files named <experiment>.<model>.jsonl"),
])
def test_a_folder_without_recordings_is_one_clear_error(tmp_path: Path, make: Any, message: str) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ParameterError, match=message):
        model_runs(make(tmp_path))


def test_a_recording_without_calls_is_named(tmp_path: Path) -> None:
    append_lines(tmp_path / "notes_study_2.m.jsonl.gz", [_header("notes_study_2")])
    with pytest.raises(ParameterError, match="recording 'notes_study_2.m.jsonl.gz' holds no call yet"):
        model_runs(tmp_path)


def test_the_command_prints_or_writes_the_table(folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--recordings", str(folder)]) == 0
    assert capsys.readouterr().out == repr(models_run_table(model_runs(folder))) + "\n"
    out = tmp_path / "table.md"
    assert main(["--recordings", str(folder), "--write", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == models_run_markdown(model_runs(folder))


def test_the_books_table_of_models_is_current() -> None:
    written = (project_root() / "book" / "models_run.md").read_text(encoding="utf-8")
    assert written == models_run_markdown(model_runs(data_path("model_trials"))), \
        "rewrite it: python -m cvlib.presentation.model_runs --write book/models_run.md"
