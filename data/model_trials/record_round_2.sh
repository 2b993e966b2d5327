#!/usr/bin/env bash
# Record (or resume) every recording of the two second editions (data/model_trials/preregistration_part3.md,
# section 10, and preregistration_part4.md, section 4.11): two lanes side by side, one core each, one worker of
# one thread per lane, as the pre-registrations' plans say:
#   lane 1: the agent study (part 3, section 10): SmolLM2-135M (recorded whole; opens no model), then
#           Qwen2.5-Coder-0.5B and -1.5B under aligned evaluation (the deviation PROVENANCE.md states: batches of
#           32 tokens from position 0, only whole shared batches reused; an answer still depends on its prompt
#           alone); the 1.5B model's tasks are the ones cut if time runs out, a task's three orders together.
#   lane 2: the notes study (part 4, section 4.11): the greedy runs of SmolLM2-135M, Qwen2.5-Coder-0.5B and -1.5B,
#           then the sampled repeats of the 0.5B model and of the 1.5B model.
# Every step resumes where it stopped (finished cells and groups are kept, a cut one is redone) and holds its
# file's lock, so running this again in a later session continues the round; a finished step opens no model.
# Each recorder runs at the lowest scheduling priority (nice 19), so other work on the machine goes first; an answer
# does not depend on how fast it was computed.
# Logs: _runs/record_round_2.lane1.log and _runs/record_round_2.lane2.log.
# Usage: bash data/model_trials/record_round_2.sh          (needs bash scripts/install_models.sh --large)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
# The recorders by absolute path, so that a lane stops only this checkout's recorder (take_over below).
AGENT="$PWD/data/model_trials/record_agent_study_2.py"
NOTES="$PWD/data/model_trials/record_notes_study_2.py"
mkdir -p _runs
agent() { nice -n 19 "$PY" "$AGENT" "$@"; }
notes() { nice -n 19 "$PY" "$NOTES" "$@"; }
agent_steps() {
  agent --model smollm2-135m "$@"
  agent --model qwen2.5-coder-0.5b --evaluation aligned "$@"
  agent --model qwen2.5-coder-1.5b --evaluation aligned "$@"
}
notes_steps() {
  notes --model smollm2-135m --repeats 0 "$@"
  notes --model qwen2.5-coder-0.5b --repeats 0 "$@"
  notes --model qwen2.5-coder-1.5b --repeats 0 "$@"
  notes --model qwen2.5-coder-0.5b "$@"
  notes --model qwen2.5-coder-1.5b "$@"
}
# When one study is done, its core joins the other (part 3, section 10): the other lane's recorder is stopped (its
# lane ends there; a cell or group cut short is redone) and that study's steps run again with two workers, which
# skip what is recorded. A session that starts with one study done hands its core over within seconds.
take_over() {
  echo "record_round_2: this lane's study is done; its core joins the other study (two workers)"
  pkill -f -x ".*$1( .*)?" || true
  sleep 3
}
{
  agent_steps
  take_over "$NOTES"
  notes_steps --workers 2
} > _runs/record_round_2.lane1.log 2>&1 &
{
  notes_steps
  take_over "$AGENT"
  agent_steps --workers 2
} > _runs/record_round_2.lane2.log 2>&1 &
wait
