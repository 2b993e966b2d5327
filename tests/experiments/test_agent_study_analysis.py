"""The pre-registered analysis on recordings made by scripted models: effects, references, probes, bias."""

from __future__ import annotations

from pathlib import Path

import pytest
from _scripted_models import FollowsTheRule, opened_as

from cvlib.experiments.agent_study import analysis, design
from cvlib.experiments.agent_study.design import record_study, study_tasks


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study") / "agent_study.scripted.jsonl.gz"
    tasks = [t for t in study_tasks() if t.task.family != "named"][:24]
    with opened_as(design, FollowsTheRule("obedient", sampled=("EXECUTE", "EXECUTE", "REPLAN"))):
        record_study("obedient", out, tasks, (0, 1), progress=False)
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


def test_whole_groups_drop_a_group_cut_short(recording: Path) -> None:
    runs = analysis.study_runs(recording)
    first = runs.iloc[0]
    cut = runs[~((runs["task"] == first["task"]) & (runs["repeat"] == first["repeat"]) & (runs["arm"] == "enforced"))]
    whole = analysis.whole_groups(cut)
    assert len(whole) == len(runs) - 4
    assert analysis.whole_groups(runs).equals(runs)


def test_one_task_gives_no_interval(recording: Path) -> None:
    runs = analysis.study_runs(recording)
    one = runs[runs["task"] == runs[runs["stale_fact"]]["task"].iloc[0]]
    effects = analysis.paired_effects(one, resamples=200)
    assert (effects["tasks"] == 1).all() and effects["low"].isna().all() and effects["high"].isna().all()


def test_references_sit_beside_each_model_and_the_random_seed_is_zero(recording: Path) -> None:
    runs = analysis.study_runs(recording)
    refs = analysis.reference_runs(runs["task"].unique(), analysis.answer_rates(runs))
    both = analysis.with_references(runs, refs)
    assert set(both["model"]) == {"obedient"}
    assert set(both["arm"]) >= {"baseline", "validity_aware", "random_told"}
    assert both["stale_fact"].dtype == bool and (both.groupby(["task", "arm"]).size() >= 1).all()
    effects = analysis.paired_effects(both, analysis.reference_contrasts(), resamples=500)
    va = effects[effects["contrast"] == "enforced − validity_aware"].iloc[0]
    assert va["mean"] == 0  # by construction: the gate has the validity-aware executor's pre-failure work
    assert analysis.RANDOM_SEED == 0
    means = analysis.arm_means(both, "pre_failure_work")
    assert set(means["arm"]) == set(both["arm"]) and (means["tasks"] == runs[runs["stale_fact"]]["task"].nunique()).all()


def test_task_shares_count_tasks_with_wilson_intervals(recording: Path) -> None:
    shares = analysis.task_shares(analysis.study_runs(recording))
    assert set(shares["share"]) == {"execute_blocked", "always_execute"}
    told = shares[(shares["arm"] == "told") & (shares["share"] == "execute_blocked")].iloc[0]
    assert told["count"] == 0 and told["low"] == 0  # the scripted model obeys a rule it is told
    transcript = shares[(shares["arm"] == "transcript") & (shares["share"] == "always_execute")].iloc[0]
    assert transcript["value"] == 1.0 and transcript["tasks"] > 0


def test_probe_rows_pair_by_task(recording: Path) -> None:
    probes = analysis.probe_runs(recording)
    assert set(probes.columns) == {"model", "task", "stale_fact", "repeat", "arm", "correct"}
    assert (probes["repeat"] == 0).all() and len(probes) == int(analysis.probe_accuracy(recording)["tasks"].sum())


def test_report_analyses_every_metric_and_grades_every_prediction(recording: Path) -> None:
    from cvlib.experiments.agent_study import report

    study = report.analyse({"smollm2-135m": recording}, resamples=500)
    assert study.models == ("smollm2-135m",)
    assert set(study.effects["kind"]) == {"primary", "reference", "control", "probe"}
    primary = study.effects[study.effects["kind"] == "primary"]
    assert set(primary["metric"]) == set(analysis.METRICS)
    table = report.verdicts(study, ["smollm2-135m", "qwen2.5-coder-1.5b"])
    assert {"P1", "P2", "P3a", "P3b", "P4", "P5", "P6a", "P6b"} <= set(table["prediction"])
    assert table[table["model"] == "qwen2.5-coder-1.5b"]["verdict"].tolist() == [report.NOT_RECORDED]
    assert set(table["verdict"]) <= {report.HELD, report.NOT_HELD, report.NOT_DECIDED, report.NOT_RECORDED,
                                     report.NOT_APPLICABLE}
    p3a = table[table["prediction"] == "P3a"].iloc[0]
    assert p3a["verdict"] == report.HELD
    told = table[table["prediction"] == "P2"].iloc[0]  # predicted null for 135M; the scripted model obeys, so it is not
    assert told["verdict"] == report.NOT_HELD
    again = report.analyse({"smollm2-135m": recording}, resamples=500)
    assert again.effects.equals(study.effects)  # seeded, same bytes


def test_report_of_nothing_is_empty() -> None:
    from cvlib.experiments.agent_study import report

    study = report.analyse({})
    assert study.models == () and study.effects.empty
    assert report.verdicts(study, ["smollm2-135m"])["verdict"].tolist() == [report.NOT_RECORDED]


def test_report_of_control_tasks_only_grades_what_it_can(recording: Path) -> None:
    from cvlib.experiments.agent_study import report
    from cvlib.models.recording import read_recording

    records = read_recording(recording)
    control = next(r.run for r in records if not r.task["stale_fact"] and r.task["repeat"] == 0)
    study = report.analyse({"smollm2-135m": [r for r in records if r.run == control]}, resamples=200)
    table = report.verdicts(study, ["smollm2-135m"])
    assert table[table["prediction"] == "P3a"]["verdict"].tolist() == [report.NOT_DECIDED]


def test_the_random_reference_draws_its_own_seed_per_task_and_draw(recording: Path) -> None:
    runs = analysis.study_runs(recording)
    tasks = list(runs["task"].unique()[:6])
    seeds = {analysis.random_seed(t, d) for t in tasks for d in range(3)}
    assert len(seeds) == 18 and analysis.random_seed(tasks[0], 0) == analysis.random_seed(tasks[0], 0)
    assert analysis.random_seed(tasks[0], 0, base=1) != analysis.random_seed(tasks[0], 0)
    rates = {("m", "labelled"): {"EXECUTE": 2 / 3, "VERIFY": 0.0, "REPLAN": 1 / 3}}
    refs = analysis.reference_runs(tasks, rates, draws=3)
    random_rows = refs[refs["arm"] == "random_labelled"]
    assert len(random_rows) == 3 * len(tasks) and sorted(random_rows["draw"].unique()) == [0, 1, 2]
    # one seed shared by every task would give every task's draws the same answers, so the same runs on equal tasks
    first = [_answer_stream(analysis.random_seed(t, 0), rates[("m", "labelled")]) for t in tasks]
    assert len(set(first)) > 1
    assert refs.equals(analysis.reference_runs(tasks, rates, draws=3))  # seeded


def _answer_stream(seed: int, rates: dict[str, float]) -> tuple[str, ...]:
    answers = analysis.RandomAnswers(rates, seed)
    return tuple(answers.complete([], None) for _ in range(4))  # type: ignore[arg-type]


def test_draws_below_one_are_refused_with_the_value() -> None:
    with pytest.raises(Exception, match="draws"):
        analysis.reference_runs([], None, draws=0)
