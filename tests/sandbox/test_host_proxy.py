"""The filtering proxy, in process and as the sandbox's one way out.

Two HTTP servers on the host, each answering with its own nonce; the allowlist names
one of them by ``host:PORT``. In process, through the proxy's socket, by
``localhost``. From inside a real sandbox (a test gate's, which has the proxy's forward
and variables) by the host's own non-loopback address, since ``NO_PROXY`` keeps
``localhost`` inside the sandbox: the listed pair is reached, by an absolute-URI GET
and through a CONNECT tunnel; the other port, and either one without the proxy, are not.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agent.core.policy.audit import read_counts, record_host_refusal, status_line
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.host_proxy import REFUSED_PREFIX, HostProxy
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.session_plan import relay_python
from common.paths import WorkspaceFiles

BWRAP = find_bwrap()


@dataclass
class Site:
    port: int
    nonce: str


def _serve(nonce: str, address: str = "127.0.0.1") -> tuple[ThreadingHTTPServer, Site]:
    class Answer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = f"{nonce} {self.path}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer((address, 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, Site(server.server_address[1], nonce)


def outward_address() -> str | None:
    """An address of this machine that is not loopback (``None``: it has none)."""
    probe_socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe_socket.connect(("198.51.100.1", 9))  # no packet is sent: it picks a route
        address = str(probe_socket.getsockname()[0])
    except OSError:
        return None
    finally:
        probe_socket.close()
    return None if address.startswith("127.") else address


@pytest.fixture
def address(request: pytest.FixtureRequest) -> str:
    """Where the servers listen: loopback, or the outward address for the sandbox tests."""
    if "sandbox" not in request.node.name:
        return "127.0.0.1"
    found = outward_address()
    if found is None:
        pytest.skip("this machine has no address but loopback")
    return found


@pytest.fixture
def sites(tmp_path: Path, address: str) -> Iterator[tuple[Site, Site]]:
    """Two servers: ``listed`` and ``other``, each saying its own nonce."""
    first, listed = _serve(f"listed-{tmp_path.name}", address)
    second, other = _serve(f"other-{tmp_path.name}", address)
    try:
        yield listed, other
    finally:
        for server in (first, second):
            server.shutdown()
            server.server_close()


@pytest.fixture
async def proxy() -> AsyncIterator[tuple[HostProxy, list[str]]]:
    folder = Path(tempfile.mkdtemp(prefix="h1p"))  # short: a Unix socket's path
    lines: list[str] = []
    try:
        told = lambda: lines.append("(counted)")  # noqa: E731
        async with HostProxy(folder / "hosts.sock", lines.append, told) as running:
            yield running, lines
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def exchange(proxy: HostProxy, *messages: bytes) -> bytes:
    """Send each message in turn on one connection to the proxy; all it answered."""
    reader, writer = await asyncio.open_unix_connection(str(proxy.path))
    answer = b""
    for message in messages:
        writer.write(message)
        await writer.drain()
        answer += await asyncio.wait_for(reader.read(65536), 10)
    if writer.can_write_eof():
        writer.write_eof()
    answer += await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return answer


async def test_a_listed_pair_is_carried_by_connect_and_by_an_absolute_get(
    sites: tuple[Site, Site], proxy: tuple[HostProxy, list[str]]
) -> None:
    listed, _ = sites
    running, lines = proxy
    running.allow([f"localhost:{listed.port}"])
    tunnel = await exchange(
        running,
        f"CONNECT localhost:{listed.port} HTTP/1.1\r\n\r\n".encode(),
        b"GET /via-tunnel HTTP/1.0\r\n\r\n",
    )
    assert tunnel.startswith(b"HTTP/1.1 200 Connection established\r\n\r\n")
    assert f"{listed.nonce} /via-tunnel".encode() in tunnel
    plain = await exchange(
        running,
        f"GET http://localhost:{listed.port}/plain?x=1 HTTP/1.0\r\n"
        "Proxy-Connection: keep-alive\r\n\r\n".encode(),
    )
    assert f"{listed.nonce} /plain?x=1".encode() in plain
    assert (running.carried, running.refused, lines) == (2, 0, [])


async def test_everything_else_gets_403_one_line_and_a_logged_counted_refusal(
    sites: tuple[Site, Site], proxy: tuple[HostProxy, list[str]]
) -> None:
    listed, other = sites
    running, lines = proxy
    running.allow([f"localhost:{listed.port}"])
    refused = [
        f"CONNECT localhost:{other.port} HTTP/1.1\r\n\r\n",
        f"CONNECT 127.0.0.1:{listed.port} HTTP/1.1\r\n\r\n",
        f"GET http://localhost:{other.port}/ HTTP/1.1\r\n\r\n",
    ]
    for request in refused:
        answer = await exchange(running, request.encode())
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 403 Forbidden")
        assert body.decode().count("\n") == 1 and "not in the sandbox's allowlist" in body.decode()
        assert other.nonce.encode() not in answer
    assert running.refused == 3 and running.carried == 0
    assert lines == [
        f"{REFUSED_PREFIX} CONNECT localhost:{other.port}: not in the sandbox's allowlist "
        "(sandbox_hosts)",
        "(counted)",
        f"{REFUSED_PREFIX} CONNECT 127.0.0.1:{listed.port}: not in the sandbox's allowlist "
        "(sandbox_hosts)",
        "(counted)",
        f"{REFUSED_PREFIX} GET localhost:{other.port}: not in the sandbox's allowlist "
        "(sandbox_hosts)",
        "(counted)",
    ]


async def test_a_listed_name_that_resolves_to_this_machine_is_refused(
    sites: tuple[Site, Site], proxy: tuple[HostProxy, list[str]]
) -> None:
    listed, _ = sites
    name = socket.gethostname().lower()
    addresses = {info[4][0] for info in socket.getaddrinfo(name, listed.port)}
    if name == "localhost" or not addresses <= {"127.0.0.1", "127.0.1.1", "::1"}:
        pytest.skip(f"{name} does not resolve to loopback alone here ({addresses})")
    running, lines = proxy
    running.allow([f"{name}:{listed.port}"])
    answer = await exchange(running, f"CONNECT {name}:{listed.port} HTTP/1.1\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 403 Forbidden")
    assert listed.nonce.encode() not in answer
    assert "resolves to 127." in lines[0] and lines[1] == "(counted)"


async def test_a_malformed_request_is_a_400_not_a_refusal(
    proxy: tuple[HostProxy, list[str]],
) -> None:
    running, lines = proxy
    answer = await exchange(running, b"GET / HTTP/1.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 Bad Request")
    assert running.refused == 0
    assert lines == ["[sandbox] proxy could not carry /: not an absolute http URL"]


PROBE = """
import http.client, json, os, sys, urllib.request
host, listed, other = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = {"proxy": os.environ.get("HTTPS_PROXY")}
def get(key, url, opener):
    try:
        with opener.open(url, timeout=10) as answer:
            out[key] = answer.read().decode()
    except urllib.error.HTTPError as e:
        out[key] = f"HTTP {e.code}: {e.read().decode().strip()}"
    except Exception as e:
        out[key] = f"error: {type(e).__name__}"
