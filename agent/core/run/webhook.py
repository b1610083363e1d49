"""The webhook channel: a JSON POST per waiting checkpoint, reminder, timeout and end.

Off the event loop and out of the agent's way: each POST runs in a daemon thread with
a short timeout, is retried with backoff, and a failure is logged once (until a POST
succeeds again), never raised. A dead receiver costs the run a thread, not a second.
The body carries only what a person's chat may show: the checkpoint's one-line
summary is escaped (its text may quote the model), the URL's secrets stay out of logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from common import web_link
from common.errors import HarnessError
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Checkpoint
from common.schemas.notify import ENV_PREFIX, NotifyTargets, webhook_problem
from common.schemas.quality import SETTINGS_FILE
from common.untrusted_text import printable_line
from common.workspace import checkpoints
from common.workspace.checkpoint_issue import issue_of
from common.workspace.stop_note import BY_SIGNAL, stop_reason

Event = Literal["checkpoint_waiting", "checkpoint_reminder", "checkpoint_timeout", "agent_ended"]

#: Seconds one POST may take; attempts, and the pause before the second (doubled after).
POST_TIMEOUT_S = 3.0
ATTEMPTS = 3
BACKOFF_S = 0.5
#: The longest a summary is sent: a chat line, not the checkpoint.
SUMMARY_CHARS = 200


class WebhookError(HarnessError):
    """The webhook setting cannot be used (one line)."""


def resolve(targets: NotifyTargets | None, environ: Mapping[str, str]) -> str | None:
    """The webhook URL to POST to, ``env:NAME`` read from ``environ``; ``None``: no webhook.

    Raises:
        WebhookError: the variable is unset, or its value is not an http(s) URL.
    """
    raw = targets.webhook if targets is not None else None
    if raw is None or not raw.startswith(ENV_PREFIX):
        return raw
    name = raw.removeprefix(ENV_PREFIX)
    url = environ.get(name, "").strip()
    if not url:
        raise WebhookError(f"the webhook's environment variable {name} is not set")
    problem = webhook_problem(url)
    if problem is not None:
        raise WebhookError(f"{name}: {problem}")
    return url


def shown_url(url: str) -> str:
    """``https://hooks.example.com/…``: the URL as a log may show it (its path is often the
    secret of an incoming webhook)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}/…"


def shown_target(raw: str) -> str:
    """A webhook setting as a person approves it: ``env:NAME`` as is, a URL as its host."""
    return raw if raw.startswith(ENV_PREFIX) else shown_url(raw)


def summary(checkpoint: Checkpoint) -> str:
    """The checkpoint's question on one line, escaped and cut short."""
    line = printable_line(checkpoint.to_decide)
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"


def _waited_text(waited_s: float) -> str:
    minutes = waited_s / 60
    return f"{waited_s:.0f} s" if minutes < 1 else f"{minutes:.0f} min"


def body(
    event: Event,
    agent: str,
    checkpoint: Checkpoint | None,
    *,
    waited_s: float | None = None,
    link: str | None = None,
    ended: str | None = None,
) -> dict[str, Any]:
    """The JSON posted for ``event``; ``text`` is the line a chat tool shows as it is.

    ``ended``: the agent's outcome (``agent_ended``).
    """
    issue = issue_of(checkpoint) if checkpoint is not None else None
    line = summary(checkpoint) if checkpoint is not None else None
    name = printable_line(agent)
    stopped_by = _person(ended)
    if checkpoint is None:
        text = f"{name} was {stopped_by}" if stopped_by else f"{name} ended: {_told(ended)}"
    else:
        about = f" (issue #{issue})" if issue is not None else ""
        kind = checkpoint.type.value
        waited = _waited_text(waited_s or 0.0)
        text = {
            "checkpoint_waiting": f"⚑ {name} waits at {kind}{about}: {line}",
            "checkpoint_reminder": f"⚑ {name} still waits at {kind}{about} after {waited}: {line}",
            "checkpoint_timeout": f"⏱ {name}: nobody answered {kind}{about} in {waited}",
            "agent_ended": (
                f"{name} was {stopped_by} while {kind}{about} waited"
                if stopped_by
                else f"{name} ended at {kind}{about}: {_told(ended)}"
            ),
        }[event]
    if link is not None:
        text += f" — {link}"
    return {
        "event": event,
        "agent": agent,
        "issue": issue,
        "checkpoint": (
            {"id": checkpoint.id, "type": checkpoint.type.value} if checkpoint is not None else None
        ),
        "summary": line,
        "waited_s": round(waited_s, 1) if waited_s is not None else None,
        "outcome": ended,
        "link": link,
        "text": text,
    }


def _told(ended: str | None) -> str:
    return printable_line(ended or "?")


def _person(ended: str | None) -> str | None:
    """``stopped by cli:alice`` when a person's stop ended the agent (the daemon told it
    who: :mod:`common.workspace.stop_note`), else ``None``."""
    told = _told(ended)
    head = "stopped: stopped by "
    if not told.startswith(head) or told == f"stopped: {BY_SIGNAL}":
        return None
    return told.removeprefix("stopped: ")


