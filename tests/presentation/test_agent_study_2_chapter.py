"""The agent study's second-edition page and report tables, on scripted recordings whose answers are known."""

from __future__ import annotations

import json
import re

import pytest

from cvlib.core.errors import ParameterError
from cvlib.experiments.agent_study import edition2
from cvlib.experiments.agent_study.edition2 import edition2_tasks, record_edition2
from cvlib.experiments.agent_study.edition2_analysis import reference_runs
from cvlib.experiments.agent_study.reference_cache import (
    load_reference_cache,
    reference_key,
    write_reference_cache,
)
from cvlib.experiments.agent_study.tasks import AgentTask
from cvlib.models import ModelIdentity
from cvlib.presentation import agent_study_2_tables as tables
from cvlib.presentation.chapters import agent_study_2 as chapter
from tests._scripted_models import ScriptedModel, opened_as

TASKS = edition2_tasks()


class Targets(ScriptedModel):
    """EXECUTE where every fact shown is ACTIVE (in the transcript arm: always); REPLAN elsewhere; names nothing."""

    identity = ModelIdentity("targets.gguf", "4" * 64, "scripted", "1")

    def complete(self, messages, settings) -> str:
        if "Before you reply" in messages[-1][1]:
            return "NONE"
        step = messages[-1][1].rsplit("rests on ", 1)[1]
        return "REPLAN" if any(s in step for s in ("STALE", "SUPERSEDED", "UNKNOWN")) else "EXECUTE"


class AlwaysExecutes(ScriptedModel):
    """EXECUTE at every step, whatever it is shown."""

    identity = ModelIdentity("always.gguf", "5" * 64, "scripted", "1")

    def complete(self, messages, settings) -> str:
        return "NONE" if "Before you reply" in messages[-1][1] else "EXECUTE"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("agent_study_2")
    stale = [t for t in TASKS if t.stale_fact][:12]
    control = [t for t in TASKS if not t.stale_fact][:2]
    for name, model in (("targets", Targets()), ("always", AlwaysExecutes())):
        with opened_as(edition2, model):
            record_edition2(name, root / f"agent_study_2.{name}.jsonl.gz", stale + control, progress=False)
    return root


@pytest.fixture(scope="module")
def study(folder):
    return tables.read_runs(tables.sources_in(folder, ["always", "targets"]), draws=5, cache=None)


def _level(study, model, arm, metric, group="stale"):
    rows = tables.level_rows(study, group)
    hit = rows[(rows["model"] == model) & (rows["arm"] == arm) & (rows["metric"] == metric)]
    return float(hit["mean"].iloc[0])


def test_a_model_that_always_executes_costs_what_always_executing_costs(study):
    for arm in ("transcript", "labelled", "told"):
        assert _level(study, "always", arm, "cost") == pytest.approx(_level(study, "always", "always execute", "cost"))
        assert _level(study, "always", arm, "discrimination") == pytest.approx(0.0)


def test_a_model_that_targets_discriminates_where_it_sees_the_states_and_not_in_the_transcript(study):
    assert _level(study, "targets", "labelled", "discrimination") == pytest.approx(1.0)
    assert _level(study, "targets", "transcript", "discrimination") == pytest.approx(0.0)
    rows = tables.contrast_rows(study)
    read = rows[(rows["model"] == "targets") & (rows["contrast"] == "labelled − transcript")
                & (rows["metric"] == "discrimination")].iloc[0]
    assert read["mean"] == pytest.approx(1.0)
    assert read["reading"].startswith("identical") is False


def test_the_references_are_their_rules_and_the_random_one_answers_at_the_arms_rates(study):
    refs = study.refs
    assert set(refs["reference"]) == {"baseline", "validity_aware", "always_execute", "always_verify", "always_replan",
                                      "random"}
    assert (refs.loc[refs["reference"] == "validity_aware", "cost_over_aware"] == 0).all()
    # A model that only executes has EXECUTE rate 1: its random reference is always executing.
    mine = refs[(refs["model"] == "always") & (refs["arm"] == "transcript")]
    chance = mine[mine["reference"] == "random"].set_index(["task", "order"])["cost"]
    always = mine[mine["reference"] == "always_execute"].set_index(["task", "order"])["cost"]
    assert chance.sort_index().tolist() == pytest.approx(always.sort_index().tolist())


def test_a_contrast_of_identical_arms_reads_identical_and_a_small_family_gets_no_interval(study):
    rows = tables.contrast_rows(study)
    same = rows[(rows["model"] == "always") & (rows["contrast"] == "told − labelled") & (rows["metric"] == "cost_over_aware")]
    assert same.iloc[0]["reading"] == "identical on all 12 tasks"
    control = tables.contrast_rows(study, "control")
    assert control.empty or control["low"].isna().all()
    assert all(r.startswith(("too few", "identical")) for r in control["reading"])


