"""The pre-registered analysis on recordings made by scripted models: effects, references, probes, bias."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cvlib.experiments.agent_study import analysis, design
from cvlib.experiments.agent_study.design import record_study, study_tasks
from cvlib.models import ModelIdentity


class Scripted:
    """Executes unless the step shows a fact not ACTIVE and the arm was told; samples at random when asked to."""

    def __init__(self, name: str, obey: bool, seed: int = 0) -> None:
        self.identity = ModelIdentity(name, "7" * 64, "scripted", "1")
        self.obey, self.rng = obey, random.Random(seed)

    def prepare(self, settings) -> None:
        pass

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass

    def complete(self, messages, settings) -> str:
        text = messages[-1][1]
        if "Before you reply" in text:
            return "NONE"
        told = "Rule: do not EXECUTE" in messages[1][1]
        doubtful = any(s in text.rsplit("Step", 1)[-1] for s in ("SUPERSEDED", "UNKNOWN", "STALE"))
        if self.obey and told and doubtful:
            return "REPLAN"
        if settings.temperature > 0:
            return self.rng.choice(["EXECUTE", "EXECUTE", "REPLAN"])
        return "EXECUTE"


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study") / "agent_study.scripted.jsonl.gz"
    tasks = [t for t in study_tasks() if t.task.family != "named"][:24]
    model = Scripted("obedient", obey=True)
    original = design.open_model
    design.open_model = lambda spec: model  # type: ignore[assignment]
    try:
        record_study("obedient", out, tasks, (0, 1), progress=False)
    finally:
        design.open_model = original  # type: ignore[assignment]
    return out


def test_runs_have_one_row_per_task_repeat_and_arm(recording: Path) -> None:
    runs = analysis.study_runs(recording)
    assert len(runs) == 24 * 2 * 4
    assert set(runs["arm"]) == {"transcript", "labelled", "told", "enforced"}
    assert (runs["decisions"] == runs[["answered_execute", "answered_verify", "answered_replan"]].sum(axis=1)).all()


def test_being_told_lowers_pfw_for_a_model_that_obeys(recording: Path) -> None:
    runs = analysis.study_runs(recording)
    effects = analysis.paired_effects(runs, resamples=2000)
    told = effects[effects["contrast"] == "told − labelled"].iloc[0]
    reading = effects[effects["contrast"] == "labelled − transcript"].iloc[0]
    assert told["mean"] < 0 and told["high"] <= 0 and told["low"] <= told["mean"] <= told["high"]
    assert reading["mean"] == pytest.approx(0, abs=0.5)
    assert told["tasks"] == int(runs[runs["stale_fact"]]["task"].nunique())
    again = analysis.paired_effects(runs, resamples=2000)
    assert again.equals(effects)  # seeded


def test_mcnemar_and_references(recording: Path) -> None:
    runs = analysis.study_runs(recording)
    table = analysis.completion_mcnemar(runs, "told", "labelled")
    assert table.iloc[0]["tasks"] > 0 and 0 <= table.iloc[0]["p_value"] <= 1
    rates = analysis.answer_rates(runs)
    assert abs(sum(rates[("obedient", "transcript")].values()) - 1) < 1e-9
    refs = analysis.reference_runs(runs["task"].unique()[:5], rates)
    assert set(refs["arm"]) >= {"baseline", "validity_aware", "random_transcript", "random_enforced"}
    assert refs.equals(analysis.reference_runs(runs["task"].unique()[:5], rates))  # seeded


def test_probes_and_position_bias(recording: Path) -> None:
    probes = analysis.probe_accuracy(recording)
    assert set(probes["arm"]) <= {"transcript", "labelled", "told", "enforced"} and (probes["tasks"] > 0).all()
    assert ((probes["low"] <= probes["share"]) & (probes["share"] <= probes["high"])).all()
    bias = analysis.position_bias(recording)
    assert set(bias["answer"]) == {"EXECUTE", "VERIFY", "REPLAN"}
    assert (bias["first_shown"] + bias["later_shown"]).nunique() == 1  # every sampled decision counted for each option
