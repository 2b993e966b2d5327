"""The benchmark suite's report logic, its busy marks and its ``--original`` plumbing; nothing here is timed.

The records are made up (or read from ``data/benchmarks/``); the original
implementation is a tiny fake package in a temporary folder, whose results
are cvlib's own (so the suite's equality check passes) or deliberately wrong
(so it must stop before timing anything).
"""

from __future__ import annotations

import copy
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks import floor, original, report, startup
from benchmarks.run import measure_pair
from cvlib.presentation import performance as perf

ROOT = Path(__file__).resolve().parents[2]


def _timing(cpu: float) -> dict:
    return {"runs": 5, "cpu_median_s": cpu, "cpu_min_s": cpu, "cpu_max_s": cpu, "wall_median_s": cpu}


def _row(case: str, size: int, fast: float, reference: float, load: float, **extra) -> dict:
    unit = {"chain": "steps", "isolated_branches": "branches", "grid": "configurations"}[case]
    return {"case": case, "size": size, "unit": unit, "steps": size, "fast": _timing(fast),
            "reference": _timing(reference), "ratio": reference / fast, "results_equal": True,
            "load_before": [load, 1.0, 1.0], "load_after": [load, 1.0, 1.0], **extra}


@pytest.fixture
def record() -> dict:
    """A made-up record on 2 cores: the grid measured at load 1.0, the big chain at load 3.5 (busy)."""
    sweeps_backends = {name: {**_timing(s), "speedup_vs_serial_wall": 8.0 / s}
                       for name, s in (("serial", 8.0), ("processes", 4.2), ("dask", 4.8))}
    return {
        "machine": {"measured_at": "2026-12-01 12:10 UTC", "cores": 2, "cpu": "test CPU", "python": "3.11.7",
                    "memory_gib": 24.0},
        "load_average_start": [1.0, 1.0, 1.0], "load_average_end": [1.2, 1.0, 1.0], "repeats": 5,
        "quoted_source": "quoted here", "original": "run in the same run",
        "cases": [
            _row("chain", 1_000_000, 0.05, 7.0, 3.5, original=_timing(26.0)),
            _row("grid", 96, 0.004, 0.04, 1.0, original=_timing(0.044)),
            _row("isolated_branches", 10_000, 0.03, 0.4, 1.0, quoted_original_s=38.9),
        ],
        "sweeps": {"throughput": {"plans": 40_000, "workers": 2, "backends": sweeps_backends},
                   "startup": {"forkserver": {"wall_median_s": 0.5}, "spawn": {"wall_median_s": 1.0}},
                   "load_before": [0.3, 0.3, 0.3], "load_after": [2.0, 1.0, 1.0], "others_busy_cores": [0.05, 0.1]},
    }


def test_a_row_measured_above_the_busy_load_per_core_is_marked_and_never_printed(record: dict) -> None:
    report.mark_busy(record)
    chain, grid = record["cases"][0], record["cases"][1]
    assert chain["busy"] is True and grid["busy"] is False  # 3.5 / 2 cores > 1.5; 1.0 / 2 is not
    table = report.readme_table(record)
    chain_line = next(line for line in table.splitlines() if line.startswith("| chain, 1,000,000"))
    assert perf.BUSY_TEXT in chain_line and "7" not in chain_line.split(perf.BUSY_TEXT)[1]
    grid_line = next(line for line in table.splitlines() if "grid" in line)
    assert "4 ms" in grid_line and "44 ms (same run)" in grid_line and "11.0×" in grid_line
    values = perf.glue_values(record)
    assert values["perf_chain_largest_cpu"] == perf.BUSY_TEXT
    assert values["perf_grid_vs_original"] == pytest.approx(11.0)


def test_a_row_without_recorded_loads_is_not_judged() -> None:
    assert perf.row_busy({"case": "grid"}, 2) is None
    assert perf.row_busy({"load_before": [3.1], "load_after": [0.1]}, 2) is True
    assert perf.row_busy({"load_before": [2.9], "load_after": [3.0]}, 2) is False


def test_parallel_speedups_count_only_on_an_otherwise_idle_machine(record: dict) -> None:
    assert perf.parallel_counts(record)
    assert "1.90× faster" in report.readme_table(record)
    noisy = copy.deepcopy(record)
    noisy["sweeps"]["others_busy_cores"] = [0.05, 0.9]
    assert not perf.parallel_counts(noisy)
    table = report.readme_table(noisy)
    assert perf.NOT_IDLE_TEXT in table and "1.90×" not in table
    assert perf.glue_values(noisy)["perf_sweep_processes_speedup"] == perf.NOT_IDLE_TEXT
    unknown = copy.deepcopy(record)
    del unknown["sweeps"]["others_busy_cores"]
    assert not perf.parallel_counts(unknown)


