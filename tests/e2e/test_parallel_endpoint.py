"""Two real sessions at once, each with its own entrance to the model endpoint.

The real SDK starts the bundled CLI twice, side by side, each in the sandbox through
the wrapper of its own entrance (:func:`agent.core.session.entrances.own_entrances`), against
the embedded model process answering after a latency. In each session the model runs a
project script that sends requests of its own through ``ANTHROPIC_BASE_URL`` (one in the
first session, three in the second) and looks for the other session's socket. Each
session is charged exactly its own requests, and sees only its own socket; in the
agent's trace, each session's requests, tool calls and policy decisions are its own.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
from pathlib import Path

import pytest

from agent.core.endpoint.endpoint_meter import EndpointMeter
from agent.core.endpoint.model_proxy import ModelProxy, Upstream
from agent.core.log import AgentLog
from agent.core.session.entrances import own_entrances
from agent.core.session.result import SessionResult
from agent.core.session.session import SessionConfig, run_session
from agent.core.session.tools import SessionReports
from agent.core.session.toolset import surface_for
from agent.core.trace.trace import read_trace, tracing
from agent.model.launcher import LocalModel
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from common.schemas.trace import (
    ModelRequest,
    PolicyDecision,
    SessionStart,
    ToolCall,
    TraceEvent,
)
from tests.e2e.agents import harness

BWRAP = find_bwrap()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}"),
]
LATENCY_S = 1.0
"""Long enough that both sessions' requests are surely in flight at some same moment."""
EXTRAS = {"alpha": 1, "beta": 3}

PROBE = r'''"""Sends requests of its own to the model endpoint and looks around (a probe)."""

import json
import os
import socket
import sys
import urllib.request

name, extras = sys.argv[1], int(sys.argv[2])
base = os.environ["ANTHROPIC_BASE_URL"].rstrip("/")
message = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "extra"}]}
statuses = []
for _ in range(extras):
    request = urllib.request.Request(
        base + "/v1/messages", data=json.dumps(message).encode(), method="POST",
        headers={"content-type": "application/json", "x-api-key": "x"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        statuses.append(answer.status)
found = {"statuses": statuses, "inside": sorted(os.listdir("/run/harness"))}
for path in ["/run/harness/model-1.sock", "/run/harness/model-2.sock"]:
    try:
        socket.socket(socket.AF_UNIX).connect(path)
        found[path] = "reached"
    except OSError:
        found[path] = "unreachable"
with open(f"probe-{name}.json", "w") as out:
    json.dump(found, out)
print(json.dumps(found))
'''


def playbook(folder: Path) -> Path:
    """Each session runs the probe once, with its own count of extra requests."""
    scenarios = [
        {
            "name": name,
            "match": f"Session {name}",
            "steps": [
                {
                    "text": "Probing.",
                    "tool_uses": [
                        {
                            "name": "Bash",
                            "input": {
                                "command": f"python3 probe.py {name} {extras}",
                                "description": "probe",
                            },
                        }
                    ],
                }
            ],
            "final_text": "Done.",
        }
        for name, extras in EXTRAS.items()
    ]
    path = folder / "parallel-playbook.json"
    path.write_text(json.dumps({"schema_version": 1, "scenarios": scenarios}))
    return path


async def watch_overlap(meter: EndpointMeter, seen: list[bool]) -> None:
    """Note (once) a moment when two windows have requests in flight at the same time."""
    while not seen:
        if sum(1 for window in meter.windows if window.in_flight > 0) >= 2:
            seen.append(True)
        await asyncio.sleep(0.01)


