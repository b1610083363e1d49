"""The model endpoint from inside a real session: the API, only the API, and never free.

The demo runs with the real SDK, the bundled CLI, the sandbox and the embedded model;
the first coding session's playbook writes a project script and runs it (as the policy
allows: ``python tools/api_probe.py``). From inside the sandbox, through the relay and
the bridge, the script asks the model host for another path (``GET /rt/x.sh``) and sends
a large ``/v1/messages`` of its own, as the red team did. The other path is refused;
the extra request is charged to the session (its figures and the run's spend rise
above what the CLI reported); between sessions, at a checkpoint, the endpoint refuses
even ``/v1/messages``. The run still ends DONE.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from agent.core.policy.audit import read_counts
from agent.core.trace.trace import read_trace, trace_path
from agent.frontend.demo import prepare_demo
from agent.model.playbook import DEMO_PLAYBOOK, load_playbook
from agent.model.server import PlaybookServer
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.budget import Budgets
from common.schemas.checkpoint import BudgetReachedCheckpoint
from common.schemas.trace import ModelRequest
from common.workspace import answer
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, log_text, next_pending, start_agent
from tests.e2e.test_budget import PRICED_MODEL, start_priced_agent

pytestmark = pytest.mark.slow
IN_SESSION_BUDGET_USD = 0.25
"""Above the demo's first sessions (about $0.16 at Sonnet's price), below them plus the
probe's three requests of about $0.09 each."""
EXTRA_WORDS = 20_000
"""The extra request's prompt: about 20 000 tokens the CLI never reported."""
PROBE = r'''"""Asks the model endpoint for what the CLI never asks (an API probe)."""

import json
import os
import urllib.error
import urllib.request

BASE = os.environ["ANTHROPIC_BASE_URL"].rstrip("/")


def call(method, path, body=None):
    request = urllib.request.Request(
        BASE + path,
        data=body,
        method=method,
        headers={"content-type": "application/json", "x-api-key": "x",
                 "anthropic-version": "2023-06-01"},
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return [response.status, response.read().decode(errors="replace")[:300]]
    except urllib.error.HTTPError as error:
        return [error.code, error.read().decode(errors="replace")[:300]]


extra = {"model": "claude-sonnet-4-5", "max_tokens": 16,
         "messages": [{"role": "user", "content": "extra " * WORDS}]}
found = {
    "base": BASE,
    "other": call("GET", "/rt/x.sh"),
    "extras": [call("POST", "/v1/messages", json.dumps(extra).encode()) for _ in range(EXTRAS)],
}
with open("tools/api_probe.jsonl", "a") as out:
    out.write(json.dumps(found) + "\n")
print(json.dumps({"other": found["other"][0], "extras": [e[0] for e in found["extras"]]}))
'''.replace("WORDS", str(EXTRA_WORDS))


def probing_playbook(folder: Path, extras: int = 1) -> Path:
    """The demo's playbook, its first coding session opening with the probe (which sends
    ``extras`` requests of its own)."""
    playbook = json.loads(DEMO_PLAYBOOK.read_text())
    coding = next(s for s in playbook["scenarios"] if s["name"] == "coding: Add slugify")
    write = {
        "name": "Write",
        "input": {
            "file_path": "{{project_dir}}/tools/api_probe.py",
            "content": PROBE.replace("EXTRAS", str(extras)),
        },
    }
    run = {"name": "Bash", "input": {"command": "python tools/api_probe.py", "description": "x"}}
    coding["steps"][:0] = [
        {"text": "A probe of the API.", "tool_uses": [write]},
        {"text": "Running it.", "tool_uses": [run]},
    ]
    path = folder / "probing-playbook.json"
    path.write_text(json.dumps(playbook))
    return path


