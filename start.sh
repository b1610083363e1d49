#!/usr/bin/env bash
# coding-harness launcher. It runs natively (on this machine, in .venv) unless --docker.
#
#   ./start.sh                               the TUI (creates .venv and starts the daemon)
#   ./start.sh --demo [--auto-accept] [--wait]
#                                            the demo on the embedded model (--wait: no TUI,
#                                            follow it in this terminal until it ends)
#   ./start.sh --specs '<json>' [--auto-accept] [--wait] [--fresh]
#                                            the TUI with a batch of specs started
#                                            (--fresh: run a spec again, in a new
#                                            workspace, though it already has a run)
#                                            without a terminal (and --wait), --demo and
#                                            --specs start the agents in the background
#   ./start.sh --docker [--build] [--demo|--specs ...] [--auto-accept] [--wait] [--fresh]
#                                            the same inside a new Docker container
#                                            (coding-harness, coding-harness-2, ...);
#                                            without a terminal and --wait, it starts
#                                            in the background
#   ./start.sh --connect [NAME]              a TUI in a running container
#   --native                                 natively, as without --docker (the default)
#
# Docker mode (--docker; --build and --connect imply it) builds the image on first use
# (--build: again) and runs the container with
# --init, on the host's network, as your uid and gid, with user namespaces allowed (for the
# bubblewrap sandbox of every session), with your home folder and /tmp
# mounted at the same paths (paths in --specs must lie there), .env mounted for the
# entrypoint to load as native mode loads it, and the daemon's state in a volume
# NAME-data. HARNESS_ENV_FILE names another file than .env (both modes),
# HARNESS_DOCKER_IMAGE the image (and the containers' names), HARNESS_DOCKER_BASE its base
# (default python:3.11-slim; scripts/docker-base-image.sh builds a local one where Docker
# Hub is out of reach). Both modes read .env as KEY=VALUE lines, never run as shell: a
# variable already set in your environment wins over it, and an empty value there is ignored
# (`harness run` and the other commands that start agents read it the same way).
set -euo pipefail
cd "$(dirname "$0")"

native=0; docker=0; demo=0; build=0; connect=0; name=""; specs=""; passthrough=()
while [ $# -gt 0 ]; do
  case "$1" in
    --native) native=1 ;;
    --docker) docker=1 ;;
    --demo) demo=1 ;;
    --build) build=1; docker=1 ;;
    --connect) connect=1; docker=1
               if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then name=$2; shift; fi ;;
    --specs) [ $# -gt 1 ] || { echo "error: --specs needs a JSON argument" >&2; exit 2; }
             specs=$2; shift ;;
    --auto-accept|--wait|--fresh) passthrough+=("$1") ;;
    -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option $1 (see ./start.sh --help)" >&2; exit 2 ;;
  esac
  shift
done
env_file=${HARNESS_ENV_FILE:-.env}
wait=0; fresh=0
for a in "${passthrough[@]}"; do
  [ "$a" = --wait ] && wait=1
  [ "$a" = --fresh ] && fresh=1
done
if [ "$fresh" = 1 ] && { [ -z "$specs" ] || [ "$demo" = 1 ]; }; then
  echo "error: --fresh needs --specs (it runs those specs again)" >&2; exit 2
fi
terminal=0; [ -t 0 ] && [ -t 1 ] && terminal=1  # a TUI needs one (both modes)
if [ "$wait" = 1 ] && [ "$demo" = 0 ] && [ -z "$specs" ]; then
  echo "error: --wait needs --demo or --specs" >&2; exit 2
fi
if [ "$native" = 1 ] && [ "$docker" = 1 ]; then
  echo "error: --native runs on this machine, --docker (--build, --connect) in a container: choose one" >&2
  exit 2
fi

