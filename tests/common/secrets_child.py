"""A process that keeps its secrets as the daemon and the agent do: ``python secrets_child.py``.

It re-execs itself when its environment holds a secret, then prints one JSON
line: its pid, arguments, interpreter flags, the secrets it received, its
``/proc`` environment, and which of its secrets pipes are still open.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from common.secrets import add_secrets_fd_option, collect_secrets, reexec_without_secrets


def is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser()
    add_secrets_fd_option(parser)
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()
    secrets = collect_secrets(args.secrets_fds, os.environ)
    report = {
        "pid": os.getpid(),
        "argv": sys.argv[1:],
        "utf8_mode": sys.flags.utf8_mode,
        "secrets": secrets,
        "environ": Path("/proc/self/environ").read_bytes().decode(errors="replace"),
        "open_secrets_fds": [fd for fd in args.secrets_fds if is_open(fd)],
    }
    print(json.dumps(report))


if __name__ == "__main__":
    reexec_without_secrets()
    main()
