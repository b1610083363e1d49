#!/usr/bin/env bash
# The test command: installs what it needs, then format check, lint, strict types, tests,
# and the eval report of the cases the embedded model plays (docs/eval-embedded.*).
# Extra arguments go to pytest (for example: ./scripts/test.sh -m "not slow").
#
# As root it also prepares what some tests need: a Docker engine with a debootstrapped base
# image (Docker Hub is out of reach), Go for the eval's Go case and promtool for the metrics
# check. Without them those tests say so and skip; everything else still runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh requirements-dev.txt
if [ "$(id -u)" = 0 ]; then
  scripts/docker-base-image.sh || echo "warning: no Docker engine; the Docker tests will skip" >&2
  if ! command -v go >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q golang-go >/dev/null 2>&1 \
      || echo "warning: golang-go did not install; the Go case will skip" >&2
  fi
  # promtool checks the metrics exposition (Debian's prometheus package).
  if ! command -v promtool >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q prometheus >/dev/null 2>&1 \
      || echo "warning: prometheus (promtool) did not install; the promtool check will skip" >&2
  fi
  # The browser of the web demo and its tests: Debian's Chromium (and npm, for the server).
  for tool in chromium npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$tool" >/dev/null 2>&1 \
        || echo "warning: $tool did not install; the browser tests will skip" >&2
    fi
  done
fi
# Playwright's MCP server (pinned) into the tests' tools cache (tests/conftest.py names it).
.venv/bin/python -m agent.core.browser.install "${TMPDIR:-/tmp}/harness-test-tools" \
  || echo "warning: no browser server; the browser tests will skip" >&2
.venv/bin/ruff format --check .
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/pytest "$@"
.venv/bin/harness eval --embedded-only --report docs/eval-embedded
