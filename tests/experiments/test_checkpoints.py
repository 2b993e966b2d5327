"""Checkpoint folders: the manifest names the sweep and every chunk; nothing unverified reaches a result.

The damage cases (edited, copied, short, truncated, garbage chunks, a missing
or foreign manifest...) are in tests/experiments/test_hostile_inputs.py, each run against
an undamaged sweep; these tests pin the manifest's contents and the
behaviours the damage cases rely on.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import cvlib as cv
from cvlib.core.errors import SweepError
from cvlib.experiments.checkpoints import MANIFEST_FORMAT, Checkpoint, CheckpointWarning, ChunkRecord, cvlib_version

SPEC = cv.RandomFamily(seed=11, count=60, max_steps=15)


def run(folder: Path, spec=SPEC) -> pd.DataFrame:
    return cv.sweep(spec, chunk_size=20, checkpoint=folder, progress=False)


def test_the_manifest_names_the_sweep_and_every_chunk(tmp_path: Path) -> None:
    frame = run(tmp_path)
    manifest = json.loads((tmp_path / "sweep.json").read_text())
    assert manifest["format"] == MANIFEST_FORMAT
    assert manifest["identity"] == {
        "spec": SPEC.describe(),
        "seed": 11,
        "tasks": 60,
        "chunk_size": 20,
        "cvlib_version": cvlib_version(),
    }
    assert sorted(manifest["chunks"]) == ["0", "1", "2"]
    for key, entry in manifest["chunks"].items():
        data = (tmp_path / f"chunk-{int(key):06d}.parquet").read_bytes()
        chunk = int(key)
        assert entry == {
            "start": 20 * chunk,
            "stop": 20 * chunk + 20,
            "rows": 20,
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    assert list(frame["task"]) == list(range(60))


def test_a_sound_folder_resumes_without_a_warning(tmp_path: Path) -> None:
    first = run(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CheckpointWarning)
        again = run(tmp_path)
    pd.testing.assert_frame_equal(first, again)


def test_a_damaged_chunk_warns_and_is_rewritten_sound(tmp_path: Path) -> None:
    first = run(tmp_path)
    path = tmp_path / "chunk-000001.parquet"
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.warns(CheckpointWarning, match=r"chunks 1 \(.* bytes, expected .*\) failed verification"):
        again = run(tmp_path)
    pd.testing.assert_frame_equal(first, again)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CheckpointWarning)
        pd.testing.assert_frame_equal(first, run(tmp_path))  # repaired: the next resume is clean


def test_another_cvlib_version_is_another_sweep(tmp_path: Path) -> None:
    run(tmp_path)
    manifest = json.loads((tmp_path / "sweep.json").read_text())
    manifest["identity"]["cvlib_version"] = "0.0.1"
    (tmp_path / "sweep.json").write_text(json.dumps(manifest))
    with pytest.raises(SweepError, match="holds another sweep"):
        run(tmp_path)


class FailsAtTask:
    """A sweep spec whose task ``bad`` raises, as a bug in a user's spec would."""

    def __init__(self, bad: int) -> None:
        self.bad = bad

    def __len__(self) -> int:
        return 60

    def rows(self, start: int, stop: int) -> list[dict[str, int]]:
        if start <= self.bad < stop:
            raise RuntimeError("a bug in the spec")
        return [{"task": i} for i in range(start, stop)]

    def describe(self) -> dict[str, object]:
        return {"kind": "fails"}  # the same sweep whichever task fails: a rerun resumes it


def test_the_lock_is_released_after_a_failed_sweep(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="a bug in the spec"):
        run(tmp_path, FailsAtTask(45))
    manifest = json.loads((tmp_path / "sweep.json").read_text())
    assert sorted(manifest["chunks"]) == ["0", "1"]  # the chunks that finished are kept
    frame = run(tmp_path, FailsAtTask(999))  # the bug fixed: resumes, not blocked by a stale lock
    assert list(frame["task"]) == list(range(60))
    with Checkpoint(tmp_path / "third", {"spec": {}}, [(0, 1)]):
        pass
    with Checkpoint(tmp_path / "third", {"spec": {}}, [(0, 1)]):  # the first released it
        pass


def test_a_failed_sweep_leaves_no_result_file(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        cv.sweep(FailsAtTask(30), chunk_size=20, checkpoint=tmp_path / "ck", out=tmp_path / "out.parquet", progress=False)
    assert not (tmp_path / "out.parquet").exists()
    assert not list((tmp_path / "ck").glob("*.tmp"))


def test_a_grid_checks_every_value_before_running() -> None:
    with pytest.raises(cv.ParameterError, match="depth must be >= 1, got 0"):
        cv.Grid("A", depth=[3, 4, 0])


@pytest.mark.parametrize(
    "raw",
    [
        None,
        [],
        {"start": 0, "stop": 20, "rows": 20, "bytes": 10},
        {"start": 0, "stop": 20, "rows": 20, "bytes": -1, "sha256": "0" * 64},
        {"start": 0, "stop": 20, "rows": True, "bytes": 10, "sha256": "0" * 64},
        {"start": 0, "stop": 20, "rows": 20, "bytes": 10, "sha256": "Z" * 64},
        {"start": 0, "stop": 20, "rows": 20, "bytes": 10, "sha256": "0" * 64, "extra": 1},
    ],
)
def test_malformed_manifest_entries_are_not_records(raw) -> None:
    assert ChunkRecord.parse(raw) is None


def test_a_well_formed_entry_is_a_record() -> None:
    entry = {"start": 0, "stop": 20, "rows": 20, "bytes": 10, "sha256": "0" * 64}
    assert ChunkRecord.parse(entry) == ChunkRecord(0, 20, 20, 10, "0" * 64)
