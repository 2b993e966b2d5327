"""Seconds per edit trial of the notes study's second edition, per model, at one thread (the plan's machine time).

From the repository root, with the model packages installed:

    python data/model_trials/time_notes_study_2.py --model qwen2.5-coder-0.5b --calls 4

Runs ``--calls`` calls of the recording plan's first task (greedy, the seeded task order), spread evenly over its
variants (the first arms of each variant's group, after a reset per group, the arms in order) exactly as the
recorder would, without writing a recording, and
prints one JSON line: the model, threads, calls, wall seconds per call (mean, min, max), CPU seconds per call (the
process's own CPU time, which a shared machine's other jobs do not inflate the way they inflate wall time), the
characters of the answers and the machine's load averages before and after. Read the seconds beside the load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cvlib.experiments.notes_study.second_design import (  # noqa: E402
    SECOND_SETTINGS,
    group_arms,
    second_settings,
    study_groups,
)
from cvlib.experiments.notes_study.second_prompts import second_prompt  # noqa: E402
from cvlib.experiments.notes_study.second_tasks import load_second_edition  # noqa: E402
from cvlib.models import open_model  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    edition = load_second_edition(ROOT / "data" / "model_trials")
    plan = study_groups(edition.tasks, edition.refutations, edition.rules, (0,))
    before = os.getloadavg()
    model = open_model(args.model)
    model.prepare(SECOND_SETTINGS)
    seconds, cpu, chars = [], [], []
    first = [g for g in plan if g.task.id == plan[0].task.id]
    per_group = max(1, args.calls // len(first))
    for group in first:
        model.reset()
        settings = second_settings(group.task, group.variant, group.repeat, args.threads)
        for arm in group_arms(group.repeat)[:per_group]:
            start, start_cpu = time.perf_counter(), time.process_time()
            answer = model.complete(second_prompt(group.task, arm, group.variant, group.context), settings)
            seconds.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            chars.append(len(answer))
    after = os.getloadavg()
    print(json.dumps({"model": args.model, "threads": args.threads, "calls": len(seconds),
                      "seconds_mean": round(statistics.fmean(seconds), 2), "seconds_min": round(min(seconds), 2),
                      "seconds_max": round(max(seconds), 2), "cpu_seconds_mean": round(statistics.fmean(cpu), 2),
                      "cpu_seconds_max": round(max(cpu), 2), "answer_chars_mean": round(statistics.fmean(chars)),
                      "load_before": [round(x, 2) for x in before], "load_after": [round(x, 2) for x in after]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
