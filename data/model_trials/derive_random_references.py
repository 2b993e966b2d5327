"""Compute the agent study's random reference for every recorded task: data/model_trials/agent_study_2_random.csv.

From the repository root:

    .venv/bin/python data/model_trials/derive_random_references.py

The second edition's random reference answers at a model's own rates in each arm and order, 200 seeded
draws per task (pre-registration part 3, section 6). This script reads every agent_study_2 recording in
this folder, computes the reference for every task, arm and order they hold (reusing rows already in the
table), and rewrites the table whole with exactly the rows those recordings use. Run it after a recording
grows; the chapter computes any row the table lacks, so a stale table only costs time, never a number.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cvlib.experiments.agent_study.reference_cache import write_reference_cache  # noqa: E402
from cvlib.presentation.agent_study_2_tables import DEFAULT_CACHE, read_runs, sources_in  # noqa: E402


def main() -> None:
    """Derive the table and say how many rows it holds."""
    target = ROOT / DEFAULT_CACHE
    used: dict = {}
    study = read_runs(sources_in(target.parent), cache=DEFAULT_CACHE, computed=used)
    write_reference_cache(target, used)
    print(f"{target.relative_to(ROOT)}: {len(used)} rows, {len(study.models)} models")


if __name__ == "__main__":
    main()
