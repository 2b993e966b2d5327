"""The hand audit of the notes trials (issue 35): the CSV's shape, its verdicts, and that it holds the drawn sample."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from tests._scripted_models import load_script

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "model_trials"
AUDIT = DATA / "notes_audit.csv"
VERDICTS = {"true_exact", "true_collateral", "stale", "unchanged", "other"}
ARMS = {"control", "true_note", "stale_labelled", "stale_verify", "dependency_changed", "withheld"}
QWEN = {"qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"}
# the unrefutable part judged the two Qwen models' first recordings, the refutable part all three models' study
MODELS = {"unrefutable": QWEN, "refutable": QWEN | {"smollm2-135m"}}


@pytest.fixture(scope="module")
def draw() -> ModuleType:
    return load_script("draw_notes_audit", DATA / "draw_notes_audit.py")


@pytest.fixture(scope="module")
def rows(draw: ModuleType) -> list[dict[str, str]]:
    with AUDIT.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == draw.COLUMNS == (
            "model", "task", "arm", "variant", "drawn", "verdict", "collateral", "reason")
        return list(reader)


@pytest.mark.parametrize("variant", sorted(MODELS))
def test_the_drawn_rows_cover_every_model_and_all_six_arms_evenly(rows: list[dict[str, str]], variant: str) -> None:
    drawn = [r for r in rows if r["drawn"] == "yes" and r["variant"] == variant]
    assert {r["drawn"] for r in rows} <= {"yes", "no"}
    assert {r["variant"] for r in rows} == set(MODELS)
    assert len(drawn) >= 50
    cells = Counter((r["model"], r["arm"]) for r in drawn)
    assert set(cells) == {(m, a) for m in MODELS[variant] for a in ARMS}
    assert max(cells.values()) - min(cells.values()) <= 1, cells


def test_every_row_has_a_known_verdict_a_reason_and_its_collateral(rows: list[dict[str, str]]) -> None:
    keys = [(r["model"], r["task"], r["arm"], r["variant"]) for r in rows]
    assert len(keys) == len(set(keys)), "an answer is audited twice"
    for row in rows:
        where = f"{row['model']} {row['task']} {row['arm']} {row['variant']}"
        assert row["verdict"] in VERDICTS, f"{where}: verdict {row['verdict']!r}"
        assert row["reason"].strip(), f"{where}: no reason"
        if row["verdict"] == "true_collateral":
            assert row["collateral"].strip(), f"{where}: true_collateral without the collateral changes"
        if row["verdict"] in {"true_exact", "unchanged"}:
            assert not row["collateral"].strip(), f"{where}: {row['verdict']} cannot have collateral changes"


def test_the_rows_are_exactly_the_scripts_draw_and_extras_in_its_order(
        draw: ModuleType, rows: list[dict[str, str]]) -> None:
    sample = draw.sample()
    assert [tuple(r[c] for c in draw.COLUMNS[:5]) for r in rows] == [tuple(s) for s in sample]
    drawn = {(r["model"], r["task"], r["arm"], r["variant"]) for r in rows if r["drawn"] == "yes"}
    assert drawn == {s[:4] for s in sample if s.drawn == "yes"}
    extras = {(r["model"], r["task"], r["arm"]) for r in rows if r["drawn"] == "no"}
    assert extras <= set(draw.EXTRAS)


@pytest.mark.parametrize("variant", sorted(MODELS))
def test_the_draw_is_by_the_seed_and_not_by_the_recordings_order(draw: ModuleType, variant: str) -> None:
    seed, k = (draw.SEED, draw.K) if variant == "unrefutable" else (draw.REFUTABLE_SEED, draw.REFUTABLE_K)
    drawn = [s for s in draw.sample() if s.drawn == "yes" and s.variant == variant]
    other_seed = [s for s in draw.sample(seed="another seed", refutable_seed="another seed")
                  if s.drawn == "yes" and s.variant == variant]
    assert {s[:3] for s in drawn} != {s[:3] for s in other_seed}
    pairs = draw.recordings(variant)
    for model, arm in {(s.model, s.arm) for s in drawn}:
        cell = sorted((s.task for s in drawn if (s.model, s.arm) == (model, arm)), key=lambda t: draw.rank(t, arm, seed))
        ranks = sorted(draw.rank(t, a, seed) for t, a in pairs[model] if a == arm)
        assert len(cell) == k
        assert [draw.rank(t, arm, seed) for t in cell] == ranks[:k]


def test_show_prints_the_answer_beside_its_task_and_never_the_readers_outcome(draw: ModuleType) -> None:
    import io

    rows = [s for s in draw.sample() if s.variant == "refutable"][:2]
    out = io.StringIO()
    draw.show(rows, out)
    text = out.getvalue()
    assert text.count("## What the model was shown") == 2 and "## Diff of its first code block" in text
    assert "A test from the project's checks" in text  # the refutable prompt, shown in full
    assert "outcome" not in text.lower() and "stale_edit" not in text


def test_an_unknown_variant_is_named_in_the_error(draw: ModuleType) -> None:
    with pytest.raises(SystemExit, match="variant 'both'"):
        draw.answers("both")
