"""The report card and the per-arm scores, with no model: the same bytes twice, the analyses' numbers, one-line faults.

The first editions' path reads the book's own recordings; the second
editions' reads cells and groups made here by the studies' own runners with a
scripted model (seeded answers), so nothing depends on a recording in progress.
"""

from __future__ import annotations

import gzip
import json
import math
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from cvlib.evals.runners import agent_samples, notes_samples, run_agent_sample, run_notes_sample  # noqa: E402
from cvlib.evals.scores import AGENT_METRICS, agent_scores, notes_scores  # noqa: E402
from cvlib.experiments.agent_study.edition2_analysis import edition2_runs, probe_table  # noqa: E402
from cvlib.models.recording import CallRecord  # noqa: E402
from cvlib.models.settings import GenerationSettings, Message, ModelIdentity  # noqa: E402
from cvlib.presentation.study_report import write_report  # noqa: E402
from cvlib.repository import data_path  # noqa: E402

CVLIB = [sys.executable, "-m", "cvlib.presentation.cli"]


def _first_groups(source: Path, target: Path, groups: int) -> list[list[str]]:
    """The first ``groups`` greedy groups of a committed recording, written to ``target``; their lines."""
    out: dict[str, list[str]] = {}
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        for line in fh:
            data = json.loads(line)
            if "recording" in data or data["task"].get("repeat", 0) != 0:
                continue
            if data["run"] not in out and len(out) == groups:
                break
            out.setdefault(data["run"], []).append(line.rstrip("\n"))
    target.write_text("".join(f"{line}\n" for lines in out.values() for line in lines), encoding="utf-8")
    return list(out.values())


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("recordings")
    _first_groups(data_path("model_trials/agent_study.smollm2-135m.jsonl.gz"), base / "agent_study.smollm2-135m.jsonl", 12)
    _first_groups(data_path("model_trials/notes_study.smollm2-135m.jsonl.gz"), base / "notes_study.smollm2-135m.jsonl", 6)
    return base


@pytest.mark.slow
def test_the_report_card_is_the_same_bytes_twice_and_holds_the_contrasts(folder: Path, tmp_path: Path) -> None:
    first = write_report(folder, tmp_path / "a", resamples=500)
    second = write_report(folder, tmp_path / "b", resamples=500)
    for a, b in zip((first.markdown, first.html, *first.figures), (second.markdown, second.html, *second.figures)):
        assert a.read_bytes() == b.read_bytes(), a.name
    text = first.markdown.read_text(encoding="utf-8")
    assert "| SmolLM2-135M | Pre-failure work | labelled − transcript |" in text
    row = next(line for line in text.splitlines() if "| Pre-failure work | labelled − transcript |" in line)
    assert " to " in row and "not computable" not in row  # twelve tasks: an interval
    assert "## The notes study" in text and "notes_study_outcomes.png" in text


class _Seeded:
    """A model that answers EXECUTE or REPLAN at seeded random, probes with NONE, and code requests by declining."""

    identity = ModelIdentity("seeded", "0" * 64, "seeded", "1")

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def prepare(self, settings: GenerationSettings) -> None:
        pass

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass

    def complete(self, messages: Sequence[Message], settings: GenerationSettings) -> str:
        if settings.grammar is None:
            return "NO EDIT: the note may be stale." if self.rng.random() < 0.5 else "I would change nothing."
        if "EXECUTE" not in settings.grammar:
            return "NONE"
        return "EXECUTE" if self.rng.random() < 0.7 else "REPLAN"


@pytest.fixture(scope="module")
def cells() -> list[list[str]]:
    """The first three tasks of the agent study's second edition in every order, answered by the seeded model."""
    model = _Seeded()
    return [run_agent_sample(model, sample.metadata) for sample in agent_samples()[:9]]


@pytest.fixture(scope="module")
def groups() -> list[list[str]]:
    """The notes study's first six groups of the greedy repeat, answered by the seeded model."""
    model = _Seeded(1)
    return [run_notes_sample(model, sample.metadata) for sample in notes_samples()[:6]]


def test_scores_agree_with_the_second_editions_analysis_of_the_same_lines(cells: list[list[str]]) -> None:
    every = [CallRecord.from_dict(json.loads(line)) for lines in cells for line in lines]
    runs = edition2_runs(every)
    probes = probe_table(every)
    assert len(runs) == 4 * len(cells) and set(runs["order"]) == {0, 1, 2}
    for lines in cells:
        scores = agent_scores(lines)
        task = json.loads(lines[0])["task"]
        mine = runs[(runs["order"] == task["order"])
                    & (runs["task"] == json.dumps({k: task[k] for k in ("family", "params", "scenario")},
                                                  sort_keys=True, separators=(",", ":")))]
        assert len(mine) == 4
        for row in mine.to_dict("records"):
            arm = row["arm"]
            for metric in AGENT_METRICS[:-1]:
                assert scores[metric][arm] == row[metric] or (math.isnan(scores[metric][arm]) and math.isnan(row[metric]))
            unfinished_cost = 2 * row["budget"]  # the pre-registered rule
            assert row["cost"] == (row["steps_used"] if row["completed"] else unfinished_cost)
        probed = probes[(probes["order"] == task["order"]) & probes["task"].isin(mine["task"])]
        assert {a: v for a, v in scores["probe"].items() if not math.isnan(v)} == \
            {r["arm"]: float(r["exact"]) for r in probed.to_dict("records")}


