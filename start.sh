#!/usr/bin/env bash
# coding-harness launcher.
#
#   ./start.sh --native                      the TUI (creates .venv and starts the daemon)
#   ./start.sh --native --demo [--auto-accept] [--wait]
#                                            the demo on the embedded model (--wait: no TUI,
#                                            follow it in this terminal until it ends)
#   ./start.sh --native --specs '<json>' [--auto-accept] [--wait]
#                                            the TUI with a batch of specs started
#   ./start.sh [--build] [--specs ...]       the same inside a Docker container
#   ./start.sh --connect [NAME]              attach to a running container
set -euo pipefail
cd "$(dirname "$0")"

native=0; demo=0; build=0; connect=""; specs=""; passthrough=()
while [ $# -gt 0 ]; do
  case "$1" in
    --native) native=1 ;;
    --demo) demo=1 ;;
    --build) build=1 ;;
    --connect) connect=${2:-coding-harness}; [ $# -gt 1 ] && shift ;;
    --specs) [ $# -gt 1 ] || { echo "error: --specs needs a JSON argument" >&2; exit 2; }
             specs=$2; shift ;;
    --auto-accept|--wait) passthrough+=("$1") ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option $1 (see ./start.sh --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$native" = 0 ]; then
  if ! docker info >/dev/null 2>&1; then
    echo "error: Docker is not available here; run ./start.sh --native" >&2
    exit 1
  fi
  if [ -n "$connect" ]; then exec docker attach "$connect"; fi
  if [ "$build" = 1 ] || ! docker image inspect coding-harness >/dev/null 2>&1; then
    docker build -t coding-harness .
  fi
  name=coding-harness; n=1
  while docker container inspect "$name" >/dev/null 2>&1; do n=$((n + 1)); name="coding-harness-$n"; done
  env_file=(); [ -f .env ] && env_file=(--env-file .env)
  exec docker run -it --name "$name" "${env_file[@]}" \
    -v "$HOME:$HOME" -v /tmp:/tmp -v "$name-data:/app/.data" \
    -e HARNESS_HOME=/app/.data -e HARNESS_SPECS="$specs" -e HOME="$HOME" \
    coding-harness
fi

scripts/bootstrap.sh requirements.txt
harness=.venv/bin/harness
[ -f .env ] && set -a && . ./.env && set +a
wait=0; for a in "${passthrough[@]}"; do [ "$a" = --wait ] && wait=1; done
if [ "$wait" = 1 ]; then  # no screen: follow the agents in this terminal until they end
  [ "$demo" = 1 ] && exec "$harness" demo "${passthrough[@]}"
  [ -n "$specs" ] || { echo "error: --wait needs --demo or --specs" >&2; exit 2; }
  exec "$harness" run --specs "$specs" "${passthrough[@]}"
fi
tui=(.venv/bin/python -m tui.main)
[ "$demo" = 1 ] && tui+=(--demo)
[ -n "$specs" ] && tui+=(--specs "$specs")
for a in "${passthrough[@]}"; do [ "$a" = --auto-accept ] && tui+=(--auto-accept); done
exec "${tui[@]}"
