#!/usr/bin/env bash
# The test command: format check, lint, strict types, every test, and the eval report of
# the cases the embedded model plays, written to build/eval-embedded.* (the committed
# docs/eval-embedded.* is never rewritten here: a slow test fails, and the last step
# says so, when it is stale). Extra arguments go to pytest (./scripts/test.sh -m "not slow").
#
# It says first what it installs, then does it. Always .venv from requirements-dev.txt
# (when that changed). Unless --no-provision: Playwright's MCP server (pinned, npm ci) into
# the tests' tools cache and, as root, what some tests need and this machine lacks: Go,
# promtool (prometheus), Chromium and npm (apt-get), a Docker engine with a base image
# built by debootstrap (scripts/docker-base-image.sh). Tests whose tools are missing say
# so and skip; everything else still runs. It ends with how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
provision=1
pytest_args=()
for arg in "$@"; do
  if [ "$arg" = --no-provision ]; then provision=0; else pytest_args+=("$arg"); fi
done
finish() {
  local status=$? elapsed=$((SECONDS - started)) outcome=passed
  [ "$status" = 0 ] || outcome="failed (exit $status)"
  printf 'test.sh: %s after %dm %02ds\n' "$outcome" $((elapsed / 60)) $((elapsed % 60)) >&2
}
trap finish EXIT
say() { echo "test.sh: $*" >&2; }

tools_cache="${TMPDIR:-/tmp}/harness-test-tools"
root=0; [ "$(id -u)" = 0 ] && root=1
apt_missing=()
if [ "$provision" = 1 ] && [ "$root" = 1 ]; then
  command -v go >/dev/null 2>&1 || apt_missing+=(golang-go)
  command -v promtool >/dev/null 2>&1 || apt_missing+=(prometheus)
  for tool in chromium npm; do
    command -v "$tool" >/dev/null 2>&1 || apt_missing+=("$tool")
  done
fi

say "installs .venv from requirements-dev.txt when it changed"
if [ "$provision" = 0 ]; then
  say "installs nothing else (--no-provision): the tests that need Docker, Go, promtool or a browser skip if it is missing"
else
  say "installs Playwright's MCP server (pinned, npm ci) into $tools_cache; --no-provision skips this and what follows"
  if [ "$root" = 1 ]; then
    say "as root, installs with apt-get: ${apt_missing[*]:-nothing (Go, promtool, Chromium and npm are here)}"
    say "as root, makes a Docker engine ready: docker.io and debootstrap (apt-get) when missing, dockerd started when none answers, a base image built by debootstrap when absent (scripts/docker-base-image.sh)"
  fi
fi
# One pytest worker more than the cores (the end-to-end tests wait on processes a good
# part of their time), at most 8; the slow tests first, the Docker tests in one worker (tests/conftest.py).
# `-n 0` after the script's name runs every test in one process, one after another.
workers=$(( $(nproc) + 1 )); [ "$workers" -gt 8 ] && workers=8
say "then: ruff format --check, ruff check, mypy, pytest ${pytest_args[*]:-(every test)} in $workers workers, the eval report into build/eval-embedded.*"

scripts/bootstrap.sh requirements-dev.txt
if [ "$provision" = 1 ] && [ "$root" = 1 ]; then
  scripts/docker-base-image.sh || echo "warning: no Docker engine; the Docker tests will skip" >&2
  for package in "${apt_missing[@]}"; do
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package" >/dev/null 2>&1 \
      || echo "warning: $package did not install; the tests that need it will skip" >&2
  done
fi
if [ "$provision" = 1 ]; then
  # Playwright's MCP server (pinned) into the tests' tools cache (tests/conftest.py names it).
  .venv/bin/python -m agent.core.browser.install "$tools_cache" \
    || echo "warning: no browser server; the browser tests will skip" >&2
fi
.venv/bin/ruff format --check .
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/pytest -n "$workers" --dist loadgroup "${pytest_args[@]}"
mkdir -p build
.venv/bin/harness eval --embedded-only --report build/eval-embedded
.venv/bin/python -m agent.eval.staleness docs/eval-embedded.json build/eval-embedded.json \
  || echo "warning: the committed eval report is stale (see above)" >&2
