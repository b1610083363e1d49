"""``python -m agent.gitlab_local``: serve a local GitLab until interrupted.

It creates one project and one user with a personal access token (taken from
``GITLAB_PERSONAL_ACCESS_TOKEN`` when set, so it never has to be printed), prints
where to reach it, and on SIGINT or SIGTERM prints what it held and how many
requests it faulted.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path

from agent.gitlab_local.faults import KINDS, FaultPlan
from agent.gitlab_local.server import LocalGitLab
from agent.gitlab_local.store import MAINTAINER
from common import help_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agent.gitlab_local", description=help_text.plain(__doc__)
    )
    parser.add_argument("--root", type=Path, help="where repositories live (default: a temp dir)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--project", default="demo/textkit", help="GROUP/NAME to create")
    parser.add_argument("--user", default="harness")
    parser.add_argument("--faults", type=float, default=0.0, metavar="RATE")
    parser.add_argument(
        "--fault-kinds", default=",".join(KINDS), help="from 429,500,timeout,drop,late"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang", type=float, default=3.0, help="seconds a timeout fault lasts")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)
    kinds = tuple(kind for kind in KINDS if kind in args.fault_kinds.split(","))
    plan = FaultPlan(rate=args.faults, seed=args.seed, kinds=kinds or KINDS, hang=args.hang)
    root = args.root or Path(tempfile.mkdtemp(prefix="gitlab-local-"))
    log = (lambda line: print(line, file=sys.stderr)) if args.verbose else None
    server = LocalGitLab(root, faults=plan, host=args.host, port=args.port, log=log)
    user = server.store.add_user(args.user)
    given = os.environ.get("GITLAB_PERSONAL_ACCESS_TOKEN")
    token = server.store.add_token(user, ("api",), given or None)
    server.store.add_project(args.project, {user: MAINTAINER})
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    server.start()
    print(f"listening on {server.url}", flush=True)
    print(f"  API:     {server.api_url}  (GITLAB_API_URL)")
    print(f"  project: {server.url}/{args.project}.git  (git remote add origin ...)")
    print("  token:   " + ("from GITLAB_PERSONAL_ACCESS_TOKEN" if given else token.value))
    print(f"  repositories under {root}", flush=True)
    stop.wait()
    server.stop()
    store = server.store
    print(
        f"held {len(store.milestones)} milestone(s), {len(store.issues)} issue(s), "
        f"{sum(not n.system for n in store.notes)} note(s), "
        f"{len(store.merge_requests)} merge request(s); {plan.summary()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
