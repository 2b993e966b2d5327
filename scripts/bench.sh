#!/usr/bin/env bash
# Benchmarks (speed and memory targets; never part of the tests). Extra
# arguments go to `python -m benchmarks`, e.g. --quick.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m benchmarks "$@"
