"""The agent spec: what one entry of ``--specs`` or the TUI wizard describes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field, TypeAdapter, field_validator, model_validator
from pydantic_core import PydanticCustomError

from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.base import StrictModel
from common.schemas.budget import Budgets
from common.schemas.limits import Limits
from common.schemas.mcp_server import McpServer, unique_names
from common.schemas.notify import CheckpointTimeout, NotifyTargets
from common.schemas.outbound import OutboundSettings
from common.schemas.policy import PolicySettings
from common.schemas.quality import QualitySettings
from common.schemas.sandbox_hosts import HostPort
from common.schemas.web import WebSettings

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def _env_name(value: str) -> str:
    if not _ENV_NAME.fullmatch(value):
        raise PydanticCustomError("env_name", f"{value!r} is not an environment variable's name")
    return value


EnvName = Annotated[str, AfterValidator(_env_name)]
"""An environment variable's name, as a shell would accept it."""

#: The ``model`` value that asks for the embedded default model (the local playbook server).
LOCAL_MODEL = "local"

#: The longest ``model_latency_s``: far beyond a real answer, well within the 10 minutes
#: after which the CLI and the agent's model proxy give up on one.
MAX_MODEL_LATENCY_S = 300.0

#: The most issues one agent works at once: each is a sandbox, a worktree and a model
#: window of its own, and a person answers every slot's checkpoints.
MAX_PARALLEL = 8


