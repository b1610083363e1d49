"""What a webhook costs the agent: checkpoints asked and answered with no webhook, a
live receiver, a closed port, a receiver that answers 500 and one that never answers.

Usage: ``.venv/bin/python -m benchmarks.webhook_cost [--checkpoints 20]``

A real run's desk on a fresh file-mode workspace asks ``--checkpoints`` checkpoints one
after another; each is answered the way the CLI answers (``common.workspace.answer``) as
soon as it is pending. Printed per receiver: the median and worst time from ask to
decision, and the event loop's worst lag while it ran (a ticker every 10 ms). A dead
receiver must cost nothing measurable: the POSTs run in threads, never on the loop.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from agent.core.run.webhook import Webhook
from common.schemas.checkpoint import CheckpointType, MrPhaseTransitionCheckpoint
from common.workspace import answer, checkpoints
from tests.core.checkpoint_samples import mr_transition
from tests.core.runs import make_run


@contextmanager
def http_receiver(status: int) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def closed_port() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    yield f"http://127.0.0.1:{port}/hook"


@contextmanager
def silent_receiver() -> Iterator[str]:
    """Accepts connections (the kernel's backlog) and never answers: each POST times out."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/hook"


async def ask_many(url: str | None, count: int) -> tuple[list[float], float]:
    """Seconds from ask to decision per checkpoint, and the loop's worst lag."""
    run = make_run(Path(tempfile.mkdtemp(prefix="whc")))
    run.desk.webhook = Webhook(url, lambda _line: None)
    lag = 0.0
    ticking = True

    async def ticker() -> None:
        nonlocal lag
        while ticking:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            lag = max(lag, time.perf_counter() - before - 0.01)

    async def build(checkpoint_id: str) -> MrPhaseTransitionCheckpoint:
        built = mr_transition(checkpoint_id)
        assert isinstance(built, MrPhaseTransitionCheckpoint)
        return built

    async def answered_when_pending() -> None:
        for _ in range(10_000):  # polled: the answerer stands in for a person watching
            if checkpoints.pending(run.files) is not None:
                break
            await asyncio.sleep(0.002)
        await asyncio.to_thread(answer.approve, run.files.root, None, None)

    tick = asyncio.create_task(ticker())
    times: list[float] = []
    for _ in range(count):
        started = time.perf_counter()
        answering = asyncio.create_task(answered_when_pending())
        decided = await run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, build)
        await answering
        times.append(time.perf_counter() - started)
        with run.store.editing() as state:  # the next ask is a new checkpoint
            state.dismissed_checkpoints.append(decided.id)
    ticking = False
    await tick
    return times, lag


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", type=int, default=20)
    args = parser.parse_args()
    receivers = {
        "no webhook": lambda: _none(),
        "live receiver": lambda: http_receiver(200),
        "HTTP 500": lambda: http_receiver(500),
        "closed port": closed_port,
        "never answers": silent_receiver,
    }
    for name, make in receivers.items():
        with make() as url:
            times, lag = asyncio.run(ask_many(url, args.checkpoints))
        print(
            f"{name:14s} ask→decision median {statistics.median(times) * 1000:6.1f} ms, "
            f"worst {max(times) * 1000:6.1f} ms; loop lag worst {lag * 1000:5.1f} ms"
        )


@contextmanager
def _none() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    main()