def test_a_discrimination_null_under_eighty_tasks_is_not_bounded(study):
    rows = tables.contrast_rows(study)
    nulls = rows[(rows["metric"] == "discrimination") & rows["reading"].str.contains("bound")]
    assert not nulls["reading"].str.startswith("no change").any()


def test_the_status_counts_cells_and_tasks_in_all_orders_and_names_a_planned_model_without_a_file(study):
    status = tables.recording_status(study, ["targets", "absent"]).set_index("model")
    assert status.loc["targets", "cells"] == 14 * 3
    assert status.loc["targets", "tasks_all_orders"] == 14
    assert (status.loc["targets", "stale"], status.loc["targets", "control"]) == (12, 2)
    assert status.loc["absent", "cells"] == 0 and not status.loc["absent", "complete"]
    values = chapter.chapter_values(study, "targets", ["targets", "absent"])
    assert "absent is not recorded yet" in values["A2_recording_state"][0]
    assert values["A2_recording_state"][0].startswith("Recorded so far: ")


def test_the_recording_state_says_whole_only_when_every_planned_model_is_complete(study, monkeypatch):
    status = tables.recording_status(study, ["targets"])
    monkeypatch.setattr(chapter, "recording_status", lambda *_: status.assign(complete=True))
    assert chapter.chapter_values(study, "targets", ["targets"])["A2_recording_state"][0].startswith("Recorded whole: ")
    monkeypatch.setattr(chapter, "recording_status", lambda *_: status.assign(complete=False))
    assert chapter.chapter_values(study, "targets", ["targets"])["A2_recording_state"][0].startswith("Recorded so far: ")


def test_a_task_missing_an_order_is_counted_but_not_read(folder, study, tmp_path):
    import gzip

    lines = gzip.open(folder / "agent_study_2.targets.jsonl.gz", "rt").read().splitlines()
    first = json.loads(lines[1])["task"]
    cut_task = {k: v for k, v in first.items() if k != "order"}

    def cut(line: str) -> bool:  # the first task's last order, as a recorder stopped mid-task leaves it
        task = json.loads(line).get("task") or {}
        return task.get("order") == 2 and {k: v for k, v in task.items() if k != "order"} == cut_task

    kept = [line for line in lines if not cut(line)]
    assert len(kept) < len(lines)
    with gzip.open(tmp_path / "agent_study_2.targets.jsonl.gz", "wt") as out:
        out.write("\n".join(kept) + "\n")
    short = tables.read_runs(tables.sources_in(tmp_path, ["targets"]), draws=5, cache=None)
    assert short.runs["task"].nunique() == study.runs[study.runs["model"] == "targets"]["task"].nunique() - 1
    assert set(short.partial["order"]) == {0, 1} and short.probes["task"].nunique() < study.probes["task"].nunique()
    status = tables.recording_status(short, ["targets"]).set_index("model").loc["targets"]
    assert status["cells"] == 3 * status["tasks_all_orders"] + 2
    # a run of fewer orders (a reader's -T orders=0,1, or inspect's --limit 2) is read whole: every task has them all
    two = [line for line in lines if (json.loads(line).get("task") or {}).get("order") != 2]
    folder_two = tmp_path / "two"
    folder_two.mkdir()
    with gzip.open(folder_two / "agent_study_2.targets.jsonl.gz", "wt") as out:
        out.write("\n".join(two) + "\n")
    read = tables.read_runs(tables.sources_in(folder_two, ["targets"]), draws=5, cache=None)
    assert read.partial.empty and read.runs["task"].nunique() == short.runs["task"].nunique() + 1


def test_told_and_enforced_first_answers_agree_on_every_cell(study):
    agreement = tables.first_answer_agreement(study).set_index("model")
    assert (agreement["identical"] == agreement["cells"]).all() and (agreement["cells"] == 42).all()


def test_the_level_sentences_state_levels_and_the_probe_gate(study):
    said = chapter.level_sentences(study, "targets")
    assert "labelled 1.00" in said and "transcript 0.00" in said
    assert len(re.split(r"(?<=\.) (?=[A-Z])", said)) == 4  # four sentences, as the issue asks
    assert "not that it read the states" in said  # it names nothing when probed
    assert chapter.level_sentences(study, "nobody").endswith("not recorded yet.")


def test_the_contrasts_in_words_say_each_direction_once_and_leave_the_intervals_to_the_table(study):
    said = chapter.contrasts_markdown(study)
    reading = next(line for line in said.splitlines() if line.startswith("- **Reading the states**"))
    assert "targets: discrimination 1.00 (only 7 tasks, too few to read) and cost fell by 2.83 steps" in reading
    assert "always: discrimination 0.00 (only 8 tasks, too few to read) and cost identical on all 12 tasks" in reading
    assert not re.search(r"\d to [−+-]?\d", said)  # no interval is repeated from the table


