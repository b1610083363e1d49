#!/usr/bin/env bash
# Container entrypoint: the daemon stays up for the container's life; agents survive
# the front end quitting. Specs passed by start.sh are started once.
set -euo pipefail
if [ -n "${GITLAB_PERSONAL_ACCESS_TOKEN:-}" ]; then
  # git reads the token from this helper at fetch time; it is never written to a repository.
  git config --global credential.helper \
    '!f() { echo username=oauth2; echo "password=${GITLAB_PERSONAL_ACCESS_TOKEN}"; }; f'
fi
harness daemon start
if [ -n "${HARNESS_SPECS:-}" ]; then
  harness run --specs "$HARNESS_SPECS" || true
fi
echo "Agents run in the daemon. Press Enter for the agent list, Ctrl+P Ctrl+Q to detach."
while read -r _; do harness list || true; done