def test_the_original_column_says_whether_it_was_measured_or_quoted(record: dict) -> None:
    table = report.readme_table(record)
    branches = next(line for line in table.splitlines() if "isolated branches" in line)
    assert "38.9 s (quoted)" in branches and "1296.7×" in branches
    assert "Original: run in the same run." in table
    record["original"] = None
    assert "Original: quoted here." in report.readme_table(record)
    assert "original" in report.format_table(record)


def test_the_readme_table_is_rewritten_between_its_markers_only(record: dict) -> None:
    readme = f"# title\n\nbefore\n{report.README_BEGIN}\nold table\n{report.README_END}\nafter\n"
    new = report.with_readme_table(readme, record)
    assert new.startswith("# title\n\nbefore\n") and new.endswith(f"{report.README_END}\nafter\n")
    assert "old table" not in new and report.readme_table(record) in new
    assert report.with_readme_table(new, record) == new
    with pytest.raises(report.ReportError, match="no performance-table markers"):
        report.with_readme_table("# a README\n", record)


def test_the_readme_table_is_the_latest_records() -> None:
    latest = perf.load_record()
    readme = (ROOT / "README.md").read_text()
    assert report.with_readme_table(readme, latest) == readme, "run python -m benchmarks.readme (scripts/bench.sh does)"


# -- the original, faked ---------------------------------------------------------------------------

FAKE = '''
from types import SimpleNamespace
import cvlib as cv

OFFSET = {offset}


def _result(r):
    return SimpleNamespace(**{{k: getattr(r, k) for k in (
        "completed", "steps_used", "budget", "replans", "verifications", "pre_failure_work",
        "decisions_total", "decisions_on_stale_deps")}}, )


def scenario_D_cascade_chain(depth, change_tick=0):
    run = cv.run_scenario("D1", depth=depth)
    base = _result(run.baseline)
    base.pre_failure_work += OFFSET
    return base, _result(run.validity_aware)


def scenario_D3_isolated_branch(pre, branches, post, change_tick=0):
    run = cv.run_scenario("D3", num_branches=branches)
    return _result(run.baseline), _result(run.validity_aware), 0, 0, 0


def scenario_A_value_change():
    return None
'''


def _fake_original(folder: Path, offset: int = 0) -> Path:
    package = folder / "context_validity"
    package.mkdir(parents=True)
    for name in original.FILES:
        (package / name).write_text("")
    (package / "__init__.py").write_text("")
    (package / "scenarios.py").write_text(textwrap.dedent(FAKE.format(offset=offset)))
    return folder


@pytest.fixture
def forget_original():
    yield
    for name in [n for n in sys.modules if n == "context_validity" or n.startswith("context_validity.")]:
        del sys.modules[name]
    sys.path[:] = [p for p in sys.path if "fake_original" not in p]


def test_a_folder_that_is_not_a_checkout_is_named_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(original.OriginalError, match="is not a folder"):
        original.check_dir(tmp_path / "missing")
    (tmp_path / "context_validity").mkdir()
    (tmp_path / "context_validity" / "graph.py").write_text("")
    with pytest.raises(original.OriginalError, match=r"lacks context_validity/executors\.py.*scenarios\.py"):
        original.check_dir(tmp_path)
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--original", str(tmp_path / "missing")],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1].endswith("expected a checkout of the original")


def test_the_originals_results_are_compared_with_cvlibs(tmp_path: Path, forget_original: None) -> None:
    import cvlib as cv

    folder = _fake_original(tmp_path / "fake_original")
    scenarios = original.load(folder)
    for case, size, fast in (("chain", 40, lambda: cv.run_scenario("D1", depth=40)),
                             ("isolated_branches", 7, lambda: cv.run_scenario("D3", num_branches=7))):
        job, comparable = original.job(scenarios, case, size)
        assert comparable(job()) == original.comparable_fast(case, fast())
    assert original.runs("chain", 1_000_000) and not original.runs("isolated_branches", 166_666)
    with pytest.raises(original.OriginalError, match="no job for case 'memory'"):
        original.job(scenarios, "memory", 1)


def test_an_original_that_disagrees_stops_the_suite_before_anything_is_timed(
    tmp_path: Path, forget_original: None
) -> None:
    folder = _fake_original(tmp_path / "fake_original", offset=1)
    with pytest.raises(SystemExit, match="chain at 30 steps: cvlib and the original disagree"):
        measure_pair("chain", 30, repeats=5, original=str(folder))


