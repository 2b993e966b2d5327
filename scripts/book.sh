#!/usr/bin/env bash
# The main job: install, execute every notebook with papermill into book/chapters/,
# and build the HTML book with warnings as errors. Output: _build/html/index.html
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python book/build.py "$@"
