#!/usr/bin/env bash
# Record (or resume) every recording of the two second editions (data/model_trials/preregistration_part3.md,
# section 10, and preregistration_part4.md, section 4.11): two lanes side by side, one core each, one worker of
# one thread per lane:
#   agent lane: the agent study's second edition with SmolLM2-135M, then Qwen2.5-Coder-0.5B, then -1.5B (a task's
#               three option orders together; the 1.5B model is the one cut if the round's time runs out);
#   notes lane: the notes study's second edition, the three models' greedy runs, then the two Qwen coders'
#               sampled repeats.
# Every step resumes where it stopped (finished cells and groups are kept, a cut one is redone) and holds its
# file's lock, so running this again in a later session continues the round; a finished step opens no model.
# Logs: _runs/record_round_2.agent.log and _runs/record_round_2.notes.log.
# Usage: bash data/model_trials/record_round_2.sh          (needs bash scripts/install_models.sh --large)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
mkdir -p _runs
agent() { nice -n 5 "$PY" data/model_trials/record_agent_study_2.py "$@"; }
notes() { nice -n 5 "$PY" data/model_trials/record_notes_study_2.py "$@"; }
{
  agent --model smollm2-135m
  agent --model qwen2.5-coder-0.5b
  agent --model qwen2.5-coder-1.5b
} > _runs/record_round_2.agent.log 2>&1 &
{
  notes --model smollm2-135m --repeats 0
  notes --model qwen2.5-coder-0.5b --repeats 0
  notes --model qwen2.5-coder-1.5b --repeats 0
  notes --model qwen2.5-coder-0.5b
  notes --model qwen2.5-coder-1.5b
} > _runs/record_round_2.notes.log 2>&1 &
wait
