"""``harness run`` with a Claude key in the client's shell only, through the real agent and CLI.

A local stand-in plays the real model endpoint. The daemon is started first,
without the key; the key must reach the endpoint (through the agent's proxy) and
no ``/proc/PID/environ`` the model's Bash can read: daemon, agent, Claude CLI,
the Bash command itself. A refused key and a closed port end the run with one
line within 30 s; a spec without credentials is refused before anything starts.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.core.endpoint.model_proxy import DUMMY_KEY
from common.credentials import API_KEY, BASE_URL, CLAUDE_SECRET_VARIABLES
from common.paths import daemon_log_path, daemon_state_path
from tests.core.model_upstream import Upstream
from tests.core.test_model_proxy import closed_port
from tests.e2e.agents import harness
from tests.gitlab.environ_probe import LAUNCHER, SEEN, install

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-ant-api03-e2e-" + "k" * 40
LIMIT_S = 30.0


@pytest.fixture
def daemon_without_key(isolated_home: Path) -> Iterator[Path]:
    """A daemon started from an environment with no Claude credentials (conftest clears them)."""
    assert harness("daemon", "start").returncode == 0
    yield isolated_home
    harness("daemon", "stop")


@pytest.fixture
def specs(tmp_path: Path) -> str:
    """A file-only spec on a new repository, for a Claude model name, auto-accepted."""
    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True)
    (project / "README.md").write_text("# p\n")
    (project / ".gitignore").write_text(".pytest_cache/\n")  # where the environ probe writes
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "README.md", ".gitignore"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], check=True)
    spec = tmp_path / "spec.md"
    spec.write_text("# Add a greeting\n")
    return json.dumps(
        [
            {
                "spec_file": str(spec),
                "project_dir": str(project),
                "target_branch": "main",
                "file_only_mode": True,
                "skip_test_suite": True,
                "model": "claude-test-model",
            }
        ]
    )


def test_a_claude_model_without_credentials_is_refused_before_anything_starts(
    specs: str, isolated_home: Path
) -> None:
    done = harness("run", "--specs", specs)

    assert done.returncode == 1
    assert done.stderr.startswith("error: spec.md: no Claude credentials: set ANTHROPIC_API_KEY")
    assert done.stderr.count("\n") == 1, "one line, no traceback"
    assert "started" not in done.stdout
    assert not (isolated_home / "daemon.sock").exists(), "nothing started"


@pytest.mark.slow
def test_the_clients_key_reaches_the_endpoint_and_no_environ(
    specs: str, daemon_without_key: Path, tmp_path: Path
) -> None:
    # The command policy runs the project's own scripts with paths inside the project.
    project = tmp_path / "project"
    command = install(project)
    seen_file = project / SEEN
    # Unsandboxed: the second wall (no secret in any environ) is measured on its own.
    unsandboxed = json.dumps([{**json.loads(specs)[0], "sandbox": False}])
    with Upstream(bash=command) as endpoint:
        done = harness(
            "run",
            "--specs",
            unsandboxed,
            "--auto-accept",
            "--wait",
            env={API_KEY: KEY, BASE_URL: endpoint.url},
        )
    requests = endpoint.seen
    assert requests, done.stdout + done.stderr
    assert {request.headers.get("x-api-key") for request in requests} == {KEY}
    assert requests[0].body["max_tokens"] == 1, "the probe comes first"
    assert any(request.body.get("tools") for request in requests), "a session ran"

    probed = json.loads(seen_file.read_text())
    commands = [" ".join(process["cmdline"]) for process in probed["processes"]]
    for program in ("agent.daemon", "agent.process", "/claude --output-format", LAUNCHER):
        assert any(program in command for command in commands), (program, commands)
    for process in probed["processes"]:
        assert KEY not in process["environ"], process["cmdline"]
        for name in CLAUDE_SECRET_VARIABLES:
            value = f"{name}={DUMMY_KEY}" if name == API_KEY else f"{name}="
            if f"{name}=" in process["environ"]:
                assert value in process["environ"], process["cmdline"]
    home = daemon_without_key
    logs = [daemon_log_path(home), daemon_state_path(home), *tmp_path.rglob("*.log")]
    for path in logs:
        assert KEY not in path.read_text(errors="replace"), path


@pytest.mark.slow
@pytest.mark.parametrize("endpoint_kind", ["401", "closed port"])
def test_a_refused_key_or_a_closed_port_ends_the_run_in_one_line_within_30_s(
    specs: str, daemon_without_key: Path, endpoint_kind: str
) -> None:
    if endpoint_kind == "401":
        with Upstream(refuse=401) as endpoint:
            started = time.monotonic()
            done = harness(
                "run", "--specs", specs, "--wait", env={API_KEY: KEY, BASE_URL: endpoint.url}
            )
            elapsed = time.monotonic() - started
        expected = (
            f"agent_1: failed — model endpoint {endpoint.url} answered 401: the API key was "
            "refused (invalid x-api-key); set ANTHROPIC_API_KEY"
        )
    else:
        url = f"http://127.0.0.1:{closed_port()}"
        started = time.monotonic()
        done = harness("run", "--specs", specs, "--wait", env={API_KEY: KEY, BASE_URL: url})
        elapsed = time.monotonic() - started
        expected = (
            f"agent_1: failed — model endpoint {url} refused the connection; "
            "check ANTHROPIC_BASE_URL and the network"
        )
    print(f"{endpoint_kind}: ended in {elapsed:.1f} s")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == expected
    assert elapsed < LIMIT_S


@pytest.mark.slow
def test_a_sandboxed_session_reaches_the_endpoint_through_the_proxy(
    specs: str, daemon_without_key: Path, tmp_path: Path
) -> None:
    with Upstream() as endpoint:
        done = harness(
            "run",
            "--specs",
            specs,
            "--auto-accept",
            "--wait",
            env={API_KEY: KEY, BASE_URL: endpoint.url},
        )
    requests = endpoint.seen
    assert any(request.body.get("tools") for request in requests), done.stdout + done.stderr
    assert {request.headers.get("x-api-key") for request in requests} == {KEY}
    logs = "".join(path.read_text() for path in tmp_path.rglob("agent_*.log"))
    assert "sandbox: bubblewrap" in logs
