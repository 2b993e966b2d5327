"""The parallel backends: workers forked from a preloaded server, none left behind, an existing Dask client.

Results equal to the serial backend's are checked in ``tests/experiments/test_sweep.py``;
here: how the processes backend starts and stops its workers, and that a
sweep runs on a Dask client it is given without closing it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

import cvlib as cv
from cvlib.experiments import large_sweeps, sweep_backends
from cvlib.experiments.large_sweeps import RandomFamily, sweep

SPEC = RandomFamily(seed=11, count=120, max_steps=25)
LINUX = Path("/proc/self/stat").exists()


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _alive(pid: int) -> bool:
    """Running, or stopped, but not gone and not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _descendants(root: int) -> set[int]:
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            parent = _parent_of(int(entry))
            if parent is not None:
                parents[int(entry)] = parent
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def test_the_processes_backend_forks_workers_from_a_server_that_preloaded_cvlib() -> None:
    context = sweep_backends._worker_context()
    if not LINUX:
        pytest.skip("the fork server is checked on Linux")
    assert context.get_start_method() == "forkserver"
    from multiprocessing import forkserver

    assert set(sweep_backends.PRELOAD) <= set(forkserver._forkserver._preload_modules)
    assert "pandas" in sweep_backends.PRELOAD  # pyarrow loads it on a worker's first array otherwise


def test_the_processes_backend_equals_serial_with_the_lifeline_in_place() -> None:
    serial = sweep(SPEC, chunk_size=10, progress=False)
    pd.testing.assert_frame_equal(sweep(SPEC, backend="processes", workers=2, chunk_size=10, progress=False), serial)


@pytest.mark.skipif(not LINUX, reason="reads the process tree from /proc")
def test_no_process_outlives_a_killed_sweep() -> None:
    """SIGKILL the sweeping process: its fork server, workers and resource tracker all end soon after."""
    code = textwrap.dedent(
        """
        import os, cvlib
        print(os.getpid(), flush=True)
        cvlib.sweep(cvlib.RandomFamily(seed=1, count=5_000_000, max_steps=40),
                    backend="processes", workers=2, chunk_size=200, progress=False)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        pid = int(parent.stdout.readline())
        deadline = time.monotonic() + 60
        tree: set[int] = set()
        while time.monotonic() < deadline:
            tree = _descendants(pid)
            workers = {p for p in tree if _parent_of(p) != pid}  # grandchildren: forked by the server
            if len(workers) >= 2:
                break
            time.sleep(0.2)
        assert len(workers) >= 2, f"the workers never started (process tree {sorted(tree)})"
        time.sleep(0.5)  # let them take chunks
        tree = _descendants(pid)
        os.kill(pid, signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(p) for p in tree):
            time.sleep(0.2)
        left = sorted(p for p in tree if _alive(p))
        assert not left, f"processes left behind after the sweep was killed: {left}"
    finally:
        if parent.poll() is None:
            parent.kill()


def test_a_dask_sweep_runs_on_a_given_client_and_leaves_it_open() -> None:
    pytest.importorskip("distributed")
    from dask.distributed import Client, LocalCluster

    serial = sweep(SPEC, chunk_size=10, progress=False)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            first = sweep(SPEC, backend="dask", client=client, chunk_size=10, progress=False)
            second = sweep(SPEC, backend="dask", client=client, chunk_size=30, progress=False)
            assert client.status == "running"
    pd.testing.assert_frame_equal(first, serial)
    pd.testing.assert_frame_equal(second, serial)


def _profiler_and_tick() -> tuple[bool, str]:
    import dask

    return dask.config.get("distributed.worker.profile.enabled"), dask.config.get("distributed.admin.tick.interval")


def test_the_local_cluster_starts_its_workers_with_the_monitors_quiet() -> None:
    pytest.importorskip("distributed")
    with large_sweeps.local_client(1) as client:
        seen = list(client.run(_profiler_and_tick).values())
        rows = sweep(SPEC, backend="dask", client=client, chunk_size=10, progress=False)
    assert seen == [(False, large_sweeps.QUIET_DASK["distributed.admin.tick.interval"])]
    pd.testing.assert_frame_equal(rows, sweep(SPEC, chunk_size=10, progress=False))


def test_a_misplaced_client_is_named() -> None:
    with pytest.raises(cv.ParameterError, match="Dask client only makes sense with backend='dask'"):
        sweep(SPEC, client=object())
    with pytest.raises(cv.ParameterError, match="not both"):
        sweep(SPEC, backend="dask", client=object(), address="tcp://127.0.0.1:8786")
    with pytest.raises(cv.ParameterError, match="client must be a dask.distributed.Client, got int"):
        sweep(SPEC, backend="dask", client=3)