class AgentSpec(StrictModel):
    """One agent's job: a spec file, a git repository and the branch to merge into."""

    spec_file: Path
    """The Markdown specification to implement."""
    project_dir: Path
    """The git repository the agent works in."""
    target_branch: str = Field(min_length=1)
    """The branch the feature branch starts from and the merge request targets."""
    file_only_mode: bool = False
    """Track milestone and issues in local JSON files instead of GitLab."""
    skip_mr_creation: bool = False
    """Stop on the feature branch after coding instead of creating a merge request."""
    skip_puppeteer: bool = False
    """No browser verification, even for a project with a ``web`` section."""
    web: WebSettings | None = None
    """The project's web UI (how it is served, its loopback URL): its coding sessions get
    browser tools and screenshots (:mod:`agent.core.browser`). ``None``: no browser."""
    skip_test_suite: bool = False
    """Do not run the project's test suite as a quality gate."""
    skip_regression: bool = False
    """Do not compare test results before and after each issue."""
    auto_accept: AutoAcceptRules = Field(default_factory=AutoAcceptRules.off)
    """Which checkpoint types are answered with their default decision without a person:
    ``true`` (all), ``false`` (none, the default) or ``{"default": "approve"|"ask",
    "<checkpoint_type>": "approve"|"ask", …}``; changeable while running
    (``harness auto-accept``). Some checkpoints always ask whatever it says."""
    max_iterations: int | None = Field(default=None, ge=1)
    """Upper bound on coding sessions; ``None`` means until every issue is closed."""
    model: str | None = None
    """A Claude model name, ``"local"`` for the embedded default model, or ``None`` for
    ``CLAUDE_MODEL``."""
    playbook: Path | None = None
    """The playbook the embedded model answers from (defaults to the demo's)."""
    model_latency_s: float = Field(default=0.0, ge=0, le=MAX_MODEL_LATENCY_S, allow_inf_nan=False)
    """Seconds the embedded model waits before each answer, as a real model takes time
    to answer: benchmarks and tests see real-model timing (each concurrent request waits
    its own). Only with ``model: "local"``; ``harness run --model-latency`` overrides it."""
    parallel: int = Field(default=1, ge=1, le=MAX_PARALLEL, strict=True)
    """How many issues whose dependencies are done may be worked at once, each in its own
    git worktree, branch and sandbox. 1 (the default) works them one after another in
    the project's own work tree. More than 1 needs the sandbox without the host network:
    each session's own entrance to the model is what keeps the slots apart.
    ``harness run --parallel`` overrides it."""
    test_command: str | None = None
    """The project's test command; detected from the project when not given."""
    policy: PolicySettings | None = None
    """How far the command policy opens for this project (``None``: the defaults)."""
    sandbox: bool = True
    """Run every session inside the OS sandbox (bubblewrap). ``False`` runs them
    unsandboxed, shown as such by ``harness list`` and the TUI; an agent that asks for
    the sandbox where bubblewrap cannot run refuses to start."""
    sandbox_network: bool = False
    """Give the model's commands the host's network. Off: the sandbox reaches only the
    model endpoint and the ``host:port`` pairs of ``sandbox_hosts`` (through the agent's
    filtering proxy; see docs/security.md)."""
    sandbox_hosts: list[HostPort] = Field(default_factory=list)
    """``host:port`` pairs the sessions and test gates may reach through the agent's
    filtering proxy (``pypi.org:443``); added to the repository's ``.harness.json`` ones
    (pinned at project_verification). Everything else stays unreachable."""
    sandbox_env: list[EnvName] = Field(default_factory=list)
    """Variables of the environment the agent starts in that its sessions and gates keep,
    beyond the sandbox's own list (where things are, the locale, the toolchain): a
    variable the project's tests need. Every other one stays outside, and
    project_verification names them."""
    mcp_servers: list[McpServer] = Field(default_factory=list)
    """MCP servers whose tools sessions of the kinds named get (stdio ``command`` run in
    the sandbox, or HTTP ``url``); the spec's entry wins over ``.harness.json``'s of the
    same name."""
    budgets: Budgets = Field(default_factory=Budgets)
    """Sessions per issue, turns per session, total cost and time."""
    limits: Limits = Field(default_factory=Limits)
    """What one session, gate or replay may take from the machine (memory, processes,
    cores, file and tmpfs sizes) and how much the project may grow on disk."""
    quality: QualitySettings | None = None
    """Quality checks beyond the tests; overrides the repository's ``.harness.json``."""
    outbound: OutboundSettings | None = None
    """The outbound review: more protected paths (added to the defaults and to the
    repository's), the file size limit and the issue's diff budget (these override the
    repository's ``.harness.json``)."""
    checkpoint_timeout: CheckpointTimeout | None = None
    """A checkpoint nobody answers: reminded of, then decided with its default or the
    agent stops (``None``: it waits for a person however long)."""
    notify: NotifyTargets | None = None
    """A webhook for waiting checkpoints, reminders, timeouts and the agent's end (its
    URL, or ``env:NAME`` read from the agent's environment at start)."""

    @field_validator("spec_file", "project_dir", "playbook")
    @classmethod
    def _absolute(cls, value: Path | None) -> Path | None:
        return value.expanduser().absolute() if value is not None else None

    @model_validator(mode="after")
    def _latency_only_for_the_embedded_model(self) -> AgentSpec:
        """A real endpoint's latency is its own: a wait asked of it could only be ignored."""
        if self.model_latency_s and not self.uses_local_model:
            named = f"model {self.model!r}" if self.model else "CLAUDE_MODEL (no model set)"
            raise PydanticCustomError(
                "embedded_model_only",
                f'model_latency_s is for the embedded model (model "{LOCAL_MODEL}") only, '
                f"not {named}",
            )
        return self

    @model_validator(mode="after")
    def _parallel_only_in_a_closed_sandbox(self) -> AgentSpec:
        """Slots are kept apart by the sandbox: each session reaches the model only through
        its own entrance. Unsandboxed, or on the host network, one slot's commands could
        reach another's entrance and speak as it, so parallel work is refused there."""
        if self.parallel > 1 and not self.sandbox:
            raise PydanticCustomError(
                "parallel_needs_sandbox",
                f"parallel {self.parallel} needs the sandbox (sandbox is false)",
            )
        if self.parallel > 1 and self.sandbox_network:
            raise PydanticCustomError(
                "parallel_needs_closed_network",
                f"parallel {self.parallel} needs the sandbox without the host network "
                "(sandbox_network is true)",
            )
        return self

    @field_validator("mcp_servers")
    @classmethod
    def _unique_servers(cls, value: list[McpServer]) -> list[McpServer]:
        return unique_names(value)

    @model_validator(mode="after")
    def _hosts_only_in_a_closed_sandbox(self) -> AgentSpec:
        """An allowlist narrows a closed network: with the host's network, or with no
        sandbox at all, it would only look like a limit."""
        if self.sandbox_hosts and (self.sandbox_network or not self.sandbox):
            why = "sandbox_network is true" if self.sandbox else "sandbox is false"
            raise PydanticCustomError(
                "hosts_need_closed_sandbox",
                f"sandbox_hosts needs the sandbox without the host network ({why})",
            )
        return self

    @property
    def wants_browser(self) -> bool:
        """Whether coding sessions get the browser: a web UI, and not ``skip_puppeteer``."""
        return self.web is not None and not self.skip_puppeteer

    @property
    def uses_local_model(self) -> bool:
        """Whether the agent must start the embedded default model."""
        return self.model == LOCAL_MODEL


SpecList = TypeAdapter(list[AgentSpec])
"""Parses the ``--specs`` JSON array."""