proxied = urllib.request.build_opener()
direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
get("listed", f"http://{host}:{listed}/get", proxied)
get("other", f"http://{host}:{other}/get", proxied)
get("listed_direct", f"http://{host}:{listed}/get", direct)
get("loopback_direct", f"http://127.0.0.1:{listed}/get", direct)
port = int((os.environ.get("HTTPS_PROXY") or "http://127.0.0.1:1").rsplit(":", 1)[1])
for key, target in (("tunnel_listed", listed), ("tunnel_other", other)):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.set_tunnel(host, target)
    try:
        connection.request("GET", "/tunnel")
        out[key] = connection.getresponse().read().decode()
    except OSError as e:
        out[key] = f"error: {e}"
print(json.dumps(out))
"""


async def run_probe(
    tmp_path: Path, hosts: tuple[str, ...], address: str, listed: Site, other: Site
) -> dict[str, str]:
    """The probe's findings from inside a test gate's sandbox allowed ``hosts``."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    assert BWRAP is not None
    async with session_sandbox(project, BWRAP, {}) as box:
        box.allow_hosts(hosts)
        command = [str(relay_python()), "-I", "-c", PROBE, address]
        argv = box.wrap([*command, str(listed.port), str(other.port)])
        process = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, err.decode()
        findings: dict[str, str] = json.loads(out)
        findings["refused"] = str(box.hosts.refused if box.hosts else None)
        return findings


@pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
async def test_from_the_sandbox_only_the_listed_pair_is_reachable(
    tmp_path: Path, address: str, sites: tuple[Site, Site]
) -> None:
    listed, other = sites
    found = await run_probe(tmp_path, (f"{address}:{listed.port}",), address, listed, other)
    assert found["proxy"] == "http://127.0.0.1:3128"
    assert found["listed"] == f"{listed.nonce} /get"
    assert found["tunnel_listed"] == f"{listed.nonce} /tunnel"
    assert found["other"] == (
        f"HTTP 403: sandbox proxy: GET {address}:{other.port}: not in the sandbox's "
        "allowlist (sandbox_hosts)"
    )
    assert other.nonce not in json.dumps(found)
    assert found["tunnel_other"].startswith("error: Tunnel connection failed: 403")
    # No way around the proxy: the sandbox's loopback is its own.
    assert found["listed_direct"] == "error: URLError"
    assert found["loopback_direct"] == "error: URLError"
    assert found["refused"] == "2"


@pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
async def test_a_sandbox_allowed_no_host_has_no_proxy_and_no_way_out(
    tmp_path: Path, address: str, sites: tuple[Site, Site]
) -> None:
    listed, other = sites
    found = await run_probe(tmp_path, (), address, listed, other)
    assert found["proxy"] is None
    assert listed.nonce not in json.dumps(found) and other.nonce not in json.dumps(found)
    assert found["listed"] == "error: URLError"


@pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
async def test_sessions_own_entrances_and_gates_keep_the_proxy_and_only_gates_lose_the_model(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert BWRAP is not None
    model = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:3128"}  # the proxy steps past its port
    async with session_sandbox(project, BWRAP, model) as box:
        assert box.hosts_forward is not None and box.hosts_forward.port == 3129
        box.allow_hosts(("pypi.org:443",))
        wrapper = box.cli_path.read_text()
        assert "--forward 3128=" in wrapper and "--forward 3129=" in wrapper
        assert "HTTPS_PROXY http://127.0.0.1:3129" in wrapper
        own = box.own_entrance()
        assert [f.port for f in own.plan.forwards] == [3128, 3129]
        assert own.plan.env["HTTPS_PROXY"] == "http://127.0.0.1:3129"
        gate = " ".join(box.wrap(["true"]))
        assert "--forward 3129=" in gate and "--forward 3128=" not in gate
        box.allow_hosts(())
        assert "HTTPS_PROXY" not in box.cli_path.read_text()
        assert "--forward 3129=" not in " ".join(box.wrap(["true"]))


def test_a_refusal_is_counted_in_the_workspace_and_shown_by_status(tmp_path: Path) -> None:
    files = WorkspaceFiles(tmp_path / "ws")
    files.root.mkdir()
    record_host_refusal(files)
    record_host_refusal(files)
    assert read_counts(files).host_refused == 2
    assert status_line(read_counts(files)).endswith(", 2 sandbox connections refused")


async def test_connections_past_the_cap_get_503_until_one_closes(
    sites: tuple[Site, Site],
) -> None:
    """A session that opens connection after connection cannot spend the agent's file
    descriptors: past ``max_open`` it gets one 503 line each, logged once per burst."""
    listed, _ = sites
    folder = Path(tempfile.mkdtemp(prefix="h1c"))
    lines: list[str] = []
    try:
        async with HostProxy(folder / "hosts.sock", lines.append, max_open=2) as running:
            running.allow([f"localhost:{listed.port}"])
            tunnels = []
            for _ in range(2):
                reader, writer = await asyncio.open_unix_connection(str(running.path))
                writer.write(f"CONNECT localhost:{listed.port} HTTP/1.1\r\n\r\n".encode())
                assert (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).startswith(
                    b"HTTP/1.1 200"
                )
                tunnels.append((reader, writer))
            turned = [await exchange(running, b"") for _ in range(3)]
            assert all(t.startswith(b"HTTP/1.1 503 Service Unavailable\r\n") for t in turned)
            assert turned[0].endswith(
                b"\r\n\r\nsandbox proxy: 2 connections are open already; close one first\n"
            )
            assert running.turned_away == 3
            assert [line for line in lines if "connections are open" in line] == [
                "[sandbox] proxy could not carry a connection: "
                "2 connections are open already; close one first"
            ]
            _, first = tunnels.pop(0)
            first.close()
            await first.wait_closed()
            for _ in range(100):  # the proxy sees the close on its next turn
                if running.open_connections < 2:
                    break
                await asyncio.sleep(0.02)
            again = await exchange(
                running,
                f"GET http://localhost:{listed.port}/again HTTP/1.0\r\n\r\n".encode(),
            )
            assert f"{listed.nonce} /again".encode() in again
            for _, writer in tunnels:
                writer.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert running.refused == 0  # the cap is not the allowlist's refusal
