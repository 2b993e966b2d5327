"""``python -m benchmarks.model_layout``: model time per task of the agent-loop study, today's layout against the new one.

On a fixed sample of the study's tasks (the first ``--tasks`` of the seeded
order, greedy), in one run:

* **today's layout**: one worker with one thread, each arm its own run from
  a fresh context (every run's first call reads its whole prompt), as the
  first recordings were made;
* **one worker, two threads** and **two workers, one thread each**: a task's
  four arms back to back after one reset, so only the first arm reads the
  shared system turn and plan (what ``record_agent_study.py`` does).

For each: wall seconds per task and the runtime's floor, the seconds its
calls would take at the runtime's own rates (new prompt tokens at the
large-batch prompt rate, generated tokens at the generation rate, both
measured here for that thread count, divided among the workers). Then a
sample of the new layout's calls is re-generated through ``verify`` and
compared byte for byte. Prints a table; ``--save FILE`` writes JSON that
``python -m benchmarks`` folds into ``data/benchmarks/latest.json`` as
``models.layout``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.machine import describe, load

_WORKER: dict[str, Any] = {}


class Timed:
    """A model whose calls' token counts are kept (llama.cpp reports them per call)."""

    def __init__(self, model: Any) -> None:
        self.model, self.calls = model, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    def complete(self, messages: Any, settings: Any) -> str:
        answer = self.model.complete(messages, settings)
        timings = self.model.last_timings
        self.calls.append((int(timings.get("prompt_n", 0)), int(timings.get("predicted_n", 0))))
        return str(answer)


def _open(spec: str, threads: int) -> Timed:
    from cvlib.experiments.agent_study.design import STUDY_SETTINGS
    from cvlib.models import open_model

    model = open_model(spec)
    model.prepare(replace(STUDY_SETTINGS, threads=threads))
    return Timed(model)


def rates(spec: str, threads: int) -> dict[str, float]:
    """The runtime's own prompt rate on a large batch and generation rate, at ``threads``."""
    from cvlib.models import GenerationSettings

    model = _open(spec, threads)
    long_prompt = " ".join(f"fact F{k} was observed at t={k} and is ACTIVE." for k in range(60))
    prompt, generation = [], []
    for k in range(3):
        model.reset()
        settings = GenerationSettings(max_tokens=48, threads=threads, context_size=4096)
        model.complete([("system", f"Run {k}."), ("user", long_prompt + " Summarise in one paragraph.")], settings)
        t = model.model.last_timings
        prompt.append(t["prompt_per_second"])
        generation.append(t["predicted_per_second"])
    return {"prompt_tokens_per_s": statistics.median(prompt), "generation_tokens_per_s": statistics.median(generation)}


def _today(spec: str, tasks: list[Any]) -> tuple[float, list[tuple[int, int]]]:
    """One worker, one thread, every arm its own run from a fresh context."""
    from cvlib.experiments.agent_study.design import repeat_settings
    from cvlib.experiments.agent_study.policy import ModelPolicy
    from cvlib.experiments.agent_study.study_prompts import STUDY_ARMS
    from cvlib.experiments.agent_study.tasks import run_task

    model = _open(spec, 1)
    t0 = time.perf_counter()
    for task in tasks:
        settings, prompts = repeat_settings(task, 0, 1)
        for arm in STUDY_ARMS:
            model.reset()
            run_task(task.task, ModelPolicy(model, arm, settings, prompts=prompts))
    return time.perf_counter() - t0, model.calls


def _init(spec: str, threads: int) -> None:
    _WORKER["model"] = _open(spec, threads)
    _WORKER["threads"] = threads


def _group(task: Any) -> tuple[list[str], list[tuple[int, int]]]:
    from cvlib.experiments.agent_study.design import run_group

    model = _WORKER["model"]
    before = len(model.calls)
    lines = run_group(model, task, 0, _WORKER["threads"], probes=False)
    return lines, model.calls[before:]


