#!/usr/bin/env bash
# Creates .venv and installs the given requirements file (and this project, editable)
# when they changed since the last install. Used by start.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=${1:-requirements.txt}
python=${PYTHON:-python3}

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "error: Python 3.11 or newer is needed (found: $("$python" --version 2>&1))" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp() { echo ".venv/.installed-$(basename "$1")"; }
digest() { cat requirements.txt "$1" pyproject.toml | sha256sum | cut -c1-16; }
current() { [ "$(cat "$(stamp "$1")" 2>/dev/null)" = "$(digest "$1")" ]; }
# requirements-dev.txt includes requirements.txt: a venv current for it is current for both
# (start.sh in a checkout the tests run from never reinstalls under them).
if current "$requirements" || { [ "$requirements" = requirements.txt ] && current requirements-dev.txt; }; then
  exit 0
fi
echo "installing $requirements into .venv ..." >&2
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$requirements"
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
digest "$requirements" > "$(stamp "$requirements")"
