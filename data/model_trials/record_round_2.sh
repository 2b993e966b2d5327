#!/usr/bin/env bash
# Record (or resume) every recording of the two second editions (data/model_trials/preregistration_part3.md,
# section 10, and preregistration_part4.md, section 4.11): two lanes side by side, one core each, one worker of
# one thread per lane. Since the seventeenth session both lanes start with the notes study: the agent study's
# Qwen2.5-Coder-0.5B cell measured about 100 s under pure evaluation (16 hours for its 600 cells), and a faster
# evaluation that keeps every answer a function of its prompt alone is being tested first. The notes study needs
# its core-hours whatever that test finds, so no core waits (PROVENANCE.md, "Where it stopped"):
#   lane 1: the agent study with SmolLM2-135M (recorded whole; opens no model), the notes study with SmolLM2-135M
#           and Qwen2.5-Coder-0.5B greedy, the 0.5B model's sampled repeats, then the agent study with the 0.5B;
#   lane 2: the notes study with Qwen2.5-Coder-1.5B greedy, its sampled repeats, then the agent study with the
#           1.5B model (a task's three option orders together; its tasks are the ones cut if time runs out).
# Every step resumes where it stopped (finished cells and groups are kept, a cut one is redone) and holds its
# file's lock, so running this again in a later session continues the round; a finished step opens no model.
# Logs: _runs/record_round_2.lane1.log and _runs/record_round_2.lane2.log.
# Usage: bash data/model_trials/record_round_2.sh          (needs bash scripts/install_models.sh --large)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
mkdir -p _runs
agent() { nice -n 5 "$PY" data/model_trials/record_agent_study_2.py "$@"; }
notes() { nice -n 5 "$PY" data/model_trials/record_notes_study_2.py "$@"; }
{
  agent --model smollm2-135m
  notes --model smollm2-135m --repeats 0
  notes --model qwen2.5-coder-0.5b --repeats 0
  notes --model qwen2.5-coder-0.5b
  agent --model qwen2.5-coder-0.5b
} > _runs/record_round_2.lane1.log 2>&1 &
{
  notes --model qwen2.5-coder-1.5b --repeats 0
  notes --model qwen2.5-coder-1.5b
  agent --model qwen2.5-coder-1.5b
} > _runs/record_round_2.lane2.log 2>&1 &
wait