async def two_sessions(
    project: Path, meter: EndpointMeter, log: AgentLog
) -> tuple[SessionResult, SessionResult, float, list[bool]]:
    """Sessions alpha and beta at once; their figures, the wall time, and whether both
    had requests in flight at one moment."""
    assert BWRAP is not None
    async with LocalModel(playbook(project.parent), latency_s=LATENCY_S) as model_url:
        proxy = ModelProxy(Upstream(model_url, "none"), log, meter)
        async with (
            proxy as proxy_url,
            session_sandbox(project, BWRAP, {"ANTHROPIC_BASE_URL": proxy_url}) as sandbox,
        ):
            config = SessionConfig(
                project_dir=project,
                model=None,
                env={
                    **sandbox.env,
                    "ANTHROPIC_API_KEY": "local-playbook",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                },
                local_model=True,
                cli_path=sandbox.cli_path,
                meter=meter,
                entrance=own_entrances(proxy, sandbox),
            )

            async def session(name: str) -> SessionResult:
                reports = SessionReports(surface=surface_for("mr"))
                prompt = f"Session {name}: run the probe."
                return await run_session(name, "A test session.", prompt, config, reports, log)

            both_in_flight: list[bool] = []
            watch = asyncio.create_task(watch_overlap(meter, both_in_flight))
            started = time.monotonic()
            alpha, beta = await asyncio.gather(session("alpha"), session("beta"))
            wall_s = time.monotonic() - started
            watch.cancel()
    return alpha, beta, wall_s, both_in_flight


def each_traces_its_own(events: list[TraceEvent], results: dict[str, SessionResult]) -> None:
    """The two sessions overlap in the trace, and each one's requests (numbered 1, 2, …
    within it, as many as the endpoint charged it), tool calls and policy decisions carry
    its own number."""
    number = {e.label: e.session for e in events if isinstance(e, SessionStart)}
    assert sorted(number) == sorted(results) and len(set(number.values())) == 2
    kinds = [e.type for e in events]
    assert kinds.index("session_end") > max(i for i, k in enumerate(kinds) if k == "session_start")
    for name, result in results.items():
        mine = [e for e in events if e.session == number[name]]
        indexes = [e.index for e in mine if isinstance(e, ModelRequest)]
        assert sorted(indexes) == list(range(1, result.endpoint_requests + 1)), name
        commands = [str(e.input.get("command")) for e in mine if isinstance(e, ToolCall)]
        assert commands == [f"python3 probe.py {name} {EXTRAS[name]}"], name
        assert [e.tool for e in mine if isinstance(e, PolicyDecision)] == ["Bash"], name
    assert all(e.session is not None for e in events)  # nothing of theirs went unnamed


async def test_two_sessions_at_once_are_each_charged_their_own_requests(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "probe.py").write_text(PROBE)
    counted: list[str] = []
    meter = EndpointMeter(priced=False, on_refusal=counted.append)
    out = io.StringIO()
    log = AgentLog(out)
    trace_file = tmp_path / "trace.jsonl"
    with tracing(trace_file):
        alpha, beta, wall_s, both_in_flight = await two_sessions(project, meter, log)
    found = {name: json.loads((project / f"probe-{name}.json").read_text()) for name in EXTRAS}
    assert found["alpha"]["statuses"] == [200] and found["beta"]["statuses"] == [200] * 3
    sockets = {"/run/harness/model-1.sock", "/run/harness/model-2.sock"}
    mine = {name: f"/run/harness/{found[name]['inside'][0]}" for name in EXTRAS}
    assert set(mine.values()) == sockets  # one each (which one is the scheduler's choice)
    for name in EXTRAS:
        assert found[name]["inside"] == [Path(mine[name]).name, "relay.py"]
        assert found[name][mine[name]] == "reached"
        assert found[name][(sockets - {mine[name]}).pop()] == "unreachable"
    assert both_in_flight, "the two sessions never had requests in flight at the same moment"
    # The same CLI flow in both: the difference is the probe's own requests, each charged
    # to the session that sent them.
    assert beta.endpoint_requests - alpha.endpoint_requests == EXTRAS["beta"] - EXTRAS["alpha"]
    assert alpha.endpoint_requests >= 2 + EXTRAS["alpha"]  # two CLI turns at least
    assert counted == []
    text = out.getvalue()
    assert f"session alpha: the model endpoint forwarded {alpha.endpoint_requests} request" in text
    assert f"session beta: the model endpoint forwarded {beta.endpoint_requests} request" in text
    each_traces_its_own(read_trace(trace_file), {"alpha": alpha, "beta": beta})
    shown = harness("trace", str(tmp_path))  # the folder holds the trace: no daemon asked
    assert shown.returncode == 0, shown.stderr
    assert "[s1] request" in shown.stdout and "[s2] request" in shown.stdout
    assert "total: 2 session(s)" in shown.stdout
    print(
        f"two sessions at once: {wall_s:.1f} s ({alpha.endpoint_requests} + "
        f"{beta.endpoint_requests} requests at {LATENCY_S:g} s each)"
    )
