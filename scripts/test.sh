#!/usr/bin/env bash
# Every test: install (including Debian's Chromium for the browser tests), build
# the HTML book from the committed executed notebooks, then run pytest over the
# unit, property and CLI tests, nbval over the executed notebooks, and the
# browser suite over the built book.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ ! -x /usr/bin/chromium ]; then
  echo "test: installing Debian's chromium for the browser tests"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
.venv/bin/python book/build.py --no-execute
.venv/bin/python -m pytest tests book/chapters --nbval -p no:cacheprovider "$@"
