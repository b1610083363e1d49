"""``harness replay AGENT --session N``: run a recorded session's harness side again.

The recorded model answers come from a server that reads them from the trace
(:mod:`agent.model.trace_playbook`); everything else is today's harness: the
session runner, the system prompt, the tool surface of the session's kind, the
hooks and policy, the harness tools. The session runs in a throwaway clone of the
project at the commit it started from (its ``.venv`` linked in), never in the
project itself, and with a trace of its own; then the two traces are compared
(:mod:`agent.control.trace_compare`).

The recorded answers are the model's: its Bash commands and the programs they run
(the project's tests, which it wrote) run again here. So the replay runs them where its
agent ran them: in the sandbox, with the layout the agent recorded, judged by the same
policy; an agent whose spec turned the sandbox off is replayed without it, as it ran.
Run on the host instead, a test that is inert in the sandbox read the person's home and
``HARNESS_HOME`` (the decision key, the daemon's socket) at a person's ``harness replay``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from agent.control.trace_compare import SessionRecord, differences, session_record
from agent.core.endpoint.model_proxy import ModelProxy, Upstream
from agent.core.log import AgentLog
from agent.core.policy.context import PolicyContext
from agent.core.session import prompts
from agent.core.session.hooks import PolicySetup
from agent.core.session.session import SessionConfig, run_session
from agent.core.session.tools import SessionReports
from agent.core.session.toolset import RESEARCH_TOOLS, SURFACES, ToolSurface, with_research
from agent.core.trace.trace import read_trace, tracing
from agent.model.server import PlaybookServer
from agent.model.trace_playbook import TraceAnswers, rewrite
from agent.sandbox.launcher import session_sandbox
from common.errors import HarnessError, SessionError
from common.project_env import detect
from common.schemas.sandbox_layout import SandboxLayout
from common.schemas.trace import TraceEvent
from common.workspace import git


class ReplayError(HarnessError):
    """The session cannot be replayed (not in the trace, no commit to start from)."""


@dataclass(frozen=True)
class ReplayBox:
    """The sandbox a replay runs in: its agent's, as recorded."""

    bwrap: Path
    layout: SandboxLayout | None
    """The layout the agent recorded at project_verification (``None``: none recorded)."""
    network: bool = False
    """The agent's ``sandbox_network``."""


@dataclass
class ReplayResult:
    """The recorded session, its replay, and what differs."""

    recorded: SessionRecord
    replayed: SessionRecord | None
    differences: list[str]
    error: str | None = None
    """Why the replayed session failed, if it did."""


def clone_at(project: Path, head: str, into: Path) -> Path:
    """A clone of ``project`` at ``head`` in ``into``, with the project's ``.venv`` linked.

    Raises:
        ReplayError: the commit is not in the project (any more).
    """
    target = into / project.name
    # The harness's git runs jailed with only its repository: the source is bound read-only.
    git.git(
        into, "clone", "--quiet", "--no-checkout", str(project), str(target), read_only=(project,)
    )
    if git.git(target, "cat-file", "-t", head, check=False) != "commit":
        raise ReplayError(f"commit {head[:12]} is not in {project} any more")
    git.git(target, "checkout", "--quiet", "--detach", head)
    venv = project / ".venv"
    if venv.exists() and not (target / ".venv").exists():
        (target / ".venv").symlink_to(venv.resolve(), target_is_directory=True)
    return target


def _surface(record: SessionRecord) -> ToolSurface:
    """Today's tool surface of the session's kind (a change shows as a difference), with
    the research tools it was offered (they answer in the replay that nothing is
    configured: a replay calls no outside service)."""
    start = record.start
    if start.kind in SURFACES:
        offered = [name for name in RESEARCH_TOOLS if name in start.harness_tools]
        return with_research(start.kind, SURFACES[start.kind], offered)
    return ToolSurface(tuple(start.builtin_tools), tuple(start.harness_tools))


async def replay_session(
    events: Sequence[TraceEvent],
    number: int,
    log: AgentLog,
    box: ReplayBox | None,
    *,
    keep: bool = False,
) -> ReplayResult:
    """Replay session ``number`` of ``events`` and compare; in ``box`` (``None``: its
    agent ran unsandboxed, and so does the replay).

    Raises:
        ReplayError: no such session, or it has no commit to start from.
    """
    recorded = session_record(events, number)
    if recorded is None:
        sessions = sorted({e.session for e in events if e.session is not None})
        known = ", ".join(map(str, sessions)) or "none"
        raise ReplayError(f"the trace has no session {number} (sessions: {known})")
    start = recorded.start
    if start.head is None:
        raise ReplayError(f"session {number} did not start in a git repository")
    project = Path(start.project_dir)
    scratch = Path(tempfile.mkdtemp(prefix="replay-", dir="/tmp"))
    try:
        copy = clone_at(project, start.head, scratch)
        paths = {start.project_dir.rstrip("/"): str(copy)}
        answers = TraceAnswers(recorded.requests, paths)
        replay_trace = scratch / "replay.jsonl"
        error = await _run(recorded, answers, copy, replay_trace, log, box)
        replayed = session_record(read_trace(replay_trace), 1)
        found = (
            differences(recorded, replayed, answers.missing)
            if replayed is not None
            else ["the replay did not start a session"]
        )
        if start.dirty:
            found.append(
                "note: the recorded work tree had uncommitted changes (replayed from HEAD)"
            )
        return ReplayResult(recorded, replayed, found, error)
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)


async def _run(
    recorded: SessionRecord,
    answers: TraceAnswers,
    copy: Path,
    trace_file: Path,
    log: AgentLog,
    box: ReplayBox | None,
) -> str | None:
    """Run the session against the recorded answers; the session's error, if any."""
    start = recorded.start
    env = detect(copy, os.environ)
    prompt = rewrite(start.prompt, answers.paths)
    reports = SessionReports(expected_issue=start.expected_issue, surface=_surface(recorded))
    with (
        PlaybookServer(answers) as server,
        tracing(trace_file),
    ):
        async with ModelProxy(Upstream(server.url, "none")) as proxy_url:
            model_env = {
                "ANTHROPIC_BASE_URL": proxy_url,
                "ANTHROPIC_API_KEY": "replay",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            }
            config = SessionConfig(
                project_dir=copy,
                model=None,
                env={**env.variables, **model_env},
                local_model=True,
                model_name="the recorded session's answers",
            )
            try:
                if box is None:
                    await run_session(
                        start.label, prompts.render("system"), prompt, config, reports, log
                    )
                    return None
                layout = _with_linked_venv(box.layout, copy)
                async with session_sandbox(
                    copy, box.bwrap, model_env, network=box.network, layout=layout, log=log
                ) as sandbox:
                    policy = PolicyContext.for_project(
                        copy, test_command=env.test_command, sandboxed=True
                    )
                    config = replace(
                        config,
                        env={**env.variables, **sandbox.env},
                        cli_path=sandbox.cli_path,
                        policy=PolicySetup(policy),
                    )
                    await run_session(
                        start.label, prompts.render("system"), prompt, config, reports, log
                    )
            except SessionError as e:
                return str(e)
    return None


def _with_linked_venv(layout: SandboxLayout | None, copy: Path) -> SandboxLayout:
    """The recorded layout, plus the folder the clone's ``.venv`` link leads to (the
    project's own venv, outside the clone): checked against the deny list like every
    folder of a layout when the sandbox is built."""
    base = layout or SandboxLayout()
    venv = copy / ".venv"
    if not venv.is_symlink():
        return base
    target = venv.resolve()
    return base.model_copy(update={"read_only": [*base.read_only, target]})
