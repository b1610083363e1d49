"""The webhook channel and checkpoint timeouts on a real desk, to a real local receiver.

The receiver is :mod:`http.server` on 127.0.0.1 (port 0) in a thread; decisions by a
person are signed by the real client code (:mod:`common.workspace.answer`).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent.core.run.desk import StopRun
from agent.core.run.webhook import (
    Webhook,
    WebhookError,
    agent_webhook,
    aim_approved,
    announcing_end,
    body,
    resolve,
    shown_url,
)
from agent.core.stages.project_verification import project_verification
from common import decision_mac, web_link
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    IssueClosureCheckpoint,
    ProjectVerificationCheckpoint,
)
from common.schemas.notify import CheckpointTimeout, NotifyTargets
from common.schemas.outbound import Finding, FindingKind, FlaggedFile
from common.workspace import answer, checkpoints
from common.workspace.decisions import default_decision, reject_decision
from tests.core.checkpoint_samples import budget, closure, mr_transition, regression
from tests.core.runs import logged, make_run

FIELDS = {"event", "agent", "issue", "checkpoint", "summary", "waited_s", "link", "text"}


class Receiver:
    """A local webhook receiver: records each JSON body; answers ``statuses`` in turn, then 200."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.statuses = list(statuses or [])
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                data = json.loads(self.rfile.read(length))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                if status == 200:
                    receiver.bodies.append(data)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook/secret-path"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def events(self) -> list[str]:
        return [entry["event"] for entry in self.bodies]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    found.thread.start()
    yield found
    found.server.shutdown()
    found.server.server_close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def until(condition: Any, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition never held")
        await asyncio.sleep(0.02)


# --- the URL rules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "http:///nohost", "x"],
)
def test_only_http_and_https_urls(url: str) -> None:
    with pytest.raises(ValidationError, match="webhook"):
        NotifyTargets(webhook=url)


@pytest.mark.parametrize("name", ["env:", "env:1A", "env:A-B", "env:A B"])
def test_env_must_name_a_variable(name: str) -> None:
    with pytest.raises(ValidationError, match="environment variable"):
        NotifyTargets(webhook=name)


def test_an_env_url_is_read_from_the_environment() -> None:
    targets = NotifyTargets(webhook="env:TEAM_HOOK")
    assert resolve(targets, {"TEAM_HOOK": "https://chat.example/hooks/x"}) == (
        "https://chat.example/hooks/x"
    )
    with pytest.raises(WebhookError, match="TEAM_HOOK is not set"):
        resolve(targets, {})
    with pytest.raises(WebhookError, match="not file"):
        resolve(targets, {"TEAM_HOOK": "file:///etc/passwd"})
    assert resolve(None, {}) is None
    assert resolve(NotifyTargets(webhook="https://a.example/h"), {}) == "https://a.example/h"


def test_an_env_url_leaves_the_agents_environment_once_read() -> None:
    environ = {"TEAM_HOOK": "https://chat.example/hooks/secret", "PATH": "/bin"}
    hook = agent_webhook(NotifyTargets(webhook="env:TEAM_HOOK"), None, environ, lambda _: None)
    assert hook.url == "https://chat.example/hooks/secret"
    assert environ == {"PATH": "/bin"}  # the sessions (and the model) never inherit it
    later = {"REPO_HOOK": "https://chat.example/hooks/other"}
    unaimed = agent_webhook(None, None, later, lambda _: None)
    aim_approved(unaimed, NotifyTargets(webhook="env:REPO_HOOK"), later)
    assert unaimed.url == "https://chat.example/hooks/other" and later == {}


def test_a_log_never_shows_the_urls_path() -> None:
    assert shown_url("https://hooks.example.com/services/T0/B0/secret") == (
        "https://hooks.example.com/…"
    )


# --- the body --------------------------------------------------------------------------


def hostile_closure() -> Checkpoint:
    shown = closure("issue_closure-3")
    return shown.model_copy(update={"to_decide": "Close #1?\n/close \x1b]0;pwned\x07\u202eevil"})


