"""The notes study's analysis on a recording made by a scripted model: answers read again, paired effects, the gate."""

from __future__ import annotations

from pathlib import Path

import pytest
from _scripted_models import HoldsBackWhenRefuted, opened_as

from cvlib.experiments.notes_study import analysis as na
from cvlib.experiments.notes_study import design as nd
from cvlib.experiments.notes_study import load_tasks
from cvlib.experiments.notes_study.refutations import DependencySource, Refutation

ROOT = Path(__file__).resolve().parents[2]
TASKS = load_tasks(ROOT / "data" / "model_trials" / "notes_tasks.yaml")[:8]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("notes") / "notes_study.scripted.jsonl.gz"
    refutations = {t.id: Refutation(t.id, t.project, t.to_version, (DependencySource("f.py", "g", "def g():\n    pass\n"),),
                                    "def test_g():\n    pass\n", ("x",), {"original": "pass", "stale": "fail", "true": "pass"})
                   for t in TASKS}
    with opened_as(nd, HoldsBackWhenRefuted(TASKS)):
        nd.record_notes_study("scripted", out, TASKS, [("unrefutable", 0), ("refutable", 0)], refutations=refutations,
                              effects={}, progress=False)
    return out


def test_refutation_lowers_stale_edits_for_a_model_that_reads_it(recording: Path) -> None:
    outcomes = na.read_outcomes([recording], TASKS, {})
    shares = na.stale_shares(outcomes)
    fresh = shares[(shares["arm"] == "dependency_changed")].set_index("variant")["share"]
    assert fresh["unrefutable"] == 1.0 and fresh["refutable"] == 0.0
    effects = na.variant_effects(outcomes)
    row = effects[effects["arm"] == "dependency_changed"].iloc[0]
    assert row["mean"] == -1.0 and row["tasks"] == len(TASKS) and row["only_unrefutable"] == len(TASKS)
    assert row["p_value"] < 0.01
    contrasts = na.arm_contrasts(outcomes)
    assert (contrasts["mean"] == 0).all()  # the scripted model ignores labels and rules


def test_the_real_gate_shows_some_of_the_stale_notes() -> None:
    gate = na.gate_shown(load_tasks(ROOT / "data" / "model_trials" / "notes_tasks.yaml"), ROOT / "data" / "code_history")
    assert gate["withheld"] + len(gate["shown"]) == 44 and gate["wide"] == 44


# -- the study's tables: whole groups, coverage, the real gate, kinds, reasons, the audit, predictions -------------


@pytest.fixture(scope="module")
def outcomes(recording: Path):
    return na.study_outcomes({"scripted": [recording], "absent": []}, TASKS, {})


def test_study_outcomes_name_the_models_and_keep_whole_groups_only(recording: Path, outcomes) -> None:
    assert set(outcomes["model"]) == {"scripted"}
    cut = na.read_outcomes([recording], TASKS, {}, name="scripted")
    first = cut[(cut["task"] == TASKS[0].id) & (cut["variant"] == "refutable")].index[:2]
    assert len(na.whole_groups(cut.drop(index=first))) == len(cut) - 6  # a group missing arms leaves whole
    assert na.study_outcomes({"absent": []}, TASKS, {}).empty


def test_coverage_states_the_n_of_every_variant(outcomes) -> None:
    cov = na.coverage(outcomes)
    assert cov[["variant", "repeat", "tasks", "answers"]].values.tolist() == [
        ["unrefutable", 0, len(TASKS), 6 * len(TASKS)], ["refutable", 0, len(TASKS), 6 * len(TASKS)]]


def test_the_real_gate_costs_the_stale_edits_on_the_tasks_it_shows(outcomes) -> None:
    shown = [TASKS[0].id, TASKS[3].id]
    gate = na.gate_effect(outcomes, shown).set_index("variant")
    assert gate.loc["unrefutable", "shown_stale"] == 2 and gate.loc["unrefutable", "real_stale"] == 2
    assert gate.loc["unrefutable", "ideal_stale"] == 0
    assert gate.loc["unrefutable", "mean"] == pytest.approx(2 / len(TASKS))
    assert gate.loc["refutable", "real_stale"] == 0  # the scripted model holds back when refuted


def test_kind_counts_and_other_reasons(outcomes) -> None:
    kinds = na.kind_counts(outcomes, "dependency_changed")
    assert kinds["tasks"].sum() == len(TASKS)
    assert kinds["stale_unrefutable"].sum() == len(TASKS) and kinds["stale_refutable"].sum() == 0
    assert kinds["unchanged_refutable"].sum() == len(TASKS)
    other = na.other_reasons(outcomes)
    assert other["other"].tolist() == [0, 0] and other["answers"].tolist() == [6 * len(TASKS)] * 2


