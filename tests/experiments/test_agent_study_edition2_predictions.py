"""The second edition's predictions, graded by code: each rule on tables built to make it hold, fail or not apply."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from cvlib.experiments.agent_study.edition2_predictions import (
    HELD,
    LARGE,
    MIDDLE,
    NOT_APPLICABLE,
    NOT_HELD,
    SMALL,
    UNTESTABLE,
    grade_predictions,
)

ARMS = ("transcript", "labelled", "told", "enforced")


def _runs(model: str, tasks: int = 40, *, discrimination=None, cost=None, pfw=None, execute_blocked=None,
          execute_first: float = 0.5, execute_other: float = 0.5, group: str = "first", stale: bool = True,
          seed: int = 0) -> pd.DataFrame:
    """One row per task, order and arm; each metric a function of the arm (a dict), with a little seeded noise."""
    rng = random.Random(seed)
    rows = []
    for t in range(tasks):
        for order in range(3):
            for arm in ARMS:
                noise = rng.uniform(-0.01, 0.01)
                share = execute_first if order == 0 else execute_other
                rows.append({
                    "model": model, "task": f"{group}{t}", "group": group, "stale_fact": stale, "order": order,
                    "arm": arm, "discrimination": (discrimination or {}).get(arm, 0.0) + noise,
                    "cost_over_aware": (cost or {}).get(arm, 0.0) + noise, "pre_failure_work": (pfw or {}).get(arm, 0.0) + noise,
                    "blocked": 10, "execute_blocked": (execute_blocked or {}).get(arm, 0),
                    "answered_execute": round(10 * share), "decisions": 10,
                })
    return pd.DataFrame(rows)


def _probes(model: str, exact: dict[str, float], tasks: int = 40) -> pd.DataFrame:
    rows = [{"model": model, "task": f"first{t}", "stale_fact": True, "order": 0, "arm": arm,
             "exact": t < exact[arm] * tasks, "precision": None, "recall": None}
            for t in range(tasks) for arm in ARMS]
    return pd.DataFrame(rows)


NO_PROBES = pd.DataFrame(columns=["model", "task", "stale_fact", "order", "arm", "exact", "precision", "recall"])
NO_FIRSTS = pd.DataFrame(columns=["model", "cell", "told", "enforced"])


def _verdicts(runs, probes=NO_PROBES, firsts=NO_FIRSTS):
    return {(v.prediction, v.model): v for v in grade_predictions(runs, probes, firsts)}


def test_e1_reading_helps_the_large_model_less_than_in_the_first_edition_and_not_the_small_one():
    runs = pd.concat([_runs(LARGE, discrimination={"labelled": 0.2}), _runs(SMALL)])
    got = _verdicts(runs)
    assert got[("E1", LARGE)].verdict == HELD
    assert got[("E1", SMALL)].verdict == HELD
    bigger = _verdicts(pd.concat([_runs(LARGE, discrimination={"labelled": 0.6}), _runs(SMALL, discrimination={"labelled": 0.5})]))
    assert bigger[("E1", LARGE)].verdict == NOT_HELD and "first edition" in bigger[("E1", LARGE)].reason
    assert bigger[("E1", SMALL)].verdict == NOT_HELD


def test_a_null_on_too_few_tasks_is_untestable_never_held():
    got = _verdicts(_runs(SMALL, tasks=5))
    assert got[("E1", SMALL)].verdict == UNTESTABLE and "too few" in got[("E1", SMALL)].reason


def test_e2_being_told_changes_nothing_for_the_large_model_and_costs_the_middle_one_on_controls():
    runs = pd.concat([_runs(LARGE), _runs(MIDDLE, cost={"told": 3.0}, stale=False, group="control")])
    got = _verdicts(runs)
    assert got[("E2", LARGE)].verdict == HELD
    assert got[("E2", MIDDLE)].verdict == HELD
    assert _verdicts(_runs(MIDDLE, stale=False, group="control"))[("E2", MIDDLE)].verdict == NOT_HELD


def test_e3_applies_only_to_a_told_arm_that_still_executes_at_blocked_steps():
    executes = _runs(MIDDLE, pfw={"told": 1.0}, execute_blocked={"told": 5})
    assert _verdicts(executes)[("E3", MIDDLE)].verdict == HELD
    no_gain = _runs(MIDDLE, execute_blocked={"told": 5})
    assert _verdicts(no_gain)[("E3", MIDDLE)].verdict == NOT_HELD
    obeys = _runs(MIDDLE, execute_blocked={"told": 0})
    assert _verdicts(obeys)[("E3", MIDDLE)].verdict == NOT_APPLICABLE


def test_e4_the_small_model_cannot_name_the_facts_and_the_large_one_reads_them_alike_in_both_arms():
    probes = pd.concat([_probes(SMALL, dict.fromkeys(ARMS, 0.1)), _probes(LARGE, dict.fromkeys(ARMS, 0.7))])
    got = _verdicts(pd.concat([_runs(SMALL), _runs(LARGE)]), probes)
    assert got[("E4", SMALL)].verdict == HELD
    assert got[("E4", LARGE)].verdict == HELD
    probes = pd.concat([_probes(SMALL, dict.fromkeys(ARMS, 0.9)), _probes(LARGE, {**dict.fromkeys(ARMS, 0.9), "transcript": 0.2})])
    got = _verdicts(pd.concat([_runs(SMALL), _runs(LARGE)]), probes)
    assert got[("E4", SMALL)].verdict == NOT_HELD and got[("E4", LARGE)].verdict == NOT_HELD


def test_e5_the_small_models_favour_the_first_listed_option():
    got = _verdicts(pd.concat([_runs(SMALL, execute_first=0.9, execute_other=0.2), _runs(LARGE)]))
    assert got[("E5", SMALL)].verdict == HELD and got[("E5", LARGE)].verdict == HELD
    assert _verdicts(_runs(SMALL))[("E5", SMALL)].verdict == NOT_HELD


def test_e6_the_large_model_costs_no_more_than_half_a_step_on_controls():
    assert _verdicts(_runs(LARGE, stale=False, group="control"))[("E6", LARGE)].verdict == HELD
    costly = _runs(LARGE, stale=False, group="control", cost={"told": 2.0})
    got = _verdicts(costly)[("E6", LARGE)]
    assert got.verdict == NOT_HELD and "told" in got.reason


def test_e7_no_arm_beats_the_validity_aware_executor_on_floorless_tasks():
    assert _verdicts(_runs(MIDDLE, group="hidden"))[("E7", "")].verdict == HELD
    got = _verdicts(_runs(MIDDLE, group="hidden", cost={"labelled": -1.0}))[("E7", "")]
    assert got.verdict == NOT_HELD and "labelled" in got.reason
    assert _verdicts(_runs(MIDDLE))[("E7", "")].verdict == UNTESTABLE


def test_e8_told_and_enforced_first_answers_are_the_same_in_every_cell():
    firsts = pd.DataFrame({"model": [SMALL] * 3, "cell": ["a", "b", "c"], "told": ["EXECUTE"] * 3,
                           "enforced": ["EXECUTE", "EXECUTE", "REPLAN"]})
    got = _verdicts(_runs(SMALL), NO_PROBES, firsts)[("E8", SMALL)]
    assert got.verdict == NOT_HELD and got.reason == "2 of 3 cells"


@pytest.mark.parametrize("model", [SMALL, MIDDLE, LARGE])
def test_a_model_without_a_recording_gets_no_verdict(model):
    others = {SMALL, MIDDLE, LARGE} - {model}
    got = _verdicts(pd.concat([_runs(m) for m in sorted(others)]))
    assert all(m != model for _, m in got)


def test_first_answers_are_read_per_cell_from_a_recording(tmp_path):
    from cvlib.experiments.agent_study import edition2
    from cvlib.experiments.agent_study.edition2 import edition2_tasks, record_edition2
    from cvlib.experiments.agent_study.edition2_predictions import first_answers
    from tests._scripted_models import opened_as
    from tests.experiments.test_agent_study_edition2 import PromptHash

    out = tmp_path / "agent_study_2.pure.jsonl.gz"
    with opened_as(edition2, PromptHash()):
        record_edition2("pure", out, edition2_tasks()[:2], progress=False)
    firsts = first_answers(out)
    assert len(firsts) == 6 and (firsts["told"] == firsts["enforced"]).all()
    assert set(firsts["told"]) <= {"EXECUTE", "REPLAN"}