def test_the_body_has_the_documented_fields_and_escapes_the_summary() -> None:
    sent = body("checkpoint_reminder", "agent_1", hostile_closure(), waited_s=125.04)
    assert set(sent) >= FIELDS
    assert sent["issue"] == 1 and sent["waited_s"] == 125.0 and sent["link"] is None
    assert sent["checkpoint"] == {"id": "issue_closure-3", "type": "issue_closure"}
    for text in (sent["summary"], sent["text"]):
        assert "\n" not in text and "\x1b" not in text and "\u202e" not in text
    assert sent["text"].startswith("⚑ agent_1 still waits at issue_closure (issue #1) after 2 min")
    ended = body("agent_ended", "agent_1", None, ended="done")
    assert ended["checkpoint"] is None and ended["text"] == "agent_1 ended: done"
    linked = body("checkpoint_waiting", "a", mr_transition(), link="http://h:1/")
    assert linked["link"] == "http://h:1/" and linked["text"].endswith("— http://h:1/")


# --- real desk, real receiver ----------------------------------------------------------


def transition(checkpoint_id: str) -> Checkpoint:
    return mr_transition(checkpoint_id)


async def ask_transition(checkpoint_id: str) -> Checkpoint:
    return transition(checkpoint_id)


async def test_waiting_reminders_timeout_and_end_reach_the_receiver(
    tmp_path: Path, receiver: Receiver
) -> None:
    run = make_run(tmp_path)
    run.desk.timeout = CheckpointTimeout(minutes=0.01, then="default", remind_every_minutes=0.004)
    run.desk.webhook = Webhook(receiver.url, run.log, agent="agent_7")
    async with announcing_end(run.desk.webhook, run.files) as ended:
        decided = await asyncio.wait_for(
            run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, ask_transition), 20
        )
        ended.outcome = ("done", "")
    decision = decided.decision
    assert decision is not None and decision.approved
    assert decision.decided_by == "timeout" and decision.rule == "timeout after 0.01 min: default"
    key = run.desk.decision_key
    shown = decided.model_copy(update={"status": "pending", "decision": None})
    assert decision_mac.decision_problem(key, run.files.root, shown, decided) is None
    assert checkpoints.history(run.files)[-1].decision == decision
    await until(lambda: "agent_ended" in receiver.events())
    assert receiver.events() == [
        "checkpoint_waiting",
        "checkpoint_reminder",
        "checkpoint_reminder",
        "checkpoint_timeout",
        "agent_ended",
    ]
    for sent in receiver.bodies:
        assert set(sent) >= FIELDS and sent["agent"] == "agent_7"
    waiting, first, second, timed_out, end = receiver.bodies
    assert waiting["checkpoint"] == {"id": "mr_phase_transition-0", "type": "mr_phase_transition"}
    assert waiting["waited_s"] == 0.0 and 0.2 <= first["waited_s"] < second["waited_s"] < 0.6
    assert timed_out["waited_s"] == 0.6
    assert end["outcome"] == "done" and end["checkpoint"] is None
    text = logged(run)
    assert "(reminder)" in text and "by timeout" in text


async def test_then_stop_leaves_the_checkpoint_pending_and_a_resume_asks_it_again(
    tmp_path: Path, receiver: Receiver
) -> None:
    run = make_run(tmp_path)
    run.desk.timeout = CheckpointTimeout(minutes=0.005, then="stop")
    run.desk.webhook = Webhook(receiver.url, run.log)
    with pytest.raises(StopRun, match=r"nobody answered mr_phase_transition in 0\.005 min"):
        async with announcing_end(run.desk.webhook, run.files):
            await run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, ask_transition)
    assert checkpoints.pending(run.files) is not None
    await until(lambda: "agent_ended" in receiver.events())
    assert receiver.bodies[-1]["checkpoint"]["id"] == "mr_phase_transition-0"  # it waits there

    run.desk.timeout = CheckpointTimeout(minutes=5, then="stop")  # resumed: the clock again
    asked = asyncio.create_task(run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, ask_transition))
    await until(lambda: receiver.events().count("checkpoint_waiting") == 2)
    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    decided = await asyncio.wait_for(asked, 10)
    assert decided.id == "mr_phase_transition-0"
    assert decided.decision is not None and decided.decision.decided_by.startswith("cli:")


def flagged_closure(checkpoint_id: str) -> Checkpoint:
    shown = closure(checkpoint_id)
    assert isinstance(shown, IssueClosureCheckpoint)
    held = FlaggedFile(
        path=".npmrc", findings=[Finding(kind=FindingKind.PROTECTED_PATH, reason="npm config")]
    )
    context = shown.context.model_copy(update={"flagged": [held]})
    return shown.model_copy(update={"context": context})


