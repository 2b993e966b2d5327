"""cvlib.sweep: identical ordered results on every backend, resumable, and safe when a worker dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import cloudpickle
import pandas as pd
import pytest

import cvlib as cv
from cvlib.experiments.large_sweeps import Grid, RandomFamily, SweepError, sweep

SPEC = RandomFamily(seed=7, count=240, max_steps=30)


@pytest.fixture(scope="module")
def serial_result() -> pd.DataFrame:
    return sweep(SPEC, chunk_size=25, progress=False)


def test_rows_come_back_in_task_order_with_the_law_checked(serial_result: pd.DataFrame) -> None:
    assert list(serial_result["task"]) == list(range(240))
    assert serial_result["law_holds"].all()
    assert (serial_result["validity_aware_pfw"] == 0).all()


def test_chunk_size_does_not_change_the_result(serial_result: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(sweep(SPEC, chunk_size=7, progress=False), serial_result)


def test_processes_backend_equals_serial(serial_result: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(sweep(SPEC, backend="processes", workers=2, chunk_size=25, progress=False), serial_result)


def test_dask_backend_with_two_workers_equals_serial(serial_result: pd.DataFrame) -> None:
    got = sweep(SPEC, backend="dask", workers=2, chunk_size=25, progress=False)
    pd.testing.assert_frame_equal(got, serial_result)
    assert got.equals(serial_result)


def test_a_grid_sweep_matches_the_published_grid_function() -> None:
    spec = Grid("D2", depth=[3, 4, 5], branching_factor=[1, 2, 3], merge_factor=[1, 4])
    got = sweep(spec, chunk_size=4, progress=False)
    expected = cv.topology_grid([3, 4, 5], [1, 2, 3], [1, 4])
    assert len(got) == len(spec) == 18
    for column in expected.columns:
        assert list(got[column]) == list(expected[column]), column


def test_grid_checks_parameter_names_early() -> None:
    with pytest.raises(cv.ParameterError, match="no parameter 'width'"):
        Grid("D2", width=[1, 2])
    with pytest.raises(cv.ParameterError, match="needs a list of values"):
        Grid("D2", depth=3)


def test_bad_backend_and_misplaced_address_are_named() -> None:
    with pytest.raises(cv.ParameterError, match="unknown sweep backend 'spark'"):
        sweep(SPEC, backend="spark")
    with pytest.raises(cv.ParameterError, match="only makes sense with backend='dask'"):
        sweep(SPEC, address="tcp://127.0.0.1:8786")
    with pytest.raises(cv.ParameterError, match="chunk_size must be >= 1"):
        sweep(SPEC, chunk_size=0)


# -- checkpoints ---------------------------------------------------------------------------------

RESUMABLE = "cvlib.RandomFamily(seed=3, count=3000, max_steps=40)"


def _sweep_in_subprocess(folder: Path) -> subprocess.Popen:
    code = f"import cvlib; cvlib.sweep({RESUMABLE}, chunk_size=50, checkpoint={str(folder)!r}, progress=False)"
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_a_killed_sweep_resumes_to_the_same_bytes(tmp_path: Path) -> None:
    spec = eval(RESUMABLE, {"cvlib": cv})
    n_chunks = -(-len(spec) // 50)
    folder = tmp_path / "ck"
    proc = _sweep_in_subprocess(folder)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(folder.glob("chunk-*.parquet"))) < 5:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = sorted(p.name for p in folder.glob("chunk-*.parquet"))
    assert 5 <= len(done_before) < n_chunks, "the sweep must be killed midway for this test to mean anything"
    (folder / ".chunk-000999.parquet.half.tmp").write_bytes(b"PAR1 torn")  # a torn write left behind
    stamps = {name: (folder / name).stat().st_mtime_ns for name in done_before}

    resumed = sweep(spec, chunk_size=50, checkpoint=folder, out=tmp_path / "resumed.parquet", progress=False)
    assert {name: (folder / name).stat().st_mtime_ns for name in done_before} == stamps  # not recomputed
    whole = sweep(spec, chunk_size=50, out=tmp_path / "whole.parquet", progress=False)
    assert (tmp_path / "resumed.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()
    pd.testing.assert_frame_equal(resumed, whole)


def test_a_checkpoint_folder_refuses_another_sweep(tmp_path: Path) -> None:
    sweep(RandomFamily(seed=1, count=20), chunk_size=10, checkpoint=tmp_path, progress=False)
    with pytest.raises(SweepError, match="holds another sweep"):
        sweep(RandomFamily(seed=2, count=20), chunk_size=10, checkpoint=tmp_path, progress=False)
    with pytest.raises(SweepError, match="holds another sweep"):
        sweep(RandomFamily(seed=1, count=20), chunk_size=5, checkpoint=tmp_path, progress=False)


def test_a_finished_checkpoint_is_read_not_recomputed(tmp_path: Path) -> None:
    first = sweep(RandomFamily(seed=1, count=30), chunk_size=10, checkpoint=tmp_path, progress=False)
    stamps = sorted(p.stat().st_mtime_ns for p in tmp_path.glob("chunk-*.parquet"))
    again = sweep(RandomFamily(seed=1, count=30), chunk_size=10, checkpoint=tmp_path, progress=False)
    assert sorted(p.stat().st_mtime_ns for p in tmp_path.glob("chunk-*.parquet")) == stamps
    pd.testing.assert_frame_equal(first, again)


# -- a worker that dies mid-sweep --------------------------------------------------------------------

KILLER_MODULE = textwrap.dedent(
    """
    import os
    import signal
    from dataclasses import dataclass

    from cvlib.experiments.large_sweeps import RandomFamily


    @dataclass(frozen=True)
    class KillsItsWorkerOnce:
        inner: RandomFamily
        marker: str
        victim_chunk_start: int

        def __len__(self):
            return len(self.inner)

        def rows(self, start, stop):
            if start == self.victim_chunk_start:
                try:
                    fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                except FileExistsError:
                    pass  # second attempt, on a surviving or restarted worker: do the work
                else:
                    os.close(fd)
                    os.kill(os.getpid(), signal.SIGKILL)  # the worker process dies mid-chunk
            return self.inner.rows(start, stop)

        def describe(self):
            return {"kind": "killer", **self.inner.describe()}
    """
)


def test_a_dask_worker_that_dies_mid_sweep_loses_and_duplicates_nothing(tmp_path: Path, serial_result: pd.DataFrame) -> None:
    (tmp_path / "killer_spec.py").write_text(KILLER_MODULE)
    sys.path.insert(0, str(tmp_path))
    try:
        import killer_spec

        cloudpickle.register_pickle_by_value(killer_spec)  # workers need not import it
        marker = tmp_path / "worker-killed"
        spec = killer_spec.KillsItsWorkerOnce(SPEC, str(marker), victim_chunk_start=100)
        got = sweep(spec, backend="dask", workers=2, chunk_size=25, progress=False, checkpoint=tmp_path / "ck")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("killer_spec", None)
    assert marker.exists(), "the victim chunk must have killed a worker"
    assert list(got["task"]) == list(range(len(SPEC)))  # nothing lost, nothing twice
    pd.testing.assert_frame_equal(got, serial_result)