if [ "$docker" = 1 ]; then
  if ! docker info >/dev/null 2>&1; then
    echo "error: Docker is not available here; run ./start.sh without --docker (natively)" >&2
    exit 1
  fi
  image=${HARNESS_DOCKER_IMAGE:-coding-harness}
  if [ "$connect" = 1 ]; then
    name=${name:-$image}
    [ -t 0 ] || { echo "error: --connect opens a TUI: it needs a terminal" >&2; exit 2; }
    if [ "$(docker container inspect -f '{{.State.Running}}' "$name" 2>/dev/null)" != true ]; then
      echo "error: no running container $name (docker ps lists them)" >&2; exit 1
    fi
    exec docker exec -it "$name" /app/docker-entrypoint.sh --tui
  fi
  if [ "$build" = 1 ] || ! docker image inspect "$image" >/dev/null 2>&1; then
    scripts/docker-build.sh "$image"
  fi
  args=(); [ "$demo" = 1 ] && args+=(--demo); [ -n "$specs" ] && args+=(--specs "$specs")
  args+=("${passthrough[@]}")
  # Private to the uid in the volume: the daemon's home and git's global config (which
  # includes ~/.gitconfig, so git reads your settings but never writes that file).
  private=/var/lib/coding-harness/$(id -u)
  # The host's network: a URL in .env (a gateway on 127.0.0.1, a local GitLab) means there
  # what it means natively.
  # Every agent session runs in bubblewrap inside the container (docs/security.md): that
  # needs user namespaces and a fresh /proc, which Docker's default seccomp profile and
  # masked /proc paths forbid. The sandbox, not the container, is the model's boundary.
  run=(--init --rm --network host --user "$(id -u):$(id -g)"
       --security-opt seccomp=unconfined --security-opt systempaths=unconfined
       -e HOME="$HOME" -e TERM -e COLORTERM
       -e HARNESS_HOME="$private/home" -e GIT_CONFIG_GLOBAL="$private/gitconfig"
       -v "$HOME:$HOME" -v /tmp:/tmp)
  [ -f "$env_file" ] && run+=(-v "$(realpath "$env_file"):/run/coding-harness/env:ro")
  if [ "$terminal" = 1 ]; then run+=(-it); elif [ "$wait" = 0 ]; then run+=(-t); fi
  # The first free name; docker create is the atomic claim when two start at once.
  name=$image; n=1; err=$(mktemp)
  until docker create --name "$name" -v "$name-data:/var/lib/coding-harness" "${run[@]}" \
          "$image" "${args[@]}" >/dev/null 2>"$err"; do
    if ! grep -q 'is already in use' "$err"; then cat "$err" >&2; rm -f "$err"; exit 1; fi
    n=$((n + 1)); name="$image-$n"
  done
  rm -f "$err"
  if [ "$terminal" = 1 ] || [ "$wait" = 1 ]; then
    echo "container $name" >&2
    if [ "$terminal" = 1 ]; then exec docker start -ai "$name"; fi
    exec docker start -a "$name"
  fi
  docker start "$name" >/dev/null
  echo "container $name started in the background; ./start.sh --connect $name opens its TUI"
  exit 0
fi

if [ "$terminal" = 0 ] && [ "$wait" = 0 ] && [ "$demo" = 0 ] && [ -z "$specs" ]; then
  echo "error: the wizard needs a terminal; without one pass --demo or --specs" >&2; exit 2
fi
scripts/bootstrap.sh requirements.txt
harness=.venv/bin/harness
# .env is read, never run as shell, and never overrides a variable already set or sets an
# empty one (scripts/load-env.sh): the template's empty ANTHROPIC_API_KEY= keeps yours.
. scripts/load-env.sh
if [ -f "$env_file" ]; then load_env_file "$env_file"; fi
if [ "$wait" = 1 ]; then  # no screen: follow the agents in this terminal until they end
  [ "$demo" = 1 ] && exec "$harness" demo "${passthrough[@]}"
  exec "$harness" run --specs "$specs" "${passthrough[@]}"
fi
if [ "$terminal" = 0 ]; then  # no terminal for a TUI: the daemon runs the agents alone
  if [ "$demo" = 1 ]; then "$harness" demo "${passthrough[@]}"
  else "$harness" run --specs "$specs" "${passthrough[@]}"; fi
  echo "no terminal: the agents run in the background; ./start.sh in a terminal opens the TUI"
  exit 0
fi
tui=(.venv/bin/python -P -m tui.main)  # -P: never the working folder's packages
[ "$demo" = 1 ] && tui+=(--demo)
[ -n "$specs" ] && tui+=(--specs "$specs")
for a in "${passthrough[@]}"; do
  case "$a" in --auto-accept|--fresh) tui+=("$a") ;; esac
done
exec "${tui[@]}"
