"""How the agent's sessions reach their model: the embedded one, or a real endpoint.

Either way through the harness's proxy (:mod:`agent.core.endpoint.model_proxy`): it
holds the credentials, forwards only the Messages API and only while a session runs,
and charges every answer to it. Decided here, where the model is chosen, so the core
never knows the embedded model.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.core.endpoint.endpoint_meter import EndpointMeter
from agent.core.endpoint.model_probe import probe_endpoint
from agent.core.endpoint.model_proxy import DUMMY_KEY, ModelProxy, Upstream
from agent.core.log import AgentLog
from agent.core.policy import audit
from agent.core.run.orchestrator import ModelCheck, SpecRefusal
from agent.model.launcher import LocalModel
from agent.model.playbook import DEMO_PLAYBOOK, ONLY_THE_DEMO, load_playbook
from common.credentials import MODEL, check_credentials
from common.paths import WorkspaceFiles
from common.schemas.spec import AgentSpec


@dataclass(frozen=True)
class ModelAccess:
    """How the CLI reaches its model, and how project_verification probes that."""

    env: dict[str, str]
    """Variables for the CLI's environment: a local base URL and a worthless key."""
    model: str | None
    """The model name for the sessions (``None``: the CLI's default)."""
    check: ModelCheck | None
    """The endpoint probe; ``None`` for the embedded model."""
    spec_refusal: SpecRefusal | None
    """Why the model cannot work on a spec; ``None``: a real model takes any spec."""
    meter: EndpointMeter
    """Opens the endpoint only while a session runs and charges every answer to it."""
    proxy: ModelProxy
    """The proxy the sessions reach the model through: it serves each session's own
    entrance when sessions run at once (issues in parallel)."""


def embedded_name(playbook: Path | None) -> str:
    """How the log names the embedded model: by the playbook it plays (the CLI would
    call it by its default Claude model's name, ``claude-opus-…``)."""
    demos = DEMO_PLAYBOOK.parent
    if playbook is None or playbook == DEMO_PLAYBOOK:
        played = "the demo playbook"
    elif playbook.is_relative_to(demos):
        played = f"the {playbook.parent.name} demo playbook"
    else:
        played = f"playbook {playbook.parent.name}/{playbook.name}"
    return f"embedded model playing {played}"


def playbook_refusal(playbook: Path) -> SpecRefusal:
    """The embedded model works only on the specs its playbook plays (the demo's: the demo).

    Decided here, where the model is chosen, so the core never knows the embedded model;
    the playbook is read when the spec is judged, as the model server reads it.
    """

    def refusal(spec_text: str) -> str | None:
        return None if load_playbook(playbook).plays(spec_text) else ONLY_THE_DEMO

    return refusal


def endpoint_meter(spec: AgentSpec, log: AgentLog, files: WorkspaceFiles | None) -> EndpointMeter:
    """The model endpoint's ledger: refusals logged, and counted in the workspace's audit."""

    def count(detail: str) -> None:
        if files is not None:
            audit.record_endpoint_refusal(files, detail)

    return EndpointMeter(priced=not spec.uses_local_model, log=log, on_refusal=count)


def metered_probe(check: ModelCheck, meter: EndpointMeter, log: AgentLog) -> ModelCheck:
    """The endpoint probe with the endpoint open for it (no session runs at that moment).

    Its one request (``max_tokens: 1``) is the harness's own: logged, not a session's spend.
    """

    async def probe() -> list[str]:
        with meter.window("endpoint probe") as spent:
            warnings = await check()
        meter.take_last(spent.label)
        log(f"endpoint probe: the model endpoint forwarded {spent.line()}")
        return warnings

    return probe


@contextlib.asynccontextmanager
async def model_environment(
    spec: AgentSpec,
    log: AgentLog,
    credentials: Mapping[str, str] | None = None,
    files: WorkspaceFiles | None = None,
) -> AsyncIterator[ModelAccess]:
    """Start what the CLI talks to: the embedded model, or the proxy to the real endpoint.

    ``credentials`` (:mod:`common.credentials`) are the starting client's; the
    proxy holds the secret among them, the CLI only the proxy's address. Either way
    the proxy forwards only the Messages API, only during a session, and charges it
    (refusals are counted in ``files``' audit).

    Raises:
        CredentialsError: a Claude model and no key, token or base URL.
    """
    credentials = credentials or {}
    meter = endpoint_meter(spec, log, files)
    if spec.uses_local_model:
        async with embedded_model(spec, log, meter) as access:
            yield access
        return
    check_credentials(spec, credentials)
    upstream = Upstream.from_credentials(credentials)
    model = spec.model or credentials.get(MODEL)
    proxy = ModelProxy(upstream, log, meter)
    async with proxy as proxy_url:
        log(f"model proxy at {proxy_url} for {upstream.base_url} ({upstream.auth})")
        yield ModelAccess(
            env=cli_environment(proxy_url, DUMMY_KEY),
            model=model,
            check=metered_probe(
                functools.partial(probe_endpoint, proxy_url, upstream, model), meter, log
            ),
            spec_refusal=None,
            meter=meter,
            proxy=proxy,
        )


@contextlib.asynccontextmanager
async def embedded_model(
    spec: AgentSpec, log: AgentLog, meter: EndpointMeter
) -> AsyncIterator[ModelAccess]:
    """The embedded model playing the spec's playbook (the demo's by default), behind
    the proxy too: it records every exchange in the trace."""
    playbook = spec.playbook or DEMO_PLAYBOOK
    latency = spec.model_latency_s
    async with LocalModel(playbook, latency_s=latency) as model_url:
        local_proxy = ModelProxy(Upstream(model_url, "none"), log, meter)
        async with local_proxy as base_url:
            waits = f", {latency:g} s before each answer" if latency else ""
            log(f"embedded model serving {playbook.name} at {model_url}{waits}")
            yield ModelAccess(
                env=cli_environment(base_url, "local-playbook"),
                model=None,
                check=None,
                spec_refusal=playbook_refusal(playbook),
                meter=meter,
                proxy=local_proxy,
            )


def cli_environment(base_url: str, key: str) -> dict[str, str]:
    """The Claude CLI's variables: the proxy's address and a worthless key."""
    return {
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": key,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
