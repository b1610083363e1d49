"""OTEL_* settings come with each start or resume request and reach that agent's pipe alone.

The daemon's own OTEL_* never reach an agent, and no agent's environment carries any.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.server import DaemonServer
from common.errors import HarnessError
from common.paths import daemon_log_path, daemon_state_path
from common.schemas.protocol import ErrorReply, ReplyAdapter
from common.telemetry import telemetry_from
from tests.procfs import environ_of

from .conftest import MakeSpec
from .helpers import process_exit

HEADER = "authorization=Bearer collector-token-0123456789"


async def received(workspace: Path) -> dict[str, str]:
    """What the fake agent read from its pipe (it writes it first thing)."""
    path = workspace / "received_secrets.json"
    for _ in range(150):
        if path.exists():
            data: dict[str, str] = json.loads(path.read_text())
            return data
        await asyncio.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


def digests(settings: dict[str, str]) -> dict[str, str]:
    return {name: hashlib.sha256(value.encode()).hexdigest() for name, value in settings.items()}


async def test_the_clients_otel_settings_reach_the_agent_through_its_pipe_and_no_environ(
    client: DaemonClient,
    make_spec: MakeSpec,
    harness_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://daemon-own:4318")  # not lent
    telemetry = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
        "OTEL_EXPORTER_OTLP_HEADERS": HEADER,
    }

    info = await client.start(make_spec("idle"), telemetry=telemetry)
    assert info.pid is not None

    assert await received(info.workspace) == digests(telemetry)
    environ = environ_of(info.pid)
    assert re.search(rb"(^|\0)OTEL_", environ) is None
    for path in (daemon_state_path(harness_home), daemon_log_path(harness_home)):
        if path.exists():
            assert "collector-token" not in path.read_text()


async def test_a_resume_takes_the_resuming_clients_settings(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    info = await client.start(make_spec("fail"), telemetry={"OTEL_SERVICE_NAME": "first"})
    assert info.pid is not None
    await process_exit(info.pid)
    (info.workspace / "received_secrets.json").unlink()
    later = {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}

    resumed = await client.resume(info.name, telemetry=later)

    assert resumed.pid != info.pid
    assert await received(info.workspace) == digests(later)


@pytest.mark.parametrize(
    "telemetry",
    [{"PATH": "/tmp"}, {"OTEL_x": "lower case"}, {"OTEL_A": "x" * 3000}],
    ids=["not-otel", "bad-name", "too-long"],
)
async def test_anything_but_otel_settings_is_refused_in_one_line(
    daemon: DaemonServer, make_spec: MakeSpec, telemetry: dict[str, str]
) -> None:
    reader, writer = await asyncio.open_unix_connection(str(daemon.socket_path), limit=2**20)
    await reader.readline()  # the greeting
    spec = make_spec("idle").model_dump(mode="json")
    request = {"id": 1, "type": "start", "spec": spec, "telemetry": telemetry}
    writer.write(json.dumps(request).encode() + b"\n")
    await writer.drain()
    reply = ReplyAdapter.validate_json(await reader.readline())
    writer.close()

    assert isinstance(reply, ErrorReply)
    assert reply.message.startswith("invalid request: telemetry: ")
    assert "/tmp" not in reply.message and "xxxx" not in reply.message
    assert daemon.refused_connections == 0


def test_a_client_with_settings_too_long_to_hand_over_gets_one_line() -> None:
    with pytest.raises(HarnessError, match="OTEL_A: longer than") as refused:
        telemetry_from({"OTEL_A": "x" * 3000, "OTEL_x": "ignored", "PATH": "/bin"})

    assert "xxxx" not in str(refused.value)
    assert telemetry_from({"OTEL_SERVICE_NAME": "s", "OTEL_x": "y", "OTEL_B": ""}) == {
        "OTEL_SERVICE_NAME": "s"
    }
