"""A hostile client, as a conftest.py in a sandbox would write it: ``python intruder.py SOCKET``.

It speaks the protocol with the standard library only (no harness import, so it runs
with any interpreter, inside bubblewrap too): reads the greeting, lists the agents and
switches auto-accept on for every one, as the red team's conftest did. Every frame it
receives is printed as a JSON line, then ``eof`` when the daemon closed the connection
(or ``open`` when it was still open after the last answer).

``--out FILE`` writes the lines to FILE (atomically, at the end) instead of stdout.
``--orphan`` forks first and lets the parent exit, so the client that connects has been
reparented (it left its parent's lineage but not its session).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

TIMEOUT_S = 10.0


def intrude(socket_path: str) -> list[str]:
    """Connect, list, switch auto-accept on for everyone; what came back, line by line."""
    seen: list[str] = []
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(TIMEOUT_S)
        sock.connect(socket_path)
        lines = _lines(sock)
        greeting = next(lines, None)
        if greeting is None:
            return ["eof"]
        seen.append(greeting)
        if json.loads(greeting).get("type") != "hello":
            seen.append("eof" if next(lines, None) is None else "open")
            return seen
        listed = _ask(sock, lines, {"type": "list", "id": 1}, seen).get("agents", [])
        names = [agent["name"] for agent in listed] if isinstance(listed, list) else []
        for number, name in enumerate(names, start=2):
            request = {"type": "set_auto_accept", "id": number, "agent": name}
            _ask(sock, lines, {**request, "enabled": True}, seen)
        seen.append("open")
    return seen


def _ask(
    sock: socket.socket, lines: Iterator[str], request: dict[str, object], seen: list[str]
) -> dict[str, object]:
    sock.sendall(json.dumps(request).encode() + b"\n")
    answer = next(lines, None)
    if answer is None:
        seen.append("eof")
        return {}
    seen.append(answer)
    reply: dict[str, object] = json.loads(answer)
    return reply


def _lines(sock: socket.socket) -> Iterator[str]:
    """The frames the daemon sends, one decoded line each, until it closes."""
    buffer = b""
    while True:
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line.decode()
        chunk = sock.recv(65536)
        if not chunk:
            return
        buffer += chunk


def _become_orphan() -> None:
    """Fork; the parent exits at once, the child goes on once it has been reparented."""
    parent = os.getpid()
    if os.fork() != 0:
        os._exit(0)
    deadline = time.monotonic() + TIMEOUT_S
    while os.getppid() == parent and time.monotonic() < deadline:
        time.sleep(0.01)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("socket")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--orphan", action="store_true")
    args = parser.parse_args()
    if args.orphan:
        _become_orphan()
    try:
        seen = intrude(args.socket)
    except OSError as e:
        seen = [f"error: {e}"]
    text = "".join(f"{line}\n" for line in seen)
    if args.out is None:
        sys.stdout.write(text)
    else:
        partial = args.out.with_name(args.out.name + ".partial")
        partial.write_text(text)
        partial.replace(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
