"""Real bubblewrap: two sessions at once, each reaching the model endpoint by its own socket.

The probe runs in the very wrapper the SDK would start for each session (its CLI swapped
for the probe): its one request is charged to its own session's window, and the other
session's socket (and the shared one) cannot be reached from it.
"""

from __future__ import annotations

import asyncio
import shlex
import subprocess
from pathlib import Path

import pytest

from agent.core.endpoint.endpoint_meter import EndpointMeter
from agent.core.endpoint.model_proxy import ModelProxy, Upstream
from agent.core.session.entrances import own_entrances
from agent.core.session.session import SessionConfig, endpoint_window
from agent.model import PlaybookServer, load_playbook
from agent.model.playbook import DEMO_PLAYBOOK
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.plan import INSIDE_DIR
from agent.sandbox.session_plan import relay_python
from common.errors import SandboxError

BWRAP = find_bwrap()
pytestmark = pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")

PROBE = """
import http.client, json, os, socket, sys
port, others = int(sys.argv[1]), sys.argv[2:]
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
message = {"model": "m", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
headers = {"content-type": "application/json", "x-api-key": "dummy"}
connection.request("POST", "/v1/messages", body=json.dumps(message), headers=headers)
print(connection.getresponse().status)
print(" ".join(sorted(os.listdir("/run/harness"))))
for path in others:
    try:
        socket.socket(socket.AF_UNIX).connect(path)
        print("reached", path)
    except OSError:
        print("unreachable")
"""


def probe_in(wrapper: Path, project: Path, *args: str) -> list[str]:
    """The wrapper's command with the probe in the CLI's place."""
    line = next(x for x in wrapper.read_text().splitlines() if x.startswith("exec "))
    argv = shlex.split(line)[1:-1]  # without "exec" and the caller's "$@"
    return [*argv[:-1], str(relay_python()), "-I", "-S", str(project / "probe.py"), *args]


async def run_in(wrapper: Path, project: Path, *args: str) -> list[str]:
    """The probe in ``wrapper``'s sandbox; its output lines."""
    argv = probe_in(wrapper, project, *args)
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    return out.decode().splitlines()


async def test_each_session_reaches_the_endpoint_by_its_own_socket_alone(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "probe.py").write_text(PROBE)
    counted: list[str] = []
    meter = EndpointMeter(priced=False, on_refusal=counted.append)
    assert BWRAP is not None
    with PlaybookServer(load_playbook(DEMO_PLAYBOOK)) as server:
        proxy = ModelProxy(Upstream(server.url, "none"), None, meter)
        async with (
            proxy as url,
            session_sandbox(project, BWRAP, {"ANTHROPIC_BASE_URL": url}) as sandbox,
        ):
            port = url.rsplit(":", 1)[1]
            entrances = own_entrances(proxy, sandbox)
            config = SessionConfig(project_dir=project, model=None, meter=meter, entrance=entrances)
            async with (
                endpoint_window(config, "coding #1") as (first, one),
                endpoint_window(config, "coding #2") as (second, two),
            ):
                assert {one.cli_path, two.cli_path}.isdisjoint({sandbox.cli_path, None})
                private = sandbox.cli_path.parent
                outside = sorted(str(path) for path in private.glob("*.sock"))
                # The shared bridge's, the two own ones and the host proxy's (no host allowed).
                assert len(outside) == 4
                assert one.cli_path is not None and two.cli_path is not None
                others = [*outside, str(INSIDE_DIR / "model-2.sock")]
                seen_one = await run_in(one.cli_path, project, port, *others)
                others[-1] = str(INSIDE_DIR / "model-1.sock")
                seen_two = await run_in(two.cli_path, project, port, *others)
            assert not one.cli_path.exists() and not (private / "model-1.sock").exists()
    assert seen_one == ["200", "model-1.sock relay.py", *["unreachable"] * 5]
    assert seen_two == ["200", "model-2.sock relay.py", *["unreachable"] * 5]
    assert first is not None and second is not None
    assert (first.requests, second.requests) == (1, 1) and counted == []


async def test_on_the_hosts_network_a_session_gets_no_entrance_of_its_own(tmp_path: Path) -> None:
    assert BWRAP is not None
    async with session_sandbox(
        tmp_path, BWRAP, {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}, network=True
    ) as sandbox:
        with pytest.raises(SandboxError, match="sandbox_network"):
            sandbox.own_entrance()
