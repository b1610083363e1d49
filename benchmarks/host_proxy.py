"""What the sandbox's filtering proxy costs a session's HTTP client.

Usage: ``.venv/bin/python -m benchmarks.host_proxy``

A host HTTP server on this machine's outward address serves a small page and a big
file. The same client script (urllib, a new connection per request, as pip and
most clients do) runs twice: on the host, straight to the server, and inside a
sandbox allowed that ``host:port``, where every request goes relay → Unix socket →
proxy (resolve, check, connect) → server. It prints the median and p90 time per
small request and the big file's throughput for each. The figures are in the
README's "Measured" section.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.session_plan import relay_python
from tests.sandbox.test_host_proxy import outward_address

SMALL = b"x" * 100
BIG = b"y" * (32 * 1024 * 1024)
REQUESTS = 300
CLIENT = """
import json, statistics, sys, time, urllib.request
base, count = sys.argv[1], int(sys.argv[2])
opener = urllib.request.build_opener()
times = []
for _ in range(count):
    start = time.perf_counter()
    with opener.open(base + "/small", timeout=10) as answer:
        answer.read()
    times.append(time.perf_counter() - start)
start = time.perf_counter()
with opener.open(base + "/big", timeout=60) as answer:
    size = len(answer.read())
big_s = time.perf_counter() - start
times.sort()
print(json.dumps({"median_ms": 1000 * statistics.median(times),
                  "p90_ms": 1000 * times[int(0.9 * len(times))],
                  "mb_per_s": size / big_s / 1e6}))
"""


def serve(address: str) -> ThreadingHTTPServer:
    class Answer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = BIG if self.path == "/big" else SMALL
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer((address, 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


async def inside(address: str, port: int) -> dict[str, float]:
    bwrap = find_bwrap()
    assert bwrap is not None
    project = Path(tempfile.mkdtemp(prefix="hpb"))
    async with session_sandbox(project, bwrap, {}) as box:
        box.allow_hosts((f"{address}:{port}",))
        argv = box.wrap(
            [str(relay_python()), "-I", "-c", CLIENT, f"http://{address}:{port}", str(REQUESTS)]
        )
        process = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE)
        out, _ = await process.communicate()
    figures: dict[str, float] = json.loads(out)
    return figures


def main() -> int:
    bwrap = find_bwrap()
    reason = probe(bwrap)
    address = outward_address()
    if reason is not None or address is None:
        print(f"cannot measure here: {reason or 'no address but loopback'}")
        return 1
    server = serve(address)
    port = server.server_address[1]
    try:
        direct = json.loads(
            subprocess.run(
                [sys.executable, "-I", "-c", CLIENT, f"http://{address}:{port}", str(REQUESTS)],
                capture_output=True,
                text=True,
                check=True,
                env={"NO_PROXY": "*"},
            ).stdout
        )
        proxied = asyncio.run(inside(address, port))
    finally:
        server.shutdown()
    for name, figures in (("host, direct", direct), ("sandbox, through the proxy", proxied)):
        print(
            f"{name:28} small GET median {figures['median_ms']:.2f} ms, p90 "
            f"{figures['p90_ms']:.2f} ms; 32 MB at {figures['mb_per_s']:.0f} MB/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