def test_start_up_runs_the_original_with_its_folder_on_the_path_and_bytecode_caching_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    jobs = startup.commands(str(tmp_path))
    assert jobs["original_cold_start"][-1] == original.COLD_START and "original_cold_start" not in startup.commands()
    env = startup.environment("original_cold_start", str(tmp_path))
    assert env["PYTHONPATH"].split(":")[0] == str(tmp_path) and "PYTHONDONTWRITEBYTECODE" not in env
    assert startup.environment("cold_start", str(tmp_path))["PYTHONPATH"] == "/somewhere"


def test_the_floor_runs_its_own_plans_by_the_law() -> None:
    sizes = [1, 2, 5, 17, 40] * 20
    rows = floor.family(3, sizes)
    assert len(rows) == len(sizes) and floor.law_holds(rows)
    assert rows == floor.family(3, sizes) and rows != floor.family(4, sizes)
    assert any(b > 0 for b, _, _ in rows)
    assert not floor.law_holds([(2, 0, 1)]) and not floor.law_holds([(1, 1, 1)])


def test_targets_are_judged_only_on_rows_that_count(record: dict) -> None:
    got = report.verdicts(record)
    assert got["grid_vs_original"]["ratio"] == pytest.approx(11.0) and got["grid_vs_original"]["met"] is True
    assert got["processes_vs_serial"]["met"] is True and got["dask_vs_serial"]["met"] is True  # 1.90 and 1.67
    assert got["cold_start_vs_original"]["met"] is None  # no start-up row: not judged, never met
    record["cases"][1]["load_after"] = [3.2, 1.0, 1.0]  # the grid now measured busy
    record["sweeps"]["others_busy_cores"] = [0.6, 0.1]
    got = report.verdicts(record)
    assert got["grid_vs_original"]["met"] is None and got["processes_vs_serial"]["met"] is None
    assert "not judged" in report.format_table(record)


def _model_row(threads: int, load: float) -> dict:
    return {"model": "tiny.gguf", "runtime": "xllamacpp 0", "threads": threads, "load_s": 1.25,
            "prompt_tokens_per_s": 150.0, "generation_tokens_per_s": 21.5, "peak_rss_mib": 690,
            "seconds_per_decision": {"transcript": 1.5, "labelled": 1.75, "gated": 0.5},
            "seconds_per_edit_trial": {"true_note": 11.0, "withheld": 3.0},
            "load_before": [load, 1.0, 1.0], "load_after": [load, 1.0, 1.0]}


def test_model_rows_join_the_readme_and_the_chapter_and_a_busy_one_gives_no_figures(record: dict) -> None:
    record["models"] = {"model": "tiny", "rows": [_model_row(1, 0.5), _model_row(2, 3.9)]}
    report.mark_busy(record)
    assert record["models"]["rows"][1]["busy"] and not record["models"]["rows"][0]["busy"]
    text = report.readme_table(record)
    one, two = (line for line in text.splitlines() if line.startswith("| tiny.gguf"))
    assert "| 1 | 1.25 s | 690 MiB | 150 | 21.5 |" in one and "gated 0.50 s" in one and "withheld 3.00 s" in one
    assert perf.BUSY_TEXT in two and "21.5" not in two
    table = perf.model_table(record)
    assert list(table.index) == ["tiny, 1", "tiny, 2"]  # a model outside the bundle keeps its file's stem
    assert table.loc["tiny, 2", "load (s)"] == perf.BUSY_TEXT
    said = perf.glue_values(record)["perf_model_summary"]
    assert "On one thread, an agent-study call took 0.500–1.75 s with tiny." in said
    assert "A notes edit trial took 3.00–11.0 s" in said
    assert f"On two threads, an agent-study call took {perf.BUSY_TEXT} with tiny." in said
    assert "thread(s)" not in said and "second thread" not in said  # the busy row gives no ratio


def _layout(speedup: float, load: float) -> dict:
    row = {"workers": 2, "threads": 1, "calls": 40, "prompt_tokens": 900, "seconds_per_task": 10.0,
           "floor_per_task": 8.0, "floor_ratio": 1.25}
    return {"model": "tiny", "tasks": 6, "layouts": {"today": {**row, "seconds_per_task": 10.0 * speedup},
                                                       "new": row},
            "layout_speedup": speedup, "floor_ratio": 1.25, "chosen": {"workers": 2, "threads": 1},
            "regenerated": {"sampled": 10, "generated": 10, "identical": 10},
            "load_before": [load, 1.0, 1.0], "load_after": [load, 1.0, 1.0]}


