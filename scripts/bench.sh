#!/usr/bin/env bash
# Benchmarks (speed and memory targets; never part of the tests): measures every
# case against the reference loop in the same run, rewrites
# data/benchmarks/latest.json with the machine's description and the date, then
# the README's performance table. Extra arguments go to `python -m benchmarks`,
# e.g. --quick (which writes to data/benchmarks/quick.json and leaves the README alone).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [[ " $* " == *" --quick "* ]]; then
  .venv/bin/python -m benchmarks --out data/benchmarks/quick.json "$@"
else
  .venv/bin/python -m benchmarks "$@"
  .venv/bin/python -m benchmarks.readme
fi
