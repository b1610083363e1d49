#!/usr/bin/env bash
# Container entrypoint (./start.sh runs the container with --init, as the host user's uid
# and gid, with HOME, /tmp and .env mounted). Takes start.sh's options:
#
#   [--demo] [--specs JSON] [--auto-accept] [--wait] [--fresh]
#                                                      start the daemon (for the container's
#       life), then follow the agents until they end (--wait) or open the TUI, which can
#       quit (q) and come back (Enter) while the agents keep running
#   --tui                                              one more TUI on the running daemon
#                                                      (what ./start.sh --connect runs)
#
# .env is loaded here as native start.sh loads it (scripts/load-env.sh), never passed
# with --env-file: the container's environment (PID 1's) never holds the GitLab token,
# and the harness processes that get it exec themselves again without it
# (common/secrets.py).
set -euo pipefail

# Private per user, in the data volume: the daemon's home (0700) and git's global config
# (start.sh names both, so that `docker exec` finds them too).
private="$HARNESS_DATA/$(id -u)"
export HARNESS_HOME=${HARNESS_HOME:-$private/home}
export GIT_CONFIG_GLOBAL=${GIT_CONFIG_GLOBAL:-$private/gitconfig}
mkdir -p -m 0700 "$(dirname "$HARNESS_HOME")" "$(dirname "$GIT_CONFIG_GLOBAL")"
# git reads the host user's settings (identity, aliases) but any write goes to a file of the
# container's own: the mounted ~/.gitconfig is never written.
# (git expands ~ when it reads the file, so a volume reused with another HOME still works.)
if [ ! -f "$GIT_CONFIG_GLOBAL" ]; then
  printf '[include]\n\tpath = ~/.gitconfig\n\tpath = ~/.config/git/config\n' \
    >"$GIT_CONFIG_GLOBAL"
fi
# .env is read (never run as shell) and never overrides what is already set: HARNESS_HOME
# above stays (a host folder there would be shared with a native daemon).
# shellcheck source=scripts/load-env.sh
. "$(dirname "$0")/scripts/load-env.sh"
if [ -f /run/coding-harness/env ]; then load_env_file /run/coding-harness/env; fi

demo=0; wait=0; tui_only=0; specs=""; auto=(); fresh=()
while [ $# -gt 0 ]; do
  case "$1" in
    --demo) demo=1 ;;
    --wait) wait=1 ;;
    --auto-accept) auto=(--auto-accept) ;;
    --fresh) fresh=(--fresh) ;;
    --specs) specs=$2; shift ;;
    --tui) tui_only=1 ;;
    *) echo "error: docker-entrypoint: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if [ "$tui_only" = 1 ]; then exec python -P -m tui.main --no-daemon-start; fi
harness daemon start >/dev/null  # its errors still reach stderr
if [ "$wait" = 1 ]; then  # no screen: follow the agents until they end, then stop
  if [ "$demo" = 1 ]; then exec harness demo "${auto[@]}" --wait; fi
  [ -n "$specs" ] || { echo "error: --wait needs --demo or --specs" >&2; exit 2; }
  exec harness run --specs "$specs" "${auto[@]}" "${fresh[@]}" --wait
fi
first=(--no-daemon-start "${auto[@]}" "${fresh[@]}")
[ "$demo" = 1 ] && first+=(--demo)
[ -n "$specs" ] && first+=(--specs "$specs")
python -P -m tui.main "${first[@]}" || true
while true; do
  echo "TUI closed; agents keep running. Enter: reopen the TUI, Ctrl+P Ctrl+Q: detach."
  read -r _ || exit 0
  python -P -m tui.main --no-daemon-start || true
done
