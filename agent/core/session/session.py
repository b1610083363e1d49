"""One Claude session through claude-agent-sdk and its bundled CLI.

The session owns its SDK client from start to end in one task. It loads no
settings or CLAUDE.md from the target repository (``setting_sources=[]``), offers
the model exactly the tools of its kind (``tools=``, see :mod:`agent.core.session.toolset`),
checks that the CLI offers exactly those, runs every tool call through our hooks,
and writes every message to the agent log.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ClaudeSDKError,
    ResultMessage,
    SystemMessage,
)

from agent.core.browser.record import BrowserRecorder
from agent.core.browser.server import BrowserSetup
from agent.core.endpoint.endpoint_meter import EndpointMeter, EndpointSpend
from agent.core.log import AgentLog
from agent.core.policy import PolicyContext
from agent.core.policy.audit import AuditTrail
from agent.core.session import trace_session
from agent.core.session.hooks import FileTracker, PolicySetup, ToolPolicy, build_hooks
from agent.core.session.mcp_servers import failed_servers, sdk_config
from agent.core.session.research import ResearchConfig
from agent.core.session.result import SessionResult
from agent.core.session.session_limits import SessionLimits, launcher_env, taken
from agent.core.session.session_log import log_message
from agent.core.session.tools import SERVER_NAME, SessionReports
from agent.core.session.toolset import check_offered
from agent.core.session.trace_session import traced_session
from agent.core.trace.trace import TraceSession
from common.errors import ModelEndpointError, SessionError
from common.schemas.mcp_server import McpServer

SESSION_TIMEOUT_S = 45 * 60
MAX_MESSAGE_BYTES = 16 << 20
"""The largest message the CLI may send (the SDK's default is 1 MiB): a tool call carries
its whole input, so an honest ``Write`` of a 2 MB fixture ended the session with "JSON
message exceeded maximum buffer size". The model's reports are bounded far below this
(:mod:`agent.core.session.tools`); what a session writes is bounded by the limits."""
OUT_OF_TURNS = "error_max_turns"
"""The result subtype of a session that reached ``max_turns``: an end, not an error."""


EntranceOpener = Callable[[EndpointSpend, Path], AbstractAsyncContextManager[Path]]
"""Serves a window its own entrance until the block ends; yields the CLI to start for it,
in a sandbox bound to the given work tree (the session's: a slot's worktree)."""


@dataclass(frozen=True)
class SessionConfig:
    """How sessions reach a model: which one, and the environment the CLI gets."""

    project_dir: Path
    model: str | None
    env: dict[str, str] = field(default_factory=dict)
    max_turns: int = 80
    local_model: bool = False
    """The embedded playbook model answers: its sessions cost nothing (the CLI would
    price them as the Claude model it names)."""
    model_name: str | None = None
    """What the log calls the model (the embedded one: its playbook, "the demo
    playbook"); ``None``: the name the CLI reports, which for the embedded model is the
    CLI's default Claude model, one it never was."""
    cli_path: Path | None = None
    """The CLI to start: the sandbox's wrapper (:mod:`agent.sandbox.launcher`), the
    launcher's in front of the bundled CLI (unsandboxed, :mod:`agent.sandbox.unsandboxed`),
    or ``None`` for the SDK's bundled CLI as it is."""
    sandboxed: bool = False
    """``cli_path`` starts the CLI in the sandbox: a session in a slot's worktree then
    needs a sandbox bound to that worktree (an entrance of its own)."""
    limits: SessionLimits | None = None
    """Where the launcher in front of the CLI reports a limit it ended a session for
    (``None``: no launcher)."""
    policy: PolicySetup | None = None
    """The command policy and its audit counts; ``None``: the project's defaults,
    logged but not counted."""
    meter: EndpointMeter | None = None
    """The model endpoint's ledger: it opens the endpoint for the session and charges it
    every answer (the model's own requests too); ``None``: nothing metered."""
    cost_limit_usd: float | None = None
    """What the run's cost budget has left for this session: past it the endpoint refuses
    and the session ends with its figures (``None``: no limit)."""
    entrance: EntranceOpener | None = None
    """Serves each session's window an entrance of its own and yields the CLI that reaches
    the endpoint by it alone, so that sessions may run at once, each charged only its own
    requests (:meth:`agent.sandbox.launcher.SessionSandbox.own_entrance`); ``None``: the
    shared entrance, one session at a time. Used only with a ``meter``."""
    research: ResearchConfig | None = None
    """The research services configured for the agent (``web_search``, ``library_docs``
    for enrichment sessions); ``None``: none."""
    browser: BrowserSetup | None = None
    """The browser of coding sessions (its server is among ``mcp_servers``; its output
    folder is where the harness takes screenshots from); ``None``: no browser."""
    host_scope: Callable[[str], AbstractContextManager[None]] | None = None
    """Widens the sandbox's host allowlist by a session kind's MCP servers' hosts while
    such a session runs (:meth:`agent.sandbox.launcher.SessionSandbox.hosts_during`);
    ``None``: no filtering proxy."""
    mcp_servers: tuple[McpServer, ...] = ()
    """Every MCP server the agent's sessions may get (built in, the spec's, the
    repository's as approved: :func:`agent.core.session.mcp_servers.agent_servers`); each session
    gets those of its kind (:func:`agent.core.session.toolset.with_servers`)."""


async def run_session(
    label: str,
    system_prompt: str,
    prompt: str,
    config: SessionConfig,
    reports: SessionReports,
    log: AgentLog,
) -> SessionResult:
    """Run one session to its end and return its figures (and trace it).

    Raises:
        SessionError: the CLI could not start, the API kept failing, or the session timed out.
    """
    project, model = config.project_dir, config.model
    async with traced_session(label, system_prompt, prompt, project, model, reports) as traced:
        async with endpoint_window(config, label, traced.session) as (spent, own):
            figures = await _run_session(label, system_prompt, prompt, own, reports, log, spent)
        if spent is not None:
            figures = with_endpoint(figures, spent)
            log(f"── session {label}: the model endpoint forwarded {spent.line()}")
        traced.figures = figures
        return figures


@contextlib.asynccontextmanager
async def endpoint_window(
    config: SessionConfig, label: str, trace_session: TraceSession | None = None
) -> AsyncIterator[tuple[EndpointSpend | None, SessionConfig]]:
    """The endpoint open for this session (``None`` without a meter), and the session's
    configuration (with its own CLI when it has an entrance of its own); once the session
    has ended, closed to new requests and waited on for answers still streaming.
    The window's exchanges are traced as ``trace_session``'s."""
    meter = config.meter
    if meter is None:
        yield None, config
        return
    spent: EndpointSpend | None = None
    own = config.entrance is not None
    try:
        with meter.window(
            f"session {label}", config.cost_limit_usd, own_entrance=own, trace_session=trace_session
        ) as spent:
            if config.entrance is None:
                yield spent, config
            else:
                async with config.entrance(spent, config.project_dir) as cli_path:
                    yield spent, replace(config, cli_path=cli_path)
    finally:  # closed first; a failed session's answers still streaming are its spend too
        if spent is not None:
            await meter.settle(spent)


def with_endpoint(figures: SessionResult, spent: EndpointSpend) -> SessionResult:
    """The session's figures, each at least what the endpoint forwarded and charged.

    The CLI's own report misses requests the model's commands sent through the
    relay (and the CLI's stdout can be forged by them); the endpoint sees them all.
    """
    cli_cost = figures.cost_usd
    return replace(
        figures,
        cost_usd=spent.cost_usd if cli_cost is None else max(cli_cost, spent.cost_usd),
        input_tokens=max(figures.input_tokens, spent.input_tokens),
        output_tokens=max(figures.output_tokens, spent.output_tokens),
        cache_read_tokens=max(figures.cache_read_tokens, spent.cache_read_tokens),
        cache_creation_tokens=max(figures.cache_creation_tokens, spent.cache_creation_tokens),
        endpoint_requests=spent.requests,
    )


async def _run_session(
    label: str,
    system_prompt: str,
    prompt: str,
    config: SessionConfig,
    reports: SessionReports,
    log: AgentLog,
    spent: EndpointSpend | None = None,
) -> SessionResult:
    tracker = FileTracker(config.project_dir)
    browser = BrowserRecorder()
    report = config.limits.report_file() if config.limits is not None else None
    options = _options(system_prompt, config, reports, log, tracker, report)
    log(f"── session {label}: start")
    result: ResultMessage | None = None
    failure: SessionError | None = None
    try:
        result = await _converse(label, prompt, options, reports, log, browser, config.model_name)
    except TimeoutError as e:
        failure = SessionError(f"session {label} timed out after {SESSION_TIMEOUT_S} s")
        failure.__cause__ = e
    except ClaudeSDKError as e:
        failure = SessionError(f"session {label}: {e}")
        failure.__cause__ = e
    limit = None
    if report is not None and config.limits is not None:
        limit = await taken(report, config.project_dir, config.limits.since_ns)
    if limit is not None:
        log(f"── session {label}: {limit.splitlines()[0]}")
        return _limited(result, tracker, config, browser, limit)
    if failure is not None:
        raise failure
    if result is None:
        raise SessionError(f"session {label} ended without a result message")
    _check_result(label, result, spent, log)
    figures = session_figures(result, tracker.touched, local_model=config.local_model)
    figures.browser_calls = browser.calls()
    cost = f"${figures.cost_usd:.4f}" if figures.cost_usd is not None else "n/a"
    log(
        f"── session {label}: end — {figures.turns} turns, {figures.input_tokens} in "
        f"({figures.cache_read_tokens} cache read, {figures.cache_creation_tokens} cache write) / "
        f"{figures.output_tokens} out tokens, cost {cost}, {figures.duration_ms} ms"
    )
    return figures


def _options(
    system_prompt: str,
    config: SessionConfig,
    reports: SessionReports,
    log: AgentLog,
    tracker: FileTracker,
    report: Path | None,
) -> ClaudeAgentOptions:
    policy = config.policy or PolicySetup(PolicyContext.for_project(config.project_dir.resolve()))
    surface = reports.surface
    return ClaudeAgentOptions(
        system_prompt=system_prompt,
        mcp_servers={
            SERVER_NAME: reports.server(),
            **{server.name: sdk_config(server) for server in surface.servers},
        },
        # Only the servers above: none from the project's files (a .mcp.json the model wrote).
        strict_mcp_config=True,
        tools=list(surface.builtin),
        allowed_tools=surface.allowed(),
        permission_mode="acceptEdits",
        cwd=str(config.project_dir),
        setting_sources=[],
        hooks=build_hooks(
            ToolPolicy(
                config.project_dir,
                policy.context,
                frozenset(server.name for server in surface.servers),
            ),
            tracker,
            log,
            AuditTrail(log, policy.files),
        ),
        env=launcher_env(config.env, report),
        model=config.model,
        max_turns=config.max_turns,
        stderr=lambda line: log(f"[cli] {line.rstrip()}"),
        cli_path=config.cli_path,
        max_buffer_size=MAX_MESSAGE_BYTES,
    )


async def _converse(
    label: str,
    prompt: str,
    options: ClaudeAgentOptions,
    reports: SessionReports,
    log: AgentLog,
    browser: BrowserRecorder,
    model_name: str | None = None,
) -> ResultMessage | None:
    """The session itself: the prompt, then every message until the result (the model
    named ``model_name`` in the log, when the harness knows better than the CLI)."""
    surface = reports.surface
    result: ResultMessage | None = None
    async with asyncio.timeout(SESSION_TIMEOUT_S), ClaudeSDKClient(options=options) as client:
        await client.query(prompt)
        async for message in client.receive_response():
            log_message(log, message, model_name)
            trace_session.message(message)
            browser.see(message)
            if isinstance(message, SystemMessage) and message.subtype == "init":
                offered = message.data.get("tools") or []
                check_offered(label, surface.names(), offered, surface.server_prefixes())
                for failed in failed_servers(message.data.get("mcp_servers") or []):
                    log(f"── session {label}: MCP server {failed} did not start")
            if isinstance(message, ResultMessage):
                result = message
    return result


def _check_result(
    label: str, result: ResultMessage, spent: EndpointSpend | None, log: AgentLog
) -> None:
    """Raise for a result that is a failure; log one that is an end (turns, budget)."""
    if result.is_error and result.subtype == OUT_OF_TURNS:
        # Not a failure: the session worked until its turn budget; its figures count.
        log(f"── session {label}: it reached its turn limit")
    elif result.is_error and spent is not None and spent.budget_spent:
        # Not a failure either: the endpoint stopped it at the run's cost budget.
        log(f"── session {label}: it spent what the cost budget had left; it ends here")
    elif result.is_error:
        status = f" (HTTP {result.api_error_status})" if result.api_error_status else ""
        detail = "; ".join(result.errors or []) or result.result or result.subtype
        refused = result.api_error_status in (401, 403)  # another attempt cannot mend it
        error = ModelEndpointError if refused else SessionError
        raise error(f"session {label} failed{status}: {detail}")


def _limited(
    result: ResultMessage | None,
    tracker: FileTracker,
    config: SessionConfig,
    browser: BrowserRecorder,
    limit: str,
) -> SessionResult:
    """The figures of a session the harness ended at a limit: an end, not a failure (see
    :mod:`agent.core.session.session_limits`); without a result, what the endpoint saw counts."""
    if result is not None:
        figures = session_figures(result, tracker.touched, local_model=config.local_model)
    else:
        figures = SessionResult(0, None, 0, 0, 0, 0, tracker.touched)
    figures.browser_calls = browser.calls()
    figures.limit = limit
    return figures


def session_figures(
    result: ResultMessage, touched: set[str], *, local_model: bool
) -> SessionResult:
    """The session's figures; input counts every billed kind of input token."""
    usage = result.usage or {}
    cache_read = int(usage.get("cache_read_input_tokens") or 0)
    cache_creation = int(usage.get("cache_creation_input_tokens") or 0)
    return SessionResult(
        turns=result.num_turns,
        cost_usd=0.0 if local_model else result.total_cost_usd,
        input_tokens=int(usage.get("input_tokens") or 0) + cache_read + cache_creation,
        output_tokens=int(usage.get("output_tokens") or 0),
        duration_ms=result.duration_ms,
        denials=len(result.permission_denials or []),
        touched=touched,
        cache_read_tokens=cache_read,
        cache_creation_tokens=cache_creation,
    )
