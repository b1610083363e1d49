"""``python -m agent.model --playbook FILE``: run the embedded model as a process.

The first stdout line is exactly ``listening on http://HOST:PORT`` (flushed), so a
parent can start it on port 0 and read the port. A bad playbook or fault list is
one line on stderr and exit status 2. SIGTERM and SIGINT stop it cleanly; with
``--exit-with-stdin`` it also stops when its stdin reaches EOF, so it cannot
outlive a parent that was killed (the parent holds the other end of the pipe).
With ``--record FILE`` (or ``HARNESS_MODEL_RECORD``) it appends the size of every
request it receives to FILE, for benchmarks (:mod:`agent.model.recording`).
With ``--latency SECONDS`` every answer waits that long before it starts, as a real
model's would (the spec's ``model_latency_s``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from agent.model.playbook import PlaybookError, load_playbook
from agent.model.recording import RECORD_ENV, RequestRecorder
from agent.model.server import FAULTS, PlaybookServer, parse_faults, parse_latency

EXIT_USAGE = 2


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m agent.model",
        description="A local Anthropic Messages API server answering from a playbook.",
    )
    parser.add_argument("--playbook", type=Path, required=True, help="the playbook JSON file")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind (0: any free port)")
    parser.add_argument(
        "--faults",
        default="",
        help=f"comma-separated faults for the first requests ({','.join(FAULTS)})",
    )
    parser.add_argument(
        "--record",
        type=Path,
        default=os.environ.get(RECORD_ENV) or None,
        help=f"append one JSONL line per request (sizes by part) to this file (${RECORD_ENV})",
    )
    parser.add_argument(
        "--latency",
        default="0",
        metavar="SECONDS",
        help="wait this long before each answer, as a real model would (0)",
    )
    parser.add_argument(
        "--exit-with-stdin", action="store_true", help="stop when stdin reaches end of file"
    )
    return parser.parse_args(argv)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr, flush=True)
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """Run until SIGTERM, SIGINT or (with ``--exit-with-stdin``) stdin EOF."""
    args = _arguments(argv)
    try:
        playbook = load_playbook(args.playbook)
        faults = parse_faults(args.faults)
        latency_s = parse_latency(args.latency)
    except (PlaybookError, ValueError) as e:
        return _fail(str(e))
    try:
        recorder = RequestRecorder(args.record) if args.record else None
        server = PlaybookServer(
            playbook,
            host=args.host,
            port=args.port,
            faults=faults,
            recorder=recorder,
            latency_s=latency_s,
        )
    except OSError as e:
        return _fail(f"cannot listen on {args.host}:{args.port}: {e.strerror}")

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if args.exit_with_stdin:
        threading.Thread(target=_wait_for_eof, args=(stop,), daemon=True).start()

    server.start()
    print(f"listening on {server.url}", flush=True)
    try:
        stop.wait()  # a signal handler interrupts the wait; no periodic wake-up
    finally:
        server.stop()
    return 0


def _wait_for_eof(stop: threading.Event) -> None:
    while sys.stdin.buffer.read(4096):
        pass
    stop.set()


if __name__ == "__main__":
    sys.exit(main())
