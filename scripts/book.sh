#!/usr/bin/env bash
# The main job: install into .venv (when needed), execute every chapter the table of
# contents names with papermill into book/chapters/, and build the HTML book with
# warnings as errors. Output: _build/html/index.html
#
# Arguments go to book/build.py (`bash scripts/book.sh --help` lists them), e.g.
#   bash scripts/book.sh --only value_change           # re-execute one chapter, then build
#   bash scripts/book.sh --spec data/scenarios/x.yaml  # make a page from a spec file, then build
#   bash scripts/book.sh --verbose                     # show the kernels' and Sphinx's own output
set -euo pipefail
# The closing "done (...)" line counts from here, so the install below is in the time it reports.
CVBOOK_STARTED="$(date +%s.%N)"
export CVBOOK_STARTED
# A relative --spec path is read from the repository root, or else from here.
export CVBOOK_CALLER_DIR="$PWD"
cd "$(dirname "$0")/.."
for arg in "$@"; do
  if [ "$arg" = "--verbose" ]; then export CVBOOK_VERBOSE=1; fi
done
bash scripts/setup.sh
exec .venv/bin/python book/build.py "$@"
