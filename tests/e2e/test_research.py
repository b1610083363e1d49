"""The demo with a SearxNG stand-in: enrichment searches the web through the harness.

A real agent process on the demo (auto-accept), with ``SEARXNG_URL`` pointing at a
local stand-in. The playbook is the demo's, except that the enrichment of #2 first
calls ``mcp__harness__web_search`` (the demo's own playbook does not: without the
variable the tool is not offered). The stand-in must be queried, its result URL
must be in the enriched issue's "Sources" note (recorded by the harness, not the
model) and the call must be in the trace.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from agent.assets import asset_path
from agent.core.trace.trace import trace_path
from agent.frontend.demo import prepare_demo
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.milestone import FileMilestone
from common.workspace.setup import prepare_workspace
from tests.core.research_stand_ins import NONCE, StandIn, context7, searxng
from tests.e2e.agents import REPO, finish, log_text

pytestmark = pytest.mark.slow

DEMO_PLAYBOOK = asset_path("demo", "playbook.json")
ENRICHED = "enrichment: Add word_count"
SEARCH_STEP = {
    "text": "Let me look up how others count words.",
    "tool_uses": [
        {"name": "mcp__harness__web_search", "input": {"query": "python word count"}},
        {"name": "mcp__harness__library_docs", "input": {"library": "widgets", "topic": "words"}},
    ],
}
KEY = f"{NONCE}-key"


def research_playbook(path: Path) -> Path:
    """The demo's playbook with a web search first in #2's enrichment."""
    playbook: dict[str, Any] = json.loads(DEMO_PLAYBOOK.read_text())
    (scenario,) = [s for s in playbook["scenarios"] if s["name"] == ENRICHED]
    scenario["steps"] = [SEARCH_STEP, *scenario["steps"]]
    path.write_text(json.dumps(playbook))
    return path


def test_enrichment_cites_what_the_research_stand_ins_returned() -> None:
    service, docs = StandIn(searxng), StandIn(context7)
    root = Path(tempfile.mkdtemp(prefix="e2r-", dir="/tmp"))
    playbook = research_playbook(root / "playbook.json")
    spec = prepare_demo(root / "demo", True).model_copy(update={"playbook": playbook})
    files = WorkspaceFiles(prepare_workspace(spec))
    log = (files.logs / "e2e.log").open("ab")
    agent = subprocess.Popen(
        [sys.executable, "-m", "agent.process", "--workspace", str(files.root)],
        cwd=REPO,
        # The agent re-execs itself with the key in a pipe instead (as the daemon hands it).
        env={
            **os.environ,
            "SEARXNG_URL": service.url,
            "CONTEXT7_API_KEY": KEY,
            "CONTEXT7_URL": docs.url,
        },
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert finish(agent, timeout=150) == 0, log_text(files)
    finally:
        if agent.poll() is None:
            agent.kill()
        service.close()
        docs.close()
    (path, _), *more = service.requests
    assert "q=python+word+count" in path and "format=json" in path and not more
    issue = read_model(files.milestone, FileMilestone).issues[1]
    assert "enriched" in issue.labels
    (sources,) = [n.body for n in issue.notes if n.body.startswith("Sources")]
    assert f"- `https://docs.example.org/{NONCE}/0`" in sources.splitlines()
    assert f"- `{docs.url}/acme/widgets`" in sources.splitlines()  # the key reached the agent
    assert [urlsplit(p).path for p, _ in docs.requests] == [
        "/api/v2/libs/search",
        "/api/v2/context",
    ]
    trace = trace_path(files).read_text()
    written = [p.read_text(errors="replace") for p in files.root.rglob("*") if p.is_file()]
    assert KEY not in trace and not any(KEY in text for text in written)
    assert '"mcp__harness__web_search"' in trace and f"docs.example.org/{NONCE}/0" in trace
    others = [i for i in read_model(files.milestone, FileMilestone).issues if i.iid != issue.iid]
    assert not any(n.body.startswith("Sources") for i in others for n in i.notes)
