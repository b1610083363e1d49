#!/usr/bin/env bash
# The test command: installs what it needs, then format check, lint, strict types, tests.
# Extra arguments go to pytest (for example: ./scripts/test.sh -m "not slow").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh requirements-dev.txt
.venv/bin/ruff format --check .
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/pytest "$@"