def probe_runs(project: Path) -> list[dict[str, Any]]:
    """What each run of the probe found, in order."""
    lines = (project / "tools" / "api_probe.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def post_between_sessions(base: str) -> tuple[int, str]:
    """From the host, at a checkpoint: the same port the sandbox's relay serves inside."""
    body = json.dumps({"model": "m", "max_tokens": 1, "messages": []}).encode()
    request = urllib.request.Request(f"{base}/v1/messages", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def test_the_endpoint_refuses_other_paths_and_charges_extra_requests_to_the_session() -> None:
    root = Path(tempfile.mkdtemp(prefix="e2p-", dir="/tmp"))
    demo = prepare_demo(root / "demo", auto_accept=False)
    spec = demo.model_copy(update={"playbook": probing_playbook(root)})
    files = WorkspaceFiles(prepare_workspace(spec))
    project = spec.project_dir
    agent = start_agent(files)
    between: tuple[int, str] | None = None
    try:
        while agent.poll() is None:
            try:
                pending = await next_pending(files, agent, timeout=120)
            except AssertionError:
                break
            if between is None and (project / "tools" / "api_probe.jsonl").exists():
                base = probe_runs(project)[0]["base"]
                between = await asyncio.to_thread(post_between_sessions, base)
            answer.approve(files.root, None, None, checkpoint_id=pending.id)
        code = finish(agent)
    finally:
        if agent.poll() is None:
            agent.kill()
    log = (files.logs / "e2e.log").read_text()
    state = read_model(files.state, AgentState)
    assert code == 0 and state.phase is Phase.DONE, log_text(files)

    # From inside: the other path refused, the extra message answered.
    [found] = probe_runs(project)
    assert found["other"][0] == 404, found
    assert "forwards only POST /v1/messages" in found["other"][1]
    assert [extra[0] for extra in found["extras"]] == [200], found
    assert "[endpoint] model endpoint refused a request (404)" in log
    assert "GET /rt/x.sh refused" in log

    # Between sessions, even the Messages API is closed.
    assert between is not None and between[0] == 403, between
    assert "no session of this agent is running" in between[1]
    assert read_counts(files).endpoint_refused >= 2

    # The extra request is charged to the session that made it: above the CLI's figures.
    cli, endpoint = session_figures(log, "coding #")
    assert endpoint["requests"] >= 2
    extra = [
        event
        for event in read_trace(trace_path(files))
        if isinstance(event, ModelRequest) and event.input_tokens >= EXTRA_WORDS // 2
    ]
    assert len(extra) == 1 and extra[0].message_count == 1 and extra[0].status == 200
    assert endpoint["tokens_in"] >= cli["tokens_in"] + EXTRA_WORDS // 2
    spent_in_sessions = sum(
        n for n in map(int, re.findall(r"forwarded \d+ request\(s\), (\d+) in", log))
    )
    assert state.spend.tokens_in >= spent_in_sessions
    assert state.spend.cost_usd == 0.0  # the embedded model


def session_figures(log: str, label_start: str) -> tuple[dict[str, int], dict[str, int]]:
    """The first matching session's figures: the CLI's end line, and the endpoint's."""
    end = re.search(
        rf"── session ({re.escape(label_start)}[^:]*): end — (\d+) turns, (\d+) in", log
    )
    assert end is not None, log[-3000:]
    label, turns, tokens_in = end.group(1), int(end.group(2)), int(end.group(3))
    forwarded_line = rf"── session {re.escape(label)}: the model endpoint forwarded "
    forwarded = re.search(forwarded_line + r"(\d+) request\(s\), (\d+) in", log)
    assert forwarded is not None, log[-3000:]
    return (
        {"requests": turns, "tokens_in": tokens_in},
        {"requests": int(forwarded.group(1)), "tokens_in": int(forwarded.group(2))},
    )


async def test_the_models_own_requests_stop_at_the_cost_budget_within_the_session() -> None:
    """A priced model (the playbook server as a gateway): the probe's extra requests
    spend what the budget has left, the endpoint refuses the rest, the session ends there,
    and the budget_reached checkpoint asks before the next one."""
    root = Path(tempfile.mkdtemp(prefix="e2q-", dir="/tmp"))
    demo = prepare_demo(root / "demo", auto_accept=False)
    spec = demo.model_copy(
        update={"model": PRICED_MODEL, "budgets": Budgets(cost_usd=IN_SESSION_BUDGET_USD)}
    )
    files = WorkspaceFiles(prepare_workspace(spec))
    project = spec.project_dir
    reached: list[BudgetReachedCheckpoint] = []
    with PlaybookServer(load_playbook(probing_playbook(root, extras=3))) as server:
        agent = start_priced_agent(files, server.url)
        try:
            while agent.poll() is None:
                try:
                    pending = await next_pending(files, agent, timeout=120)
                except AssertionError:
                    break
                if isinstance(pending, BudgetReachedCheckpoint):
                    reached.append(pending)
                    answer.approve(files.root, "raise:5", None, checkpoint_id=pending.id)
                    continue
                answer.approve(files.root, None, None, checkpoint_id=pending.id)
            code = finish(agent)
        finally:
            if agent.poll() is None:
                agent.kill()
    log = (files.logs / "e2e.log").read_text()
    state = read_model(files.state, AgentState)
    assert code == 0 and state.phase is Phase.DONE, log_text(files)

    first, *later = probe_runs(project)
    statuses = [extra[0] for extra in first["extras"]]
    assert 400 in statuses and statuses[0] == 200, first
    refused = next(extra[1] for extra in first["extras"] if extra[0] == 400)
    assert "cost budget is spent" in refused
    assert "it spent what the cost budget had left; it ends here" in log
    assert len(reached) == 1, "asked once, before the next session"
    assert reached[0].context.spend.cost_usd >= IN_SESSION_BUDGET_USD
    assert later and [e[0] for e in later[0]["extras"]] == [200, 200, 200], "raised: all pass"