class Webhook:
    """POSTs bodies to one URL, each in its own thread; never raises, never blocks.

    Without a URL it posts nothing: the repository's webhook is aimed only once a
    person approved it at project_verification (:meth:`aim`).
    """

    def __init__(
        self,
        url: str | None,
        log: Callable[[str], None],
        *,
        timeout_s: float = POST_TIMEOUT_S,
        attempts: int = ATTEMPTS,
        backoff_s: float = BACKOFF_S,
        link_file: Path | None = None,
        agent: str = "",
    ) -> None:
        """``link_file``: where ``harness web`` records its link (named at the agent's
        start, while ``HARNESS_HOME`` is in its environment; ``None``: no link);
        ``agent``: the name the messages give the agent."""
        self.url = url
        self.agent = agent
        self.link_file = link_file
        self._log = log
        self._timeout_s = timeout_s
        self._attempts = attempts
        self._backoff_s = backoff_s
        self._threads: list[threading.Thread] = []
        self._failing = False
        self._lock = threading.Lock()

    def link(self) -> str | None:
        """The ``harness web`` page while one is served (without its token), else ``None``."""
        return web_link.served(self.link_file)

    def say(self, line: str) -> None:
        """One line in the agent's log."""
        self._log(line)

    def aim(self, url: str) -> None:
        """Post to ``url`` from now on (a webhook approved while the agent runs)."""
        self.url = url
        self._log(f"webhook: {shown_url(url)} hears of waiting checkpoints, reminders, the end")

    def send(self, payload: dict[str, Any]) -> None:
        """POST ``payload`` in the background (nothing without a URL)."""
        url = self.url
        if url is None:
            return
        thread = threading.Thread(
            target=self._post, args=(url, payload), name="webhook", daemon=True
        )
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()]
            self._threads.append(thread)
        thread.start()

    def drain(self, within_s: float) -> None:
        """Wait at most ``within_s`` in all for the POSTs under way (the agent's end)."""
        deadline = time.monotonic() + within_s
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _post(self, url: str, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        problem = ""
        for attempt in range(self._attempts):
            if attempt:
                time.sleep(self._backoff_s * 2 ** (attempt - 1))
            request = urllib.request.Request(
                url,
                data=data,
                method="POST",
                headers={"Content-Type": "application/json", "User-Agent": "coding-harness"},
            )
            try:
                with urllib.request.urlopen(request, timeout=self._timeout_s) as response:
                    response.read(1024)
            except urllib.error.HTTPError as e:
                problem = f"HTTP {e.code}"
            except (urllib.error.URLError, OSError, ValueError) as e:
                reason = getattr(e, "reason", e)
                problem = str(reason) or type(e).__name__
            else:
                self._failed(url, None)
                return
        self._failed(
            url, f"{payload['event']} not delivered after {self._attempts} attempts: {problem}"
        )

    def _failed(self, url: str, problem: str | None) -> None:
        """Log the first failure of a run of failures; a success ends the run."""
        with self._lock:
            first = problem is not None and not self._failing
            self._failing = problem is not None
        if first:
            self._log(f"webhook {shown_url(url)}: {problem} (further failures not logged)")


#: The longest the agent's end waits for its last POSTs (then it exits without them).
END_DRAIN_S = 3.0


def agent_webhook(
    spec: NotifyTargets | None,
    approved: NotifyTargets | None,
    environ: MutableMapping[str, str],
    log: Callable[[str], None],
    link_file: Path | None = None,
    agent: str = "",
) -> Webhook:
    """The agent's webhook, its URL resolved now (at start): the spec's ``notify``, else
    the repository's as a person approved it at project_verification (``approved``, from
    the state; never the file as it is now). Without either it posts nothing until
    :func:`aim_approved` aims it. An ``env:NAME`` variable is taken out of ``environ``
    (the agent's): the sessions and their sandbox inherit it, and an incoming webhook's
    URL is a secret the model must not read.

    Raises:
        WebhookError: ``env:NAME`` names an unset variable or a value not http(s).
    """
    hook = Webhook(None, log, link_file=link_file, agent=agent)
    chosen = spec if spec is not None and spec.webhook else approved
    url = resolve(chosen, environ)
    if url is not None:
        _taken(chosen, environ)
        hook.aim(url)
    return hook


def _taken(targets: NotifyTargets | None, environ: MutableMapping[str, str]) -> None:
    """Remove the ``env:NAME`` variable whose URL was just read."""
    raw = targets.webhook if targets is not None else None
    if raw is not None and raw.startswith(ENV_PREFIX):
        environ.pop(raw.removeprefix(ENV_PREFIX), None)


def aim_approved(
    hook: Webhook | None, approved: NotifyTargets | None, environ: MutableMapping[str, str]
) -> None:
    """Aim an unaimed ``hook`` at the repository's webhook a person just approved (the
    spec's, when it has one, came first). A variable unset or not http(s) is logged in
    one line: the agent goes on without it.
    """
    if hook is None or hook.url is not None:
        return
    try:
        url = resolve(approved, environ)
    except WebhookError as e:
        hook.say(f"webhook from {SETTINGS_FILE} not used: {e}")
        return
    if url is not None:
        _taken(approved, environ)
        hook.aim(url)


@dataclass
class Ending:
    """The agent's outcome, filled in by the run; ``None`` until it returns (a stop: who
    asked for it, when the daemon said so, is read as the block ends)."""

    outcome: tuple[str, str] | None = None


@contextlib.asynccontextmanager
async def announcing_end(webhook: Webhook | None, files: WorkspaceFiles) -> AsyncIterator[Ending]:
    """Post ``agent_ended`` when the block ends, however (a failure, a stop, a signal).

    Names the checkpoint still waiting, if the agent stopped at one; waits at most
    :data:`END_DRAIN_S` (off the loop) for the POSTs under way.
    """
    ending = Ending()
    try:
        yield ending
    except HarnessError as e:
        ending.outcome = ("failed", str(e))
        raise
    finally:
        if webhook is not None:
            try:
                waiting = checkpoints.pending(files)
            except HarnessError:
                waiting = None
            outcome, reason = ending.outcome or ("stopped", stop_reason(files.root, os.getpid()))
            told = f"{outcome}: {reason}" if reason else outcome
            webhook.send(
                body("agent_ended", webhook.agent, waiting, ended=told, link=webhook.link())
            )
            await asyncio.to_thread(webhook.drain, END_DRAIN_S)