def _new(spec: str, tasks: list[Any], workers: int, threads: int) -> tuple[float, list[tuple[int, int]], list[str]]:
    """Arms back to back per task, on ``workers`` processes of ``threads`` threads."""
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(spec, threads)) as pool:
        results = list(pool.map(_group, tasks))
    seconds = time.perf_counter() - t0
    return seconds, [c for _, calls in results for c in calls], [line for lines, _ in results for line in lines]


def _floor(calls: list[tuple[int, int]], rate: dict[str, float], workers: int) -> float:
    total = sum(p / rate["prompt_tokens_per_s"] + g / rate["generation_tokens_per_s"] for p, g in calls)
    return total / workers


def measure(spec: str, n_tasks: int, verify_sample: int) -> dict[str, Any]:
    """Seconds per task of each layout, its floor, and the re-generation check of the new layout."""
    from cvlib.experiments.agent_study.design import study_tasks
    from cvlib.models import verify_recording
    from cvlib.models.jsonl import append_lines

    started = load()
    tasks = study_tasks()[:n_tasks]
    rate = {t: rates(spec, t) for t in (1, 2)}
    layouts: dict[str, dict[str, Any]] = {}
    seconds, calls = _today(spec, tasks)
    layouts["today: 1 worker × 1 thread, arms apart"] = {"workers": 1, "threads": 1, "seconds": seconds, "calls": calls}
    kept: list[str] = []
    for workers, threads in ((1, 2), (2, 1)):
        seconds, calls, lines = _new(spec, tasks, workers, threads)
        name = f"new: {workers} worker{'s' * (workers > 1)} × {threads} thread{'s' * (threads > 1)}, arms together"
        layouts[name] = {"workers": workers, "threads": threads, "seconds": seconds, "calls": calls}
        if threads == 1:
            kept = lines
    rows = {}
    for name, row in layouts.items():
        floor = _floor(row["calls"], rate[row["threads"]], row["workers"])
        rows[name] = {"workers": row["workers"], "threads": row["threads"], "calls": len(row["calls"]),
                      "prompt_tokens": sum(p for p, _ in row["calls"]), "seconds_per_task": row["seconds"] / n_tasks,
                      "floor_per_task": floor / n_tasks, "floor_ratio": row["seconds"] / floor}
    today = rows["today: 1 worker × 1 thread, arms apart"]
    best = min((r for n, r in rows.items() if n.startswith("new")), key=lambda r: r["seconds_per_task"])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "layout.jsonl"
        append_lines(path, kept)
        report = verify_recording(path, verify_sample, seed=0, model=spec)
    return {
        "model": spec, "tasks": n_tasks, "rates": {str(k): v for k, v in rate.items()}, "layouts": rows,
        "layout_speedup": today["seconds_per_task"] / best["seconds_per_task"], "floor_ratio": best["floor_ratio"],
        "chosen": {"workers": best["workers"], "threads": best["threads"]},
        "regenerated": {"sampled": len(report.checked), "generated": report.generated, "identical": report.same},
        "machine": describe(), "load_average": {"start": started, "end": load()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="a model spec (bundled name, GGUF path, server URL)")
    parser.add_argument("--tasks", type=int, default=6, help="the first N tasks of the study's seeded order")
    parser.add_argument("--verify", type=int, default=10, help="calls of the new layout re-generated and compared")
    parser.add_argument("--save", default=None, help="also write the result as JSON to this file")
    args = parser.parse_args(argv)
    result = measure(args.model, args.tasks, args.verify)
    print(f"{result['model']}, {args.tasks} tasks of the study, load {result['load_average']}")
    for name, row in result["layouts"].items():
        print(f"  {name:48s} {row['seconds_per_task']:6.2f} s/task, floor {row['floor_per_task']:6.2f} s "
              f"({row['floor_ratio']:.2f}x the floor), {row['calls']} calls, {row['prompt_tokens']} prompt tokens")
    regen = result["regenerated"]
    print(f"  layout speedup {result['layout_speedup']:.2f}x; re-generated {regen['identical']} of {regen['sampled']} "
          f"byte-identical ({regen['generated']} calls generated)")
    if args.save:
        Path(args.save).write_text(json.dumps(result, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