def test_the_model_layout_is_a_target_judged_only_when_idle(record: dict) -> None:
    record["models"] = {"rows": [_model_row(1, 0.5)], "layout": _layout(1.52, 0.5)}
    report.mark_busy(record)
    got = report.verdicts(record)["model_layout_speedup"]
    assert got["ratio"] == pytest.approx(1.52) and got["met"] is True
    assert "1.52× as fast per task" in perf.model_summary(record)
    assert "| today | 15.20 | 8.00 | 1.25 |" in report.readme_table(record)
    record["models"]["layout"] = _layout(1.3, 0.5)
    assert report.verdicts(record)["model_layout_speedup"]["met"] is False
    record["models"]["layout"] = _layout(1.6, 3.9)
    report.mark_busy(record)
    assert report.verdicts(record)["model_layout_speedup"]["met"] is None
    assert perf.BUSY_TEXT in perf.model_summary(record)


def test_a_record_without_the_model_packages_says_why_in_one_line(record: dict) -> None:
    record["models"] = {"skipped": "RuntimeMissingError: xllamacpp is not installed"}
    assert report.readme_table(record).endswith("not measured (RuntimeMissingError: xllamacpp is not installed).")
    assert perf.model_table(record) is None
    assert "not installed" in perf.model_summary(record)
    assert "no model rows" in perf.model_summary({"machine": {}})



def test_the_idle_probe_does_not_count_the_suites_own_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep's workers still shutting down are the suite's own work, not another user's."""
    from benchmarks import machine

    machine_busy = iter([(1_000, 10_000), (1_150, 10_200)])  # 150 busy jiffies of 200 (2 cores for 1 s)
    own = iter([50, 150])  # of which this process tree used 100
    monkeypatch.setattr(machine, "_busy_jiffies", lambda: next(machine_busy))
    monkeypatch.setattr(machine, "_own_tree_jiffies", lambda: next(own))
    monkeypatch.setattr(machine.time, "sleep", lambda _: None)
    monkeypatch.setattr(machine.os, "cpu_count", lambda: 2)
    assert machine.others_busy() == 0.5  # 2 cores x (150 - 100) / 200


def test_the_suites_process_tree_is_every_descendant() -> None:
    from benchmarks.machine import descendants

    parents = {10: 1, 11: 10, 12: 11, 13: 10, 20: 1, 21: 20}
    assert descendants(parents, 10) == {10, 11, 12, 13}
    assert descendants(parents, 21) == {21}


def test_orphans_of_the_suites_process_group_are_its_own() -> None:
    """Workers re-parented to process 1 when the interpreter that started them exits still belong to the suite."""
    from benchmarks.machine import own_processes

    parents = {10: 1, 11: 10, 30: 1, 31: 30, 40: 1, 41: 1}
    groups = {10: 10, 11: 10, 30: 10, 31: 10, 40: 40, 41: 1}
    assert own_processes(parents, groups, 10, 10) == {10, 11, 30, 31}
    assert own_processes(parents, groups, 40, 40) == {40}
    assert own_processes(parents, groups, 41, 1) == {41}  # never everything in process 1's group


def test_a_model_row_is_busy_when_others_kept_cores_busy_during_it(record: dict) -> None:
    """The load average misses a burst in the middle of a minutes-long row; the meter over the whole row does not."""
    quiet, noisy = _model_row(1, 0.5), _model_row(2, 0.5)
    quiet["others_cores_during"], noisy["others_cores_during"] = 0.05, 0.9
    record["models"] = {"rows": [quiet, noisy]}
    report.mark_busy(record)
    assert not quiet["busy"] and noisy["busy"]



def test_the_second_editions_pure_cell_is_said_beside_its_cached_cost_and_kept_out_of_the_first(record: dict) -> None:
    row = _model_row(1, 0.5)
    row["seconds_per_decision"] = {"greedy": 0.75, "sampled": 0.8, "edition2_pure": 2.25, "edition2_cached": 0.7}
    record["models"] = {"rows": [row]}
    report.mark_busy(record)
    said = perf.model_summary(record)
    assert "On one thread, an agent-study call took 0.750–0.800 s with tiny." in said
    assert "A call of the second edition's first cell took 2.25 s pure and 0.700 s cached with tiny." in said
    row["seconds_per_decision"]["edition2_aligned"] = 1.25
    assert ("A call of the second edition's first cell took 2.25 s pure, 1.25 s aligned and 0.700 s cached with tiny."
            in perf.model_summary(record))
