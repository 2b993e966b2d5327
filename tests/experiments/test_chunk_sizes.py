"""The chunk size a sweep picks for itself: a few large chunks per worker in parallel, fixed when resumable."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import cvlib as cv
from cvlib.experiments.large_sweeps import (
    CHUNKS_PER_WORKER,
    DEFAULT_CHUNK_SIZE,
    RandomFamily,
    auto_chunk_size,
    sweep,
)


@pytest.mark.parametrize(
    ("tasks", "backend", "workers", "expected"),
    [
        (40_000, "processes", 2, 2_500),  # eight chunks a worker
        (40_000, "dask", 4, 1_250),
        (1_000_000, "dask", 2, 62_500),
        (40_001, "processes", 2, 2_501),  # rounded up: never a ninth, tiny chunk a worker
        (3_000, "processes", 2, 500),  # eight chunks a worker would be chunks of 188: the default is the floor
        (600, "processes", 2, 300),  # ... unless a worker would then have none
        (1, "dask", 8, 1),
        (0, "processes", 2, 1),
        (40_000, "serial", 2, DEFAULT_CHUNK_SIZE),
    ],
)
def test_parallel_sweeps_cut_a_few_large_chunks_per_worker(tasks: int, backend: str, workers: int, expected: int) -> None:
    assert auto_chunk_size(tasks, backend, workers) == expected


def test_every_worker_gets_a_chunk_and_at_most_eight_on_average() -> None:
    for tasks in (2, 7, 499, 501, 4_000, 16_001, 123_457):
        for workers in (1, 2, 3, 8):
            size = auto_chunk_size(tasks, "processes", workers)
            chunks = -(-tasks // size)
            assert chunks >= min(tasks, workers), (tasks, workers, size)
            assert chunks <= max(workers * CHUNKS_PER_WORKER, -(-tasks // DEFAULT_CHUNK_SIZE)), (tasks, workers, size)


def test_a_checkpointed_sweep_cuts_the_same_chunks_whatever_the_workers() -> None:
    assert auto_chunk_size(40_000, "processes", 2, checkpointed=True) == DEFAULT_CHUNK_SIZE
    assert auto_chunk_size(40_000, "dask", 8, checkpointed=True) == DEFAULT_CHUNK_SIZE


def test_bad_arguments_are_named() -> None:
    with pytest.raises(cv.ParameterError, match="workers"):
        auto_chunk_size(10, "processes", 0)
    with pytest.raises(cv.ParameterError, match="threads"):
        auto_chunk_size(10, "threads", 2)


def test_a_sweep_without_a_chunk_size_gives_the_same_rows_as_with_one(tmp_path: Path) -> None:
    spec = RandomFamily(seed=11, count=90, max_steps=20)
    chosen = sweep(spec, backend="processes", workers=2, progress=False)
    pd.testing.assert_frame_equal(chosen, sweep(spec, chunk_size=7, progress=False))
    sweep(spec, backend="processes", workers=2, checkpoint=tmp_path / "ck", progress=False)
    manifest = json.loads(next((tmp_path / "ck").glob("*.json")).read_text())
    assert manifest["identity"]["chunk_size"] == DEFAULT_CHUNK_SIZE
    resumed = sweep(spec, backend="processes", workers=1, checkpoint=tmp_path / "ck", progress=False)
    pd.testing.assert_frame_equal(resumed, chosen)
