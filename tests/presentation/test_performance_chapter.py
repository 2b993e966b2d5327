"""The Performance and law-at-scale chapters, and the README's table, say what the records they read say.

Nothing is timed here: the records are read from ``data/benchmarks/`` (the
suite writes them), and the tests check that every table, figure and glued
number is taken from them, that every number a chapter's prose glues exists,
and that a row measured on a busy machine is shown as such (the README's
table is checked by ``tests/repository/test_benchmark_report.py``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import cvlib as cv  # noqa: E402
from cvlib.core.errors import ParameterError  # noqa: E402
from cvlib.presentation import performance as perf  # noqa: E402
from cvlib.presentation import sweep_report as report  # noqa: E402
from cvlib.presentation.chapters import performance as chapter  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LARGEST = ROOT / "data" / "benchmarks" / "law_at_scale_largest.json"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def record() -> dict:
    return perf.load_record()


def _glued_keys(notebook: str) -> set[str]:
    cells = json.loads((ROOT / "notebooks" / notebook).read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return {m.group(1) for m in re.finditer(r"\{glue:text\}`([a-z0-9_]+)", text)}


def test_the_record_is_complete_and_every_case_was_compared_in_the_same_run(record: dict) -> None:
    assert record["machine"]["measured_at"] and record["machine"]["cores"]
    assert {"memory", "startup", "breakdowns", "sweeps"} <= set(record)
    assert set(record["breakdowns"]) == {"grid", "chain", "branches"}
    cases = {r["case"] for r in record["cases"]}
    assert {"chain", "isolated_branches", "grid"} <= cases
    for r in record["cases"]:
        assert r["results_equal"] is True
        assert r["fast"]["runs"] == r["reference"]["runs"] >= 5
        assert r["ratio"] == pytest.approx(r["reference"]["cpu_median_s"] / r["fast"]["cpu_median_s"])
    assert record["memory"]["steps"] == 1_000_000


def test_the_performance_chapter_glues_only_numbers_the_record_gives(record: dict) -> None:
    values = chapter.glue_values(record)
    missing = _glued_keys("performance.ipynb") - set(values)
    assert not missing, f"the chapter glues keys the record does not give: {sorted(missing)}"
    grid = next(r for r in record["cases"] if r["case"] == "grid")
    assert values["perf_grid_ms"] == pytest.approx(1000 * grid["fast"]["cpu_median_s"])
    assert values["perf_grid_met"] == ("met" if grid["fast"]["cpu_median_s"] <= grid["target_s"] else "missed")
    assert values["perf_peak_mib"] == record["memory"]["fast"]["peak_mib"]


def test_the_breakdown_shares_add_up_to_the_whole_job(record: dict) -> None:
    for which in record["breakdowns"]:
        b = record["breakdowns"][which]
        top = [p for p in b["phases"] if p["part_of"] is None]
        assert sum(p["cpu_median_s"] for p in top) == pytest.approx(b["whole_cpu_median_s"])
        table = chapter.breakdown_table(record, which)
        parts, total = table.iloc[:-1], table.iloc[-1]
        assert total["share of the total (%)"] == 100.0
        assert round(parts["share of the total (%)"].sum(), 1) == 100.0  # every part's share, and they add up
        assert round(parts["CPU (ms)"].sum(), 2) == total["CPU (ms)"]
        assert (parts["share of the total (%)"] >= 0).all() and (parts["CPU (ms)"] >= 0).all()
        phases = [p for p in b["phases"] if p["phase"] != "remainder"]
        assert parts["CPU (ms)"].tolist()[: len(phases)] == [round(1000 * p["cpu_median_s"], 2) for p in phases]


def test_the_chain_is_one_number_in_prose_and_table(record: dict) -> None:
    from cvlib.presentation.formatting import written

    texts = written(chapter.glued(record))
    speed = perf.speed_table(record)
    largest = speed.loc[speed.index == perf.CASE_NAMES["chain"], "cvlib (ms)"].iloc[-1]
    assert texts["perf_chain_largest_cpu"] == texts["perf_chain_job_ms"] == largest


def test_every_target_is_in_the_one_table_and_counted(record: dict) -> None:
    table = chapter.target_table(record)
    assert "the command line's start, cvlib run A, CPU time" in table.index
    values = chapter.glue_values(record)
    judged = table[table["verdict"].isin(["met", "missed"])]
    assert values["perf_targets"] == len(table) and values["perf_targets_judged"] == len(judged)
    assert values["perf_targets_met"] == int((judged["verdict"] == "met").sum())
    cli = record["startup"]["cli_cold_start"]
    assert table.loc["the command line's start, cvlib run A, CPU time", "verdict"] == ("met" if cli["target_met"] else "missed")
    assert len(table) == 4 + len(record["verdicts"])


def test_the_tables_show_the_records_numbers(record: dict) -> None:
    from cvlib.presentation.formatting import fmt

    def shown(row: dict, seconds: float) -> str:
        return perf.BUSY_TEXT if perf.is_busy(record, row) else fmt(1000 * seconds, "milliseconds")

    speed = perf.speed_table(record)
    assert len(speed) == len(record["cases"])
    assert speed["cvlib (ms)"].tolist() == [shown(r, r["fast"]["cpu_median_s"]) for r in record["cases"]]
    memory = record["memory"]
    expected = perf.BUSY_TEXT if perf.is_busy(record, memory) else fmt(memory["fast"]["peak_mib"], "mib")
    assert perf.memory_table(record)["peak memory"].iloc[1] == expected
    startup = perf.startup_table(record)
    cold = record["startup"]["cold_start"]
    assert startup["CPU (ms)"].iloc[1] == shown(cold, cold["cpu_median_s"])
    assert len(perf.sweep_table(record)) == len(record["sweeps"]["throughput"]["backends"]) + 2
    machine = perf.machine_table(record)
    assert machine.loc["measured", "value"] == record["machine"]["measured_at"]


def test_the_figures_draw_the_record(record: dict) -> None:
    fig = perf.breakdown_figure(record, "grid")
    top = [p for p in record["breakdowns"]["grid"]["phases"] if p["part_of"] is None]
    widths = sorted(round(bar.get_width(), 9) for bar in fig.axes[0].patches)
    for phase in top:
        assert round(1000 * phase["cpu_median_s"], 9) in widths
    fig = perf.scaling_figure(record)
    chain = sorted((r for r in record["cases"] if r["case"] == "chain"), key=lambda r: r["steps"])
    ys = [list(line.get_ydata()) for line in fig.axes[0].get_lines()]
    assert [r["fast"]["cpu_median_s"] for r in chain] in ys


def test_bad_records_and_readmes_are_named(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="cannot read benchmark record"):
        perf.load_record(tmp_path / "missing.json")
    (tmp_path / "old.json").write_text(json.dumps({"rows": []}))
    with pytest.raises(ParameterError, match="lacks machine, cases"):
        perf.load_record(tmp_path / "old.json")
    with pytest.raises(ParameterError, match="no 'nothing' breakdown"):
        chapter.breakdown_table(perf.load_record(), "nothing")


# -- the law at scale ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    return cv.sweep(cv.RandomFamily(seed=5, count=200, max_steps=30), chunk_size=50, progress=False)


def test_the_law_at_scale_chapter_glues_only_numbers_its_sources_give(rows: pd.DataFrame) -> None:
    keys = set(report.glue_values(rows)) | set(report.recorded_glue_values(report.load_recorded_run()))
    missing = _glued_keys("law_at_scale.ipynb") - keys
    assert not missing, f"the chapter glues keys nothing gives: {sorted(missing)}"


def test_the_family_table_counts_every_plan_once(rows: pd.DataFrame) -> None:
    table = report.family_table(rows)
    assert table["plans"].sum() == len(rows)
    assert table["law mismatches"].sum() == int((~rows["law_holds"]).sum())
    assert report.glue_values(rows)["law_scale_plans"] == len(rows)
    fig = report.law_scale_figure(rows)
    assert len(fig.axes) == 2


def test_the_recorded_run_is_dated_and_placed() -> None:
    largest = report.load_recorded_run()
    assert largest["machine"].get("measured_at"), "re-record it with python -m benchmarks.law_at_scale"
    table = report.recorded_run_table(largest)
    assert table.loc["recorded", "value"] == largest["machine"]["measured_at"]
    assert table.loc["plans", "value"] == f"{largest['plans']:,}"
    assert report.recorded_histogram_table(largest)["plans"].sum() == largest["plans"]
    with pytest.raises(ParameterError, match="cannot read the recorded run"):
        report.load_recorded_run(LARGEST.with_name("nope.json"))


def test_the_chapter_names_what_the_record_measured_in_words_a_reader_uses(record: dict) -> None:
    """No code names (``single_runs``, ``true_note``, GGUF files), no ``thread(s)``, no range with equal ends."""
    speed = perf.speed_table(record)
    assert not [name for name in speed.index if "_" in name]
    targets = chapter.target_table(record)
    assert not set(targets.index) & set(record.get("verdicts") or {})  # every target named, none by its key
    values = chapter.glue_values(record)
    stems = record.get("models", {}).get("models", [])
    for stem in stems:
        assert perf.model_name({"model": stem}) in values["perf_models"]
    models = perf.model_table(record)
    if models is not None:
        shown = " ".join([*models.index, *models.astype(str).to_numpy().ravel()])
        assert ".gguf" not in shown and "_" not in shown
    said = values["perf_model_summary"]
    assert "(s)" not in said and "_" not in said and ".gguf" not in said
    assert not [m for m in re.finditer(r"(\d[\d.,]*)–(\d[\d.,]*)", said) if m.group(1) == m.group(2)]
    from cvlib.presentation.formatting import written

    assert not [text for text in written(chapter.glued(record)).values() if re.search(r"\d{5,}", text)]


def test_a_bundled_model_file_is_named_as_the_pages_name_it() -> None:
    assert perf.model_name({"model": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"}) == "Qwen2.5-Coder-1.5B"
    assert perf.model_name({"model": "SmolLM2-135M-Instruct.Q4_1.gguf"}) == "SmolLM2-135M"
    assert perf.model_name({"model": "/models/my-own.gguf"}) == "my-own"