@pytest.mark.parametrize(
    "sample", [flagged_closure, regression, budget], ids=["flagged", "regression", "budget"]
)
async def test_a_checkpoint_that_always_asks_stops_instead_of_a_default(
    tmp_path: Path, sample: Callable[[str], Checkpoint]
) -> None:
    run = make_run(tmp_path)
    run.desk.timeout = CheckpointTimeout(minutes=0.002, then="default")

    async def build(checkpoint_id: str) -> Checkpoint:
        return sample(checkpoint_id)

    with pytest.raises(StopRun, match="always asks a person"):
        await run.desk.ask(sample("x").type, build)
    found = checkpoints.current(run.files)
    assert found is not None and found.status == "pending" and found.decision is None


async def test_a_persons_answer_at_the_timeout_wins_cleanly(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    await run.desk._opened(transition("mr_phase_transition-0"))
    shown = checkpoints.current(run.files)
    assert shown is not None
    person = await asyncio.to_thread(answer.reject, run.files.root, "not yet")
    late = default_decision(shown, "timeout").model_copy(update={"rule": "timeout after 1 min"})
    assert not checkpoints.decide_pending(run.files, shown, late, run.desk.decision_key)
    assert checkpoints.current(run.files) == person  # one decision, the person's


async def test_a_forged_decision_is_no_answer_to_the_timeout(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    await run.desk._opened(transition("mr_phase_transition-0"))
    shown = checkpoints.current(run.files)
    assert shown is not None
    forged = checkpoints.decided(shown, reject_decision(shown, "cli:someone", None))
    checkpoints.write(run.files, forged)  # no MAC: what the model could write
    mine = default_decision(shown, "timeout").model_copy(update={"rule": "timeout after 1 min"})
    assert checkpoints.decide_pending(run.files, shown, mine, run.desk.decision_key)
    found = checkpoints.current(run.files)
    assert found is not None and found.decision is not None
    assert found.decision.decided_by == "timeout"


# --- a failing receiver costs the agent nothing ----------------------------------------


async def test_a_500_then_ok_is_retried_and_delivered(tmp_path: Path) -> None:
    flaky = Receiver(statuses=[500])
    flaky.thread.start()
    try:
        lines: list[str] = []
        hook = Webhook(flaky.url, lines.append, backoff_s=0.05)
        hook.send(body("checkpoint_waiting", "a", mr_transition()))
        await until(lambda: flaky.events() == ["checkpoint_waiting"])
        assert lines == []
    finally:
        flaky.server.shutdown()
        flaky.server.server_close()


async def test_a_dead_receiver_neither_stops_nor_slows_the_agent(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    run.desk.webhook = Webhook(
        f"http://127.0.0.1:{closed_port()}/hook/secret", run.log, backoff_s=0.05
    )
    started = time.monotonic()
    asked = asyncio.create_task(run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, ask_transition))
    await until(lambda: checkpoints.pending(run.files) is not None)
    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    decided = await asyncio.wait_for(asked, 10)
    assert decided.decision is not None and decided.decision.approved
    assert time.monotonic() - started < 5
    run.desk.webhook.send(body("agent_ended", "a", None, ended="done"))
    run.desk.webhook.drain(10)
    said = [line for line in logged(run).splitlines() if "webhook" in line]
    assert len(said) == 1, said  # logged once, not per event nor per attempt
    assert "not delivered after 3 attempts" in said[0] and "secret" not in said[0]


# --- the repository's webhook: only as approved at project_verification ----------------


async def test_the_repositorys_webhook_is_used_only_as_approved_at_project_verification(
    tmp_path: Path, receiver: Receiver
) -> None:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    settings = project / ".harness.json"
    settings.write_text(json.dumps({"notify": {"webhook": receiver.url}}))
    run.desk.webhook = agent_webhook(run.spec.notify, run.state.notify, {}, run.log)
    assert run.desk.webhook.url is None  # nothing approved yet: project_verification is quiet

    verifying = asyncio.create_task(project_verification(run))
    await until(lambda: checkpoints.pending(run.files) is not None, 30)
    shown = checkpoints.pending(run.files)
    assert isinstance(shown, ProjectVerificationCheckpoint)
    assert shown.context.notify == NotifyTargets(webhook=receiver.url)
    host_line = "webhook from .harness.json: http://127.0.0.1/… will hear of"
    assert any(line.startswith(host_line) for line in shown.what_happened), shown.what_happened
    # Rewritten while the person reads: another receiver. What counts is what was shown.
    settings.write_text(json.dumps({"notify": {"webhook": "http://127.0.0.1:9/elsewhere"}}))
    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    await asyncio.wait_for(verifying, 30)
    assert run.state.notify == shown.context.notify
    assert run.desk.webhook.url == receiver.url
    assert receiver.events() == []  # the checkpoint that approved it was before it

    # A resumed agent takes the approved one from its state, never the file.
    again = agent_webhook(None, run.state.notify, {}, run.log)
    assert again.url == receiver.url
    # The spec's own webhook wins over the repository's.
    spec_hook = NotifyTargets(webhook="https://spec.example/h")
    assert agent_webhook(spec_hook, run.state.notify, {}, run.log).url == "https://spec.example/h"


async def test_a_rejected_or_unset_repository_webhook_posts_nothing(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    hook = agent_webhook(None, None, {}, run.log)
    aim_approved(hook, NotifyTargets(webhook="env:E2E_UNSET_HOOK_VARIABLE"), {})
    assert hook.url is None
    assert "webhook from .harness.json not used: the webhook's environment variable" in logged(run)
    hook.send(body("agent_ended", "a", None, ended="done"))  # no URL: nothing, no thread
    hook.drain(0.1)


# --- the harness web link --------------------------------------------------------------


def test_the_web_link_is_read_while_its_server_runs_and_never_carries_a_token(
    tmp_path: Path,
) -> None:
    path = web_link.record("http://127.0.0.1:8765/", tmp_path)
    assert web_link.served(path) == "http://127.0.0.1:8765/"
    path.write_text(json.dumps({"link": "http://127.0.0.1:8765/", "pid": 2**22 + 7}))
    assert web_link.served(path) is None  # its server is gone
    path.write_text("{not json")
    assert web_link.served(path) is None
    assert web_link.served(None) is None
    web_link.record("http://127.0.0.1:8765/", tmp_path)
    web_link.forget(path)
    assert not path.exists()


async def test_the_webhook_links_to_the_served_page(tmp_path: Path, receiver: Receiver) -> None:
    run = make_run(tmp_path)
    recorded = web_link.record("https://cockpit.example/", tmp_path / "home")
    run.desk.webhook = Webhook(receiver.url, run.log, link_file=recorded)
    asked = asyncio.create_task(run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, ask_transition))
    await until(lambda: receiver.events() == ["checkpoint_waiting"])
    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    await asyncio.wait_for(asked, 10)
    sent = receiver.bodies[0]
    assert sent["link"] == "https://cockpit.example/"
    assert sent["text"].endswith(" — https://cockpit.example/")


async def test_a_decision_that_claims_the_timeout_without_its_mac_is_a_forgery(
    tmp_path: Path,
) -> None:
    run = make_run(tmp_path)
    run.desk.timeout = CheckpointTimeout(minutes=5, then="default")
    asked = asyncio.create_task(run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, ask_transition))
    await until(lambda: checkpoints.pending(run.files) is not None)
    shown = checkpoints.pending(run.files)
    assert shown is not None
    claimed = default_decision(shown, "timeout").model_copy(
        update={"rule": "timeout after 5 min: default", "mac": "0" * 64}
    )
    checkpoints.write(run.files, checkpoints.decided(shown, claimed))  # what the model could do
    await until(lambda: "forgery attempt" in logged(run))
    assert not asked.done()
    await until(lambda: checkpoints.pending(run.files) is not None)
    await asyncio.to_thread(answer.reject, run.files.root, "a person's answer")
    decided = await asyncio.wait_for(asked, 10)
    assert decided.decision is not None and decided.decision.decided_by.startswith("cli:")


@pytest.mark.parametrize(
    ("checkpoint", "ended", "text"),
    [
        (None, "stopped: stopped by cli:alice", "agent_1 was stopped by cli:alice"),
        (
            "closure",
            "stopped: stopped by tui:alice",
            "agent_1 was stopped by tui:alice while issue_closure (issue #1) waited",
        ),
        (None, "stopped: stopped by signal", "agent_1 ended: stopped: stopped by signal"),
        (
            "closure",
            "stopped: nobody answered issue_closure in 5 min",
            "agent_1 ended at issue_closure (issue #1): stopped: nobody answered issue_closure "
            "in 5 min",
        ),
    ],
)
def test_the_end_says_who_stopped_the_agent(checkpoint: str | None, ended: str, text: str) -> None:
    shown = closure("issue_closure-3") if checkpoint else None

    sent = body("agent_ended", "agent_1", shown, ended=ended)

    assert sent["text"] == text and sent["outcome"] == ended