def test_notes_scores_are_the_frozen_readers_outcomes(groups: list[list[str]]) -> None:
    for lines in groups:
        scores = notes_scores(lines)
        for line in map(json.loads, lines):
            outcome = line["outcome"]["reading"]["outcome"]
            assert scores["declined"][line["arm"]] == float(outcome == "declined")
            assert scores["stale_edit"][line["arm"]] == float(outcome == "stale_edit")
    assert {json.loads(line)["experiment"] for lines in groups for line in lines} == {"notes_study_2"}


@pytest.mark.slow
def test_the_second_editions_report_card_holds_the_primary_contrasts(cells: list[list[str]], groups: list[list[str]],
                                                                     tmp_path: Path) -> None:
    base = tmp_path / "recordings"
    base.mkdir()
    (base / "agent_study_2.seeded.jsonl").write_text("".join(f"{line}\n" for c in cells for line in c), encoding="utf-8")
    (base / "notes_study_2.seeded.jsonl").write_text("".join(f"{line}\n" for g in groups for line in g), encoding="utf-8")
    first = write_report(base, tmp_path / "a", resamples=200)
    second = write_report(base, tmp_path / "b", resamples=200)
    for a, b in zip((first.markdown, first.html, *first.figures), (second.markdown, second.html, *second.figures)):
        assert a.read_bytes() == b.read_bytes(), a.name
    text = first.markdown.read_text(encoding="utf-8")
    for needed in ("## The agent study (second edition)", "### Primary contrasts (stale-fact tasks)",
                   "| Discrimination | labelled − transcript |", "| Cost over the validity-aware executor | told − labelled |",
                   "| enforced − told |", "validity-aware executor", "always execute", "### Order bias",
                   "## The notes study (second edition)", "### The manipulation check", "refutable − placebo"):
        assert needed in text, needed


def test_notes_scores_read_each_arm_once() -> None:
    lines = [line.rstrip("\n") for line in gzip.open(data_path("model_trials/notes_study.smollm2-135m.jsonl.gz"), "rt")
             if '"recording"' not in line[:14]][:6]
    scores = notes_scores(lines)
    for arm in ("control", "true_note", "stale_labelled", "stale_verify", "dependency_changed", "withheld"):
        assert sum(scores[m][arm] for m in ("stale_edit", "true_edit", "held_back")) <= 1.0


@pytest.mark.parametrize("args, needle", [
    (["models", "import-inspect", "missing.eval"], "inspect log 'missing.eval' does not exist"),
    (["models", "import-inspect", "not-a-log.eval"], "is not an inspect log"),
    (["study", "report", "empty"], "no study recording in 'empty'"),
    (["study", "report", "nowhere"], "recordings folder 'nowhere' does not exist"),
    (["models", "serve", "nosuchmodel"], "'nosuchmodel' is neither a bundled model"),
    (["models", "serve", "smollm2-135m", "--port", "0"], "port must be a whole number >= 1, got 0"),
])
def test_a_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    (tmp_path / "not-a-log.eval").write_text("hello", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    done = subprocess.run([*CVLIB, *args], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and needle in done.stderr, done.stderr


def test_the_tasks_defaults_are_the_second_editions_design() -> None:
    from cvbook.inspect_registry import agent_study, notes_study
    from cvlib.core.errors import ParameterError
    from cvlib.evals.tasks import planned_repeats

    agent = agent_study()
    assert len(agent.dataset) == 600 and agent.metadata["orders"] == [0, 1, 2]
    assert [s.metadata["order"] for s in agent.dataset[:3]] == [0, 1, 2]  # a task's three cells together
    assert len(agent_study(orders="2").dataset) == 200
    with pytest.raises(ParameterError, match="orders='3'"):
        agent_study(orders="3")
    notes = notes_study()  # no active model: the greedy repeat
    assert {s.metadata["variant"] for s in notes.dataset} == {"unrefutable", "refutable", "placebo"}
    assert {s.metadata["repeat"] for s in notes.dataset} == {0}
    assert planned_repeats("cvlib/qwen2.5-coder-1.5b") == (0, 1, 2)
    assert planned_repeats("cvlib/smollm2-135m") == planned_repeats("openai/gpt-4.1-mini") == (0,)


def test_an_aligned_sample_records_aligned_calls_and_a_bad_evaluation_is_named() -> None:
    from cvlib.core.errors import ParameterError
    from cvlib.experiments.agent_study.edition2 import ALIGNED_BATCH

    sample = agent_samples((0,), "aligned")[0]
    assert sample.metadata["evaluation"] == "aligned" and "evaluation" not in agent_samples((0,))[0].metadata
    settings = {(line["settings"]["evaluation"], line["settings"]["batch_size"])
                for line in map(json.loads, run_agent_sample(_Seeded(), sample.metadata))}
    assert settings == {("aligned", ALIGNED_BATCH)}
    with pytest.raises(ParameterError, match="evaluation='cached': expected pure or aligned"):
        agent_samples((0,), "cached")