def test_the_prompts_show_each_arm_as_its_change(folder):
    shown = chapter.prompts_markdown(tables.sources_in(folder), "targets")
    assert "**`enforced`**: the same first turn as `told`, byte for byte" in shown
    assert "+ Rule: do not EXECUTE" in shown
    assert shown.count("<details") == 4


def test_the_main_model_is_the_largest_recorded_unless_asked(study):
    assert chapter.main_model(study, "", ["always", "targets", "absent"]) == "targets"
    assert chapter.main_model(study, "always", ["always", "targets"]) == "always"


def test_a_folder_without_recordings_is_a_clear_error(tmp_path):
    with pytest.raises(ParameterError, match="no recording of smollm2-135m"):
        tables.sources_in(tmp_path, ["smollm2-135m"], require=True)
    with pytest.raises(ParameterError, match="no folder of recordings"):
        tables.sources_in(tmp_path / "missing")
    with pytest.raises(ParameterError, match="unknown family group"):
        tables.contrast_rows(tables.read_runs({}), "everything")


def test_the_page_tables_render_for_every_family(study):
    assert tables.levels_table(study).rows
    assert chapter.family_table(study).rows
    assert chapter.family_levels_table(study).rows
    assert tables.order_bias_table(study).rows
    assert chapter.predictions_table(study) is not None
    figure = tables.levels_figure(study)
    assert len(figure.axes) == 2


def test_the_cached_random_reference_is_what_a_fresh_computation_gives(study, folder, tmp_path):
    used: dict = {}
    again = tables.read_runs(tables.sources_in(folder, ["targets"]), draws=5, cache=None, computed=used)
    path = tmp_path / "random.csv"
    write_reference_cache(path, used)
    table = load_reference_cache(path)
    assert table == used
    key, (cost, pfw, completed) = sorted(table.items())[0]
    runs = again.runs
    part = runs[(runs["arm"] == key[1])]
    task = next(t for t in sorted(set(part["task"])) if reference_key(t, key[1], {"EXECUTE": key[2], "VERIFY": key[3],
                                                                                 "REPLAN": key[4]}, 5) == key)
    total = key[2] + key[3] + key[4]
    rates = {"EXECUTE": key[2] / total, "VERIFY": key[3] / total, "REPLAN": key[4] / total}
    fresh = reference_runs([AgentTask.from_dict(json.loads(task))], arm=key[1], rates=rates, draws=5)
    row = fresh[fresh["reference"] == "random"].iloc[0]
    assert (row["cost"], row["pre_failure_work"], row["completed"]) == pytest.approx((cost, pfw, completed))
    cached = tables.read_runs(tables.sources_in(folder, ["targets"]), draws=5, cache=path)
    assert cached.refs.equals(again.refs)


def test_a_malformed_cache_file_is_a_clear_error(tmp_path):
    path = tmp_path / "random.csv"
    path.write_text("task,arm\nx,y\n", encoding="utf-8")
    with pytest.raises(ParameterError, match="expected the columns"):
        load_reference_cache(path)
    path.write_text("task,arm,execute,verify,replan,draws,cost,pre_failure_work,completed\nx,told,a,1,1,5,1,1,1\n",
                    encoding="utf-8")
    with pytest.raises(ParameterError, match="line 2"):
        load_reference_cache(path)


def test_the_committed_random_reference_table_recomputes():
    """Three seeded rows of the book's table, computed again from scratch, are the same numbers."""
    import random

    from cvlib.models.recording import canonical
    from cvlib.repository import project_root

    table = load_reference_cache(project_root() / tables.DEFAULT_CACHE)
    assert table, "data/model_trials/agent_study_2_random.csv is missing or empty"
    none = {"EXECUTE": 0, "VERIFY": 0, "REPLAN": 0}
    tasks = {}
    for t in TASKS:
        fields = t.task.to_dict()
        digest = reference_key(canonical({k: fields[k] for k in ("family", "scenario", "params")}), "", none, 0)[0]
        tasks[digest] = t.task
    for key in random.Random(0).sample(sorted(table), 3):
        total = key[2] + key[3] + key[4]
        rates = {"EXECUTE": key[2] / total, "VERIFY": key[3] / total, "REPLAN": key[4] / total}
        fresh = reference_runs([tasks[key[0]]], arm=key[1], rates=rates, draws=key[5])
        row = fresh[fresh["reference"] == "random"].iloc[0]
        assert (row["cost"], row["pre_failure_work"], row["completed"]) == pytest.approx(table[key]), key


def test_the_front_page_gets_the_main_models_discrimination_per_arm(study):
    values = chapter.chapter_values(study, "targets", ["targets"])
    assert {k: values[k][0] for k in ("A2_front_transcript", "A2_front_labelled", "A2_front_told")} == {
        "A2_front_transcript": "0.00", "A2_front_labelled": "1.00", "A2_front_told": "1.00"}
    assert set(chapter.front_values(study, "nobody").values()) == {("not recorded yet", "count")}
