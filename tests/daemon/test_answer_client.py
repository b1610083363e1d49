"""``harness approve``/``reject`` through the daemon: the light client's frames are exactly
the protocol's models, and the daemon decides as any client would (signed, first answer
wins, a checkpoint nobody saw is not decided), with one line for every refusal."""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.daemon.answer_client import (
    Answer,
    Answered,
    answered,
    check_hello,
    request_line,
    send,
)
from agent.daemon.client import DaemonClient
from agent.daemon.server import DaemonServer
from common import decision_mac
from common.errors import DaemonError, ProtocolError
from common.paths import WorkspaceFiles, socket_path
from common.protocol_wire import PROTOCOL_VERSION
from common.schemas.checkpoint import Checkpoint
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import (
    AnsweredReply,
    AnswerRequest,
    ErrorReply,
    Hello,
    RequestAdapter,
)
from common.untrusted_text import error_line
from common.workspace import checkpoints

from .conftest import REPO_ROOT, MakeSpec
from .helpers import WAIT, event_where, snapshot, start_ready

# --- the frames, without processes ----------------------------------------------------

STARTED = datetime(2026, 11, 27, 3, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "answer",
    [
        Answer(agent="agent_1", approve=True),
        Answer(
            agent="agent_2",
            approve=False,
            choice=None,
            reason="not this one — \u00e9",
            checkpoint_id="issue_closure-3",
            not_after=STARTED,
            client="tui",
        ),
        Answer(agent="a", approve=True, choice="approve=src/x.py;exclude=*", not_after=STARTED),
    ],
)
def test_the_request_line_is_the_protocols_answer_request(answer: Answer) -> None:
    line = request_line(answer)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    request = RequestAdapter.validate_json(line[:-1])
    assert isinstance(request, AnswerRequest)
    assert request.model_dump(exclude={"type", "id"}) == answer._asdict()


def test_the_light_types_name_the_models_fields() -> None:
    """A field added to a model and forgotten here fails this test, not a person's answer."""
    assert set(Answer._fields) == set(AnswerRequest.model_fields) - {"type", "id"}
    assert set(Answered._fields) == set(AnsweredReply.model_fields) - {"type", "id", "final"}


def test_an_answered_reply_reads_as_the_daemon_wrote_it() -> None:
    reply = AnsweredReply(
        id=1,
        agent="agent_1",
        checkpoint_id="mr_review",
        checkpoint_type=CheckpointType.MR_REVIEW,
        approved=False,
    )
    assert answered(json.loads(reply.model_dump_json())) == Answered(
        "agent_1", "mr_review", "mr_review", False
    )


@pytest.mark.parametrize(
    ("frame", "error", "says"),
    [
        ({"type": "error", "id": 1, "message": "no checkpoint is waiting"}, DaemonError, "no "),
        ({"type": "ok", "id": 1}, ProtocolError, "expected the answer to request 1"),
        ({**json.loads(AnsweredReply(
            id=2, agent="a", checkpoint_id="c", checkpoint_type=CheckpointType.MR_REVIEW,
            approved=True).model_dump_json())}, ProtocolError, "expected the answer"),
        (
            {"type": "answered", "id": 1, "agent": "a", "checkpoint_id": "c",
             "checkpoint_type": "mr_review", "approved": "yes"},
            ProtocolError,
            "unreadable answered reply",
        ),
    ],
)  # fmt: skip
def test_a_reply_that_is_not_an_answer_is_one_clear_error(
    frame: dict[str, object], error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        answered(frame)


def test_the_greeting_of_this_version_passes_and_another_is_named() -> None:
    check_hello(json.loads(Hello(daemon_pid=7).model_dump_json()))
    with pytest.raises(ProtocolError, match=f"speaks protocol 1, this client {PROTOCOL_VERSION}"):
        check_hello(json.loads(Hello(daemon_pid=7, protocol_version=1).model_dump_json()))
    refused = ErrorReply(id=None, message="refused: the daemon serves uid 0 only")
    with pytest.raises(DaemonError, match="refused: the daemon serves uid 0"):
        check_hello(json.loads(refused.model_dump_json()))


# --- through a real daemon --------------------------------------------------------------


async def waiting_agent(client: DaemonClient, spec_of: MakeSpec) -> tuple[str, Path, Checkpoint]:
    """A fake agent waiting at its checkpoint: its name, workspace and the checkpoint."""
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)
        agent = await start_ready(client, spec_of("idle"))
        assert agent.pid is not None
        os.kill(agent.pid, signal.SIGUSR1)  # the fake agent writes a pending checkpoint
        await event_where(
            frames, lambda e: e.agent.name == agent.name and e.agent.status is AgentStatus.WAITING
        )
    shown = checkpoints.pending(WorkspaceFiles(agent.workspace))
    assert shown is not None
    return agent.name, agent.workspace, shown


