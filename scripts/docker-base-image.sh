#!/usr/bin/env bash
# Makes this machine ready to build and run the coding-harness image without Docker Hub:
# installs docker.io and debootstrap (apt) when missing, starts dockerd when no engine
# answers, and builds the local base image (Debian bookworm with Python 3.11, venv, pip,
# git) from debootstrap when it is not there yet. Idempotent: a second run takes a second.
#
#   scripts/docker-base-image.sh            the base image, named coding-harness-base:bookworm
#   HARNESS_DOCKER_BASE=NAME scripts/docker-base-image.sh     under another name
#
# Then build on it: HARNESS_DOCKER_BASE=coding-harness-base:bookworm ./start.sh --build
# Installing packages and starting dockerd need root; with an engine and the image already
# there, no root is needed. One line per step on stdout; errors are one line on stderr.
set -euo pipefail

base=${HARNESS_DOCKER_BASE:-coding-harness-base:bookworm}
# The Debian mirror this machine's apt uses (debootstrap's own default when none is found).
apt_mirror() {
  { grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'
    grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}'; } \
    | grep -E '/debian/?$' | head -n 1
}
mirror=${DEBIAN_MIRROR:-$(apt_mirror || true)}
dockerd_log=${DOCKERD_LOG:-/var/log/dockerd.log}

step() { echo "docker-base-image: $*"; }
fail() { echo "error: docker-base-image: $*" >&2; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || fail "$1 needs root (run this script as root once)"; }

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  need_root "installing ${missing[*]}"
  step "installing ${missing[*]} (apt)"
  export DEBIAN_FRONTEND=noninteractive
  log=$(mktemp /tmp/harness-apt.XXXXXX)
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
    >"$log" 2>&1 || fail "apt-get install ${missing[*]} failed (see $log)"
  rm -f "$log"
else
  step "docker.io and debootstrap already installed"
fi

if docker info >/dev/null 2>&1; then
  step "dockerd already running"
else
  need_root "starting dockerd"
  step "starting dockerd (log: $dockerd_log)"
  setsid dockerd >"$dockerd_log" 2>&1 < /dev/null &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || fail "dockerd did not answer within 30 s (see $dockerd_log)"
  step "dockerd answers"
fi

if docker image inspect "$base" >/dev/null 2>&1; then
  step "base image $base already built"
  exit 0
fi
need_root "debootstrap"
root=$(mktemp -d /tmp/harness-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
step "debootstrap bookworm into $root (about a minute)"
debootstrap --variant=minbase \
  --include=python3,python3-venv,python3-pip,git,ca-certificates \
  bookworm "$root" ${mirror:+"$mirror"} >"$root.log" 2>&1 \
  || fail "debootstrap failed (see $root.log)"
rm -f "$root.log"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
step "importing it as $base"
tar -C "$root" -c . | docker import - "$base" >/dev/null
step "base image $base built"
