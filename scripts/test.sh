#!/usr/bin/env bash
# Every test: install (including Debian's Chromium for the browser tests), build
# the HTML book from the committed executed notebooks, then run pytest over the
# unit, property and CLI tests, the chapters' printed rerun commands, nbval over
# the executed chapters the table of contents names, and the browser suite over
# the built book. Extra arguments go to pytest.
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
# nbval re-executes exactly the chapters the book shows (a stray notebook is not one).
chapters="$(.venv/bin/python book/build.py --list)"
# shellcheck disable=SC2086 # one path per line, no spaces (chapter names are checked)
.venv/bin/python -m pytest tests $chapters --nbval -p no:cacheprovider "$@"
