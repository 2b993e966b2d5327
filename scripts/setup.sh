#!/usr/bin/env bash
# Creates .venv (if missing) and installs cvlib with everything the book, the
# sweeps and the tests need. Safe to run again: pip skips what is satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $("$PYTHON" --version)"
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[all]"
# The notebooks' kernel is this venv's Python.
.venv/bin/python -m ipykernel install --sys-prefix --name python3 >/dev/null
echo "setup: $(.venv/bin/python -c 'import cvlib, sys; print("cvlib", cvlib.__version__, "on Python", sys.version.split()[0])')"
