#!/usr/bin/env bash
# Benchmarks (speed and memory targets; never part of the tests): measures every
# case against the reference loop in the same run (and against the original
# implementation, with --original DIR: a checkout of it kept outside this
# repository), rewrites data/benchmarks/latest.json with the machine's
# description, the date and each row's load, then the README's performance table,
# then re-executes the Performance chapter from the new record.
#
#   bash scripts/bench.sh                          # the suite, the README, the chapter
#   bash scripts/bench.sh --original DIR           # the same, the original timed beside cvlib
#   bash scripts/bench.sh --law-at-scale ...       # also re-record the million-plan run and its chapter
#   bash scripts/bench.sh --quick                  # sizes up to 10^5, no sweeps: data/benchmarks/quick.json only
#
# Other arguments go to `python -m benchmarks` (--repeats N, --only PART ..., --sweep-plans N).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=.venv/bin/python
law=0
args=()
for arg in "$@"; do
  if [[ "$arg" == "--law-at-scale" ]]; then law=1; else args+=("$arg"); fi
done
if [[ " ${args[*]:-} " == *" --quick "* ]]; then
  "$PY" -m benchmarks --out data/benchmarks/quick.json "${args[@]}"
  exit 0
fi
"$PY" -m benchmarks "${args[@]}"
"$PY" -m benchmarks.readme
chapters=(--only performance)
if [[ $law == 1 ]]; then
  checkpoint="$(mktemp -d)"
  "$PY" -m benchmarks.law_at_scale --plans 1000000 --checkpoint "$checkpoint"
  rm -rf "$checkpoint"
  chapters+=(--only law_at_scale)
fi
"$PY" book/build.py --no-build "${chapters[@]}"