async def test_an_approval_is_signed_by_the_daemon_and_counts(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    name, workspace, shown = await waiting_agent(client, make_spec)

    reply = await asyncio.to_thread(
        send, Answer(agent=name, approve=True, reason="looks right", checkpoint_id=shown.id)
    )

    assert reply == Answered(name, shown.id, shown.type.value, True)
    found = checkpoints.current(WorkspaceFiles(workspace))
    assert found is not None and found.status == "decided" and found.decision is not None
    assert found.decision.approved is True
    assert found.decision.decided_by == f"cli:{getpass.getuser()}"
    assert found.decision.reason == "looks right"
    assert decision_mac.decision_problem(decision_mac.load_key(), workspace, shown, found) is None


async def test_a_rejection_and_then_a_second_answer(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    name, workspace, shown = await waiting_agent(client, make_spec)

    reply = await asyncio.to_thread(send, Answer(agent=name, approve=False, reason="no"))
    assert reply.approved is False
    found = checkpoints.current(WorkspaceFiles(workspace))
    assert found is not None and found.decision is not None and found.decision.approved is False

    with pytest.raises(DaemonError, match=f"checkpoint {shown.id} was already decided by cli:"):
        await asyncio.to_thread(send, Answer(agent=name, approve=True, checkpoint_id=shown.id))
    with pytest.raises(DaemonError, match="no checkpoint is waiting"):
        await asyncio.to_thread(send, Answer(agent=name, approve=True))


async def test_what_the_person_did_not_see_is_not_decided(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    name, workspace, shown = await waiting_agent(client, make_spec)
    before = shown.created_at - timedelta(seconds=1)

    with pytest.raises(DaemonError, match="a new checkpoint appeared"):
        await asyncio.to_thread(send, Answer(agent=name, approve=True, not_after=before))
    with pytest.raises(DaemonError, match="checkpoint other-1 is no longer current"):
        await asyncio.to_thread(send, Answer(agent=name, approve=True, checkpoint_id="other-1"))
    with pytest.raises(DaemonError, match="no agent"):
        await asyncio.to_thread(send, Answer(agent="agent_99", approve=True))
    still = checkpoints.current(WorkspaceFiles(workspace))
    assert still is not None and still.status == "pending"


async def test_a_forged_client_name_is_refused_in_one_line(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    """The decider's name is ``<client>:<user>``: a client label can neither smuggle a user
    in nor pass a person's answer off as one the harness made."""
    name, workspace, _ = await waiting_agent(client, make_spec)

    for label in ("tui:root", "timeout", "auto-accept"):
        with pytest.raises(DaemonError, match=r"invalid request: client: Input should be 'cli'"):
            await asyncio.to_thread(send, Answer(agent=name, approve=True, client=label))
    still = checkpoints.current(WorkspaceFiles(workspace))
    assert still is not None and still.status == "pending"


def test_without_a_daemon_the_command_says_so_in_one_line(harness_home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agent.control", "approve", "agent_1"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 1
    assert done.stderr == (
        f"error: daemon is not running (socket {socket_path(harness_home)}); "
        "start it with `harness daemon start`\n"
    )


async def test_the_commands_print_what_they_decided(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    name, _, shown = await waiting_agent(client, make_spec)

    def harness(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agent.control", *args],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=WAIT,
        )

    rejected = await asyncio.to_thread(harness, "reject", name, "--checkpoint", shown.id)
    assert (rejected.returncode, rejected.stdout) == (
        0,
        f"{name}: {shown.type.value} ({shown.id}) rejected\n",
    )
    again = await asyncio.to_thread(harness, "approve", name, "--checkpoint", shown.id)
    assert again.returncode == 1 and again.stdout == ""
    assert again.stderr.startswith(f"error: checkpoint {shown.id} was already decided by cli:")
    assert again.stderr.count("\n") == 1


async def test_a_refusal_quoting_a_rewritten_checkpoint_stays_one_escaped_line(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    """Without the sandbox the model can rewrite the checkpoint file; the daemon's refusal
    quotes the id it finds there. A newline in it printed a second line of the model's
    choosing under the person's ``harness approve`` (a forged ``[harness] … approved``)."""
    name, workspace, shown = await waiting_agent(client, make_spec)
    files = WorkspaceFiles(workspace)
    forged = json.loads(files.checkpoint.read_text())
    forged["id"] = "x\x1b]0;owned\x07\n[harness] checkpoint cp-1 approved by tui:alice"
    files.checkpoint.write_text(json.dumps(forged))

    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "agent.control", "approve", name, "--checkpoint", shown.id],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )

    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"error: checkpoint {shown.id} is no longer current "
        "(now x\\x1b]0;owned\\x07\\n[harness] checkpoint cp-1 approved by tui:alice)\n"
    )


def test_an_error_line_is_one_escaped_line() -> None:
    assert error_line(DaemonError("a\nb\x1b[2J")) == "error: a\\nb\\x1b[2J"
