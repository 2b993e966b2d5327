"""The notes study's analysis on a recording made by a scripted model: answers read again, paired effects, the gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from cvlib.experiments.notes_study import analysis as na
from cvlib.experiments.notes_study import design as nd
from cvlib.experiments.notes_study import load_tasks
from cvlib.experiments.notes_study.refutations import DependencySource, Refutation
from cvlib.models import ModelIdentity

ROOT = Path(__file__).resolve().parents[2]
TASKS = load_tasks(ROOT / "data" / "model_trials" / "notes_tasks.yaml")[:8]


class HoldsBackWhenRefuted:
    """Makes the stale edit when a stale note is shown, unless the prompt carries a refutation."""

    identity = ModelIdentity("scripted.gguf", "9" * 64, "scripted", "1")

    def prepare(self, settings) -> None:
        pass

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass

    def complete(self, messages, settings) -> str:
        user = messages[-1][1]
        task = next(t for t in TASKS if t.excerpt.rstrip() in user)
        stale = task.stale_note in user and "A test from the project's checks" not in user
        return "```python\n" + (task.stale_edit.apply(task.excerpt) if stale else task.excerpt) + "```"


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("notes") / "notes_study.scripted.jsonl.gz"
    refutations = {t.id: Refutation(t.id, t.project, t.to_version, (DependencySource("f.py", "g", "def g():\n    pass\n"),),
                                    "def test_g():\n    pass\n", ("x",), {"original": "pass", "stale": "fail", "true": "pass"})
                   for t in TASKS}
    model = HoldsBackWhenRefuted()
    original = nd.open_model
    nd.open_model = lambda spec: model  # type: ignore[assignment]
    try:
        nd.record_notes_study("scripted", out, TASKS, [("unrefutable", 0), ("refutable", 0)], refutations=refutations,
                              effects={}, progress=False)
    finally:
        nd.open_model = original  # type: ignore[assignment]
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
