#!/usr/bin/env bash
# Builds the coding-harness image, reaching the package index the way this machine does.
#
#   scripts/docker-build.sh [IMAGE]     IMAGE defaults to $HARNESS_DOCKER_IMAGE or coding-harness
#
# HARNESS_DOCKER_BASE names the base image (default python:3.11-slim; on a machine without
# Docker Hub, the one scripts/docker-base-image.sh builds). PIP_INDEX_URL and the http(s)
# entries of PIP_EXTRA_INDEX_URL are passed on as build arguments; the CA bundle pip uses
# here (PIP_CERT, else pip's global.cert) is put in the build context for the build's first
# stage only, and removed afterwards: the image itself holds neither (see Dockerfile).
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-${HARNESS_DOCKER_IMAGE:-coding-harness}}

args=(-t "$image")
[ -n "${HARNESS_DOCKER_BASE:-}" ] && args+=(--build-arg "BASE_IMAGE=$HARNESS_DOCKER_BASE")
[ -n "${PIP_INDEX_URL:-}" ] && args+=(--build-arg "PIP_INDEX_URL=$PIP_INDEX_URL")
extra=()
for url in ${PIP_EXTRA_INDEX_URL:-}; do  # file:// indexes of the host mean nothing inside
  case "$url" in http://*|https://*) extra+=("$url") ;; esac
done
[ ${#extra[@]} -gt 0 ] && args+=(--build-arg "PIP_EXTRA_INDEX_URL=${extra[*]}")

cert=${PIP_CERT:-}
if [ -z "$cert" ] && command -v python3 >/dev/null; then
  cert=$(python3 -m pip config get global.cert 2>/dev/null || true)
fi
if [ -n "$cert" ] && [ -f "$cert" ]; then
  trap 'rm -f .build-ca.pem' EXIT
  cp "$cert" .build-ca.pem
fi
docker build "${args[@]}" .
