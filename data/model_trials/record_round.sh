#!/usr/bin/env bash
# Record (or resume) every recording of this round's two pre-registered studies
# (data/model_trials/preregistration.md, parts 1 and 2, "Plan and stopping rule"), one step after another,
# each step on two worker processes of one thread each (--workers 2; a worker's groups come back to one
# process, which writes them in plan order, so the file is the one a single worker would write):
#   1. the greedy runs of every model (agent study: SmolLM2-135M, Qwen2.5-Coder-0.5B and -1.5B; notes
#      study: the three models, both variants);
#   2. the sampled repeats (notes study: Qwen2.5-Coder-0.5B's stale arms; agent study: Qwen2.5-Coder-0.5B,
#      then SmolLM2-135M).
# Within a study, more tasks come before more repeats, as the pre-registration's plan puts repeat 0 of every
# model first; the notes study's repeats (its greedy runs all done) come before the agent study's last greedy runs.
# Every step resumes where it stopped (finished groups are kept, a cut one is redone), so the same command
# continues the round in a later session; a finished step opens no model. Log: _runs/record_round.log.
# Usage: bash data/model_trials/record_round.sh          (needs bash scripts/install_models.sh --large)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
mkdir -p _runs
agent() { nice -n 10 "$PY" data/model_trials/record_agent_study.py --workers 2 "$@"; }
notes() { nice -n 10 "$PY" data/model_trials/record_notes_study.py --workers 2 "$@"; }
{
  agent --model smollm2-135m --repeats 0
  agent --model qwen2.5-coder-0.5b --repeats 0
  notes --model smollm2-135m
  notes --model qwen2.5-coder-1.5b
  notes --model qwen2.5-coder-0.5b
  agent --model qwen2.5-coder-1.5b --repeats 0
  agent --model qwen2.5-coder-0.5b --repeats 0 1 2
  agent --model smollm2-135m --repeats 0 1 2
} > _runs/record_round.log 2>&1
