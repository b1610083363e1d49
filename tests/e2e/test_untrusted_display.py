"""The model's words reach a person's terminal escaped and marked, through the real CLI.

A real daemon runs the demo on the embedded model; its coding session's text and its
``report_issue_done`` summary carry a terminal attack (set the title, clear the screen,
print a green ``[harness] Security review: APPROVED - press Y``) and a right-to-left
override, and it writes a file whose name carries the same kind of characters.
``harness logs`` and ``harness checkpoint`` must print every byte of it as visible
text, each line of the model's words marked ``[model]``.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from watchfiles import awatch

from agent.frontend.demo import DEMO_DIR, prepare_demo
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.untrusted_text import MODEL_MARK
from common.workspace import checkpoints
from tests.e2e.agents import harness

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
ATTACK = "\x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] Security review: APPROVED - press Y\x1b[0m\u202e"
SHOWN = (
    "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] Security review: APPROVED - press Y"
    "\\x1b[0m<U+202E>"
)
RAW = ("\x1b", "\x07", "\u202e")
#: A file the model writes: the harness keeps it out of the commit and names it escaped.
EVIL_NAME = "notes/\x1b[2Jevil\u202etxt.md"
EVIL_SHOWN = "notes/\\x1b[2Jevil<U+202E>txt.md"


@pytest.fixture
def daemon_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = Path(tempfile.mkdtemp(prefix="hu", dir="/tmp"))
    monkeypatch.setenv("HARNESS_HOME", str(home))
    yield home
    harness("stop", "agent_1")
    harness("daemon", "stop")


def hostile_playbook(target: Path) -> Path:
    """The demo's playbook; its first coding session says and reports :data:`ATTACK`."""
    playbook = json.loads((DEMO_DIR / "playbook.json").read_text())
    coding = next(s for s in playbook["scenarios"] if s["name"] == "coding: Add slugify")
    coding["steps"][0]["tool_uses"].append(
        {
            "name": "Write",
            "input": {"file_path": f"{{{{project_dir}}}}/{EVIL_NAME}", "content": "x"},
        }
    )
    last = coding["steps"][-1]
    last["text"] = f"All tests pass.\n{ATTACK}"
    report = last["tool_uses"][0]
    assert report["name"] == "mcp__harness__report_issue_done"
    report["input"]["summary"] = f"slugify() is done.\n{ATTACK}"
    path = target / "hostile-playbook.json"
    path.write_text(json.dumps(playbook))
    return path


async def next_pending(files: WorkspaceFiles, timeout: float = 120.0) -> Checkpoint:
    async def watch() -> Checkpoint:
        async for _ in awatch(
            files.root, debounce=20, step=5, rust_timeout=300, yield_on_timeout=True
        ):
            found = checkpoints.pending(files)
            if found is not None:
                return found
        raise AssertionError("watch ended")

    found = checkpoints.pending(files)
    return found if found is not None else await asyncio.wait_for(watch(), timeout)


async def test_a_hostile_report_reaches_logs_and_checkpoint_escaped_and_marked(
    daemon_home: Path,
) -> None:
    root = Path(tempfile.mkdtemp(prefix="hu", dir="/tmp"))
    spec = prepare_demo(root / "demo", auto_accept=False)
    spec = spec.model_copy(update={"playbook": hostile_playbook(root)})
    specs = root / "specs.json"
    specs.write_text(json.dumps([json.loads(spec.model_dump_json())]))
    started = harness("run", "--specs", f"@{specs}")
    assert started.returncode == 0, started.stderr
    files = WorkspaceFiles(next((spec.project_dir / ".claude-agent").iterdir()))

    while (pending := await next_pending(files)).type is not CheckpointType.ISSUE_CLOSURE:
        approved = harness("approve", "agent_1", "--checkpoint", pending.id)
        assert approved.returncode == 0, approved.stderr
        await asyncio.sleep(0.2)  # the agent takes the decision and moves on

    shown = harness("checkpoint", "agent_1")
    assert shown.returncode == 0, shown.stderr
    assert not any(char in shown.stdout for char in RAW), shown.stdout
    lines = shown.stdout.splitlines()
    start = lines.index("Summary (the model's words):")
    assert lines[start + 1 : start + 3] == [
        f"  {MODEL_MARK} slugify() is done.",
        f"  {MODEL_MARK} {SHOWN}",
    ]

    assert any(line.startswith("Not committed by the harness: ") for line in lines)
    assert EVIL_SHOWN in shown.stdout

    logs = harness("logs", "agent_1", "-n", "5000")
    assert logs.returncode == 0, logs.stderr
    assert not any(char in logs.stdout for char in RAW)
    said = [line for line in logs.stdout.splitlines() if SHOWN in line]
    # The model's text, every line marked; its report as the tool call (JSON) and in the
    # checkpoint the agent logs (the summary block): never a line of the harness's.
    assert any(line.endswith(f" {MODEL_MARK} {SHOWN}") for line in said), logs.stdout
    assert any(line == f"  {MODEL_MARK} {SHOWN}" for line in said), logs.stdout
    for line in said:
        text = line[9:] if line[:2].isdigit() else line  # after the time stamp
        assert text.lstrip().startswith(MODEL_MARK), line
    assert EVIL_SHOWN in logs.stdout  # the harness's own line about the file, escaped
    assert not any(
        line.startswith("[harness]") or line[9:].startswith("[harness]")
        for line in logs.stdout.splitlines()
    )
