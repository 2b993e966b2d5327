"""The second edition's analysis on scripted recordings: discrimination, cost, order bias, bounds, references."""

from __future__ import annotations

import math

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.agent_study import edition2
from cvlib.experiments.agent_study.analysis import paired_effects
from cvlib.experiments.agent_study.edition2 import edition2_tasks, record_edition2
from cvlib.experiments.agent_study.edition2_analysis import (
    PRIMARY_CONTRASTS,
    bounded,
    edition2_runs,
    order_bias,
    probe_scores,
    probe_table,
    reference_runs,
    task_group,
)
from cvlib.models import ModelIdentity
from tests._scripted_models import ScriptedModel, opened_as

TASKS = edition2_tasks()


class FirstListed(ScriptedModel):
    """Answers the first option its system turn lists (VERIFY naming the step's first fact); NONE to a probe."""

    identity = ModelIdentity("first.gguf", "3" * 64, "scripted", "1")

    def complete(self, messages, settings) -> str:
        if "Before you reply" in messages[-1][1]:
            return "NONE"
        first = messages[0][1].split("reply with exactly one of: ", 1)[1].split(",")[0].strip()
        if first.startswith("VERIFY"):
            fact = messages[-1][1].rsplit("rests on ", 1)[1].split(" ", 1)[0]
            return f"VERIFY {fact}"
        return first


class Targets(ScriptedModel):
    """EXECUTE where every fact shown is ACTIVE (or, in the transcript arm, always); REPLAN elsewhere."""

    identity = ModelIdentity("targets.gguf", "4" * 64, "scripted", "1")

    def complete(self, messages, settings) -> str:
        if "Before you reply" in messages[-1][1]:
            return "NONE"
        step = messages[-1][1].rsplit("rests on ", 1)[1]
        return "REPLAN" if any(s in step for s in ("STALE", "SUPERSEDED", "UNKNOWN")) else "EXECUTE"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edition2")
    tasks = [t for t in TASKS if t.stale_fact][:12]
    paths = {}
    for name, model in (("first", FirstListed()), ("targets", Targets())):
        out = folder / f"agent_study_2.{name}.jsonl.gz"
        with opened_as(edition2, model):
            record_edition2(name, out, tasks, progress=False)
        paths[name] = out
    return paths


def test_a_model_that_answers_the_first_option_has_an_order_bias_of_one(recorded):
    runs = edition2_runs(recorded["first"])
    bias = order_bias(runs, "EXECUTE")
    assert set(bias["arm"]) == {"transcript", "labelled", "told", "enforced"}
    assert bias["mean"].tolist() == pytest.approx([1.0] * 4)
    assert set(runs["order"]) == {0, 1, 2}


def test_a_model_that_targets_discriminates_only_where_it_sees_the_states(recorded):
    runs = edition2_runs(recorded["targets"])
    by_arm = runs.groupby("arm")["discrimination"].mean()
    assert by_arm["transcript"] == pytest.approx(0.0)
    assert by_arm["labelled"] == pytest.approx(1.0)
    effects = paired_effects(runs, PRIMARY_CONTRASTS, metric="discrimination")
    reading = effects[effects["contrast"] == "labelled − transcript"].iloc[0]
    assert reading["mean"] == pytest.approx(1.0) and reading["tasks"] > 0
    told = effects[effects["contrast"] == "told − labelled"].iloc[0]
    assert told["mean"] == pytest.approx(0.0) and told["tasks"] == reading["tasks"]


def test_cost_is_read_against_the_validity_aware_executor_on_the_same_task(recorded):
    runs = edition2_runs(recorded["targets"])
    assert ((runs["cost"] - runs["cost_over_aware"]) > 0).all()
    unfinished = runs[~runs["completed"]]
    assert (unfinished["cost"] == 2 * unfinished["budget"]).all()


def test_probes_are_scored_per_fact(recorded):
    probes = probe_table(recorded["targets"])
    assert not probes.empty and set(probes["arm"]) <= {"transcript", "labelled", "told", "enforced"}
    named_none = probes[~probes["exact"]]
    assert (named_none["recall"] == 0.0).all()


def test_a_name_cut_by_the_token_limit_is_no_name():
    facts = ["F1", "F2", "F3"]
    cut = probe_scores(["F", "F2"], ["F2"], facts)  # "F2 F" cut at the limit: F2 alone was named
    assert cut == {"exact": True, "precision": 1.0, "recall": 1.0}
    wrong = probe_scores(["F", "F1", "F2"], ["F2"], facts)
    assert wrong == {"exact": False, "precision": 0.5, "recall": 1.0}
    assert probe_scores(["F"], [], facts) == {"exact": True, "precision": None, "recall": None}  # NONE, cut


def test_a_null_is_bounded_only_when_its_ninety_percent_interval_lies_inside_the_margin():
    tight = bounded([0.01, -0.02, 0.0, 0.02, -0.01] * 8, 0.1)
    assert tight["within"] and tight["tasks"] == 40
    loose = bounded([0.5, -0.5, 0.4, -0.3] * 3, 0.1)
    assert not loose["within"]
    assert bounded([0.0, math.nan, 0.0], 0.1)["tasks"] == 2
    with pytest.raises(ParameterError, match="margin must be positive"):
        bounded([0.0], 0.0)


def test_references_run_through_the_same_loop():
    tasks = [t.task for t in TASKS if t.stale_fact][:3]
    refs = reference_runs(tasks, rates={"EXECUTE": 0.5, "VERIFY": 0.25, "REPLAN": 0.25}, draws=20)
    assert set(refs["reference"]) == {"baseline", "validity_aware", "always_execute", "always_verify",
                                      "always_replan", "random"}
    pivot = refs.pivot(index="task", columns="reference", values="pre_failure_work")
    assert (pivot["always_execute"] == pivot["baseline"]).all()
    with pytest.raises(ParameterError, match="unknown study arm"):
        reference_runs(tasks, arm="gated")


def test_families_are_grouped_for_the_report():
    assert task_group("random", True) == "first" and task_group("hidden", True) == "hidden"
    assert task_group("random", False) == "control"
