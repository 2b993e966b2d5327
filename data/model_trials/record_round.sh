#!/usr/bin/env bash
# Record (or resume) every recording of this round's two pre-registered studies, on two workers of one
# thread each (data/model_trials/preregistration.md, parts 1 and 2, "Plan and stopping rule"):
#   worker 1: the agent study's greedy runs of SmolLM2-135M, then the notes study with SmolLM2-135M and
#             Qwen2.5-Coder-0.5B, then SmolLM2-135M's sampled repeats;
#   worker 2: the agent study's greedy runs of Qwen2.5-Coder-0.5B, the notes study with the 1.5B model
#             (shorter, so it went first), the agent study's greedy runs of the 1.5B model, then the 0.5B
#             model's sampled repeats.
# Every step resumes where it stopped (finished groups are kept, a cut one is redone), so the same command
# continues the round in a later session. Logs go to _runs/record_round.<worker>.log.
# Usage: bash data/model_trials/record_round.sh          (needs bash scripts/install_models.sh --large)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
mkdir -p _runs
agent() { nice -n 10 "$PY" data/model_trials/record_agent_study.py "$@"; }
notes() { nice -n 10 "$PY" data/model_trials/record_notes_study.py "$@"; }
worker1() {
  agent --model smollm2-135m --repeats 0
  notes --model smollm2-135m
  notes --model qwen2.5-coder-0.5b
  agent --model smollm2-135m --repeats 0 1 2
}
worker2() {
  agent --model qwen2.5-coder-0.5b --repeats 0
  notes --model qwen2.5-coder-1.5b
  agent --model qwen2.5-coder-1.5b --repeats 0
  agent --model qwen2.5-coder-0.5b --repeats 0 1 2
}
worker1 > _runs/record_round.1.log 2>&1 &
worker2 > _runs/record_round.2.log 2>&1 &
wait