def test_a_model_contrast_pairs_tasks(outcomes) -> None:
    import pandas as pd

    both = pd.concat([outcomes, outcomes.assign(model="copy")], ignore_index=True)
    same = na.model_contrast(both, "scripted", "copy", arm="dependency_changed", outcome="stale_edit")
    assert same["tasks"] == len(TASKS) and same["mean"] == 0 and same["first"] == len(TASKS)
    assert na.model_contrast(outcomes, "scripted", "absent")["tasks"] == 0


def test_every_prediction_has_a_verdict_and_a_missing_model_is_not_recorded_yet(outcomes) -> None:
    verdicts = na.predictions(outcomes, "scripted", "absent", "absent")
    assert set(verdicts["prediction"]) == set(na.PREDICTIONS)
    np1 = verdicts[verdicts["prediction"] == "NP1"].set_index("measure")["verdict"]
    assert list(np1) == [na.NOT_RECORDED, na.NOT_RECORDED, "does not hold"]  # the scripted model's drop is −1
    assert (verdicts[verdicts["model"] == "absent"]["verdict"] == na.NOT_RECORDED).all()
    np3 = verdicts[(verdicts["prediction"] == "NP3") & (verdicts["model"] == "scripted")]
    assert (np3["verdict"] == "holds").all() and len(np3) == 4


def test_the_audit_is_compared_answer_by_answer(tmp_path: Path, outcomes) -> None:
    audit = tmp_path / "audit.csv"
    first = TASKS[0].id
    audit.write_text("model,task,arm,variant,drawn,verdict,collateral,reason\n"
                     f"scripted,{first},dependency_changed,unrefutable,yes,stale,,x\n"
                     f"scripted,{first},control,unrefutable,yes,other,,y\n"
                     f"nobody,{first},control,unrefutable,yes,unchanged,,z\n"
                     f"scripted,{first},control,refutable,yes,,,\n", encoding="utf-8")
    agreement = na.audit_agreement(audit, outcomes)
    assert agreement["agree"].tolist() == [True, False, False]  # the row not judged yet is left out
    assert agreement["reader"].tolist() == ["stale_edit", "unchanged", "–"]


def test_the_reader_agrees_with_the_hand_audit_on_every_audited_answer() -> None:
    """The chapter's claim: every audited answer, of the first recordings and of the refutable variant, reads alike."""
    data = ROOT / "data" / "model_trials"
    tasks = load_tasks(data / "notes_tasks.yaml")
    from cvlib.experiments.notes_study import load_stale_effects

    qwen = ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
    sources = {m: [data / f"notes_trials.{m}.jsonl"] * (m in qwen) + [data / f"notes_study.{m}.jsonl.gz"]
               for m in (*qwen, "smollm2-135m")}
    outcomes = na.study_outcomes(sources, tasks, load_stale_effects(str(data / "notes_stale_effects.yaml")))
    agreement = na.audit_agreement(data / "notes_audit.csv", outcomes)
    assert agreement.groupby("variant").size().to_dict() == {"refutable": 54, "unrefutable": 78}
    assert agreement["agree"].all(), agreement[~agreement["agree"]]


def test_a_contrast_averages_a_task_over_the_repeats_both_sides_hold() -> None:
    import pandas as pd

    from cvlib.experiments.notes_study.analysis import arm_contrasts, variant_effects

    def row(task: str, variant: str, repeat: int, arm: str, stale: bool) -> dict:
        return {"model": "m", "task": task, "variant": variant, "repeat": repeat, "arm": arm,
                "outcome": "stale_edit" if stale else "unchanged"}

    rows = []
    for task in ("a", "b"):
        # greedy: a stale edit in both variants and in every stale arm, none with the note withheld
        for variant in ("unrefutable", "refutable"):
            rows += [row(task, variant, 0, arm, True) for arm in ("stale_labelled", "stale_verify", "dependency_changed")]
            rows.append(row(task, variant, 0, "withheld", False))
        # sampled repeats held back, recorded in the unrefutable variant only (a recording cut part-way)
        rows += [row(task, "unrefutable", r, arm, False) for r in (1, 2)
                 for arm in ("stale_labelled", "stale_verify", "dependency_changed")]
    outcomes = pd.DataFrame(rows)
    effects = variant_effects(outcomes, arms=("dependency_changed",))
    # only the greedy repeat is in both variants: 1 - 1, not 1 - 1/3
    assert effects["mean"].tolist() == [0.0] and effects["tasks"].tolist() == [2]
    withheld = arm_contrasts(outcomes, (("withheld", "dependency_changed"),))
    # withheld has only the greedy repeat: 0 - 1 in both variants, not 0 - 1/3
    assert withheld["mean"].tolist() == [-1.0, -1.0]
