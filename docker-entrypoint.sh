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
# The TUI can quit (q) and come back (Enter); agents keep running in the daemon.
python -m tui.main --no-daemon-start || true
while true; do
  echo "TUI closed; agents keep running. Enter: reopen the TUI, Ctrl+P Ctrl+Q: detach."
  read -r _ || exit 0
  python -m tui.main --no-daemon-start || true
done
