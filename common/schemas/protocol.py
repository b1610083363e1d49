"""The daemon protocol: newline-delimited JSON, one model per frame.

The server greets every connection with :class:`Hello`. Each request carries an
``id`` that every reply repeats. ``subscribe`` is a stream: a snapshot, then one
:class:`AgentEvent` per change, until the client disconnects; the last frame of
any exchange has ``final: true``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, TypeAdapter

from common.credentials import check_names
from common.protocol_wire import PROTOCOL_VERSION
from common.schemas.agent_state import Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.base import StrictModel
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.coverage import SpecCoverage
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.issue_slot import SlotStep
from common.schemas.spec import AgentSpec
from common.schemas.spend import Spend
from common.telemetry import check_telemetry

# --- requests --------------------------------------------------------------------------


class _Request(StrictModel):
    id: int = Field(ge=0)


class ListRequest(_Request):
    type: Literal["list"] = "list"


class StartRequest(_Request):
    type: Literal["start"] = "start"
    spec: AgentSpec
    credentials: Annotated[dict[str, str], AfterValidator(check_names)] = Field(
        default_factory=dict, repr=False
    )
    """The client's Claude credentials for this agent (``common.credentials``); they go
    to the agent's secrets pipe only: never into a repr, a log or ``daemon_state.json``."""
    fresh: bool = False
    """Start in a new workspace next to the spec's earlier ones, which are kept."""
    telemetry: Annotated[dict[str, str], AfterValidator(check_telemetry)] = Field(
        default_factory=dict, repr=False
    )
    """The client's ``OTEL_*`` variables (:mod:`common.telemetry`): through the agent's
    secrets pipe to the agent alone, never into its environment, a log or the registry."""


class ResumeRequest(_Request):
    """Start a stopped or failed agent again, under its name, in its workspace."""

    type: Literal["resume"] = "resume"
    agent: str
    credentials: Annotated[dict[str, str], AfterValidator(check_names)] = Field(
        default_factory=dict, repr=False
    )
    """The client's Claude credentials, handed to the agent through a pipe."""
    telemetry: Annotated[dict[str, str], AfterValidator(check_telemetry)] = Field(
        default_factory=dict, repr=False
    )
    """The client's ``OTEL_*`` variables, as for a start."""


class StopRequest(_Request):
    type: Literal["stop"] = "stop"
    agent: str
    client: Literal["cli", "tui"] = "cli"
    """Who asks, told to the agent as ``<client>:<user>`` (its log and webhook say who
    stopped it)."""


class StatusRequest(_Request):
    type: Literal["status"] = "status"
    agent: str


class RemoveRequest(_Request):
    type: Literal["remove"] = "remove"
    agent: str


class SetAutoAcceptRequest(_Request):
    type: Literal["set_auto_accept"] = "set_auto_accept"
    agent: str
    enabled: bool = False
    """All or nothing, as clients before the rules asked; ``rules`` wins when given."""
    rules: AutoAcceptRules | None = None
    """The rules to set, per checkpoint type."""

    @property
    def chosen(self) -> AutoAcceptRules:
        """The rules this request sets."""
        return (
            self.rules if self.rules is not None else AutoAcceptRules.model_validate(self.enabled)
        )


class SubscribeRequest(_Request):
    type: Literal["subscribe"] = "subscribe"


class AnswerRequest(_Request):
    """Approve or reject the checkpoint an agent waits at, as a person decided.

    The daemon signs and writes the decision (:mod:`common.workspace.answer`), so the
    command that asks needs no schema at all (:mod:`agent.daemon.answer_client`). Only a
    client of the daemon's own uid that is not a process of an agent is served
    (:mod:`agent.daemon.peer_rules`).
    """

    type: Literal["answer"] = "answer"
    agent: str
    approve: bool
    choice: str | None = None
    """An approval's choice other than the default (``harness approve --choice``)."""
    reason: str | None = None
    checkpoint_id: str | None = None
    """Decide only this checkpoint (refused once it is decided or no longer current)."""
    not_after: datetime | None = None
    """Without ``checkpoint_id``: decide only a checkpoint created before this instant
    (when the person's command started), never one that nobody has seen yet."""
    client: Literal["cli", "tui"] = "cli"
    """Who asks, recorded as ``<client>:<user>`` with the decision: a person's client,
    never a name the harness decides under (``auto-accept``, ``timeout``)."""


class ShutdownRequest(_Request):
    """Stop the daemon; agents keep running and are adopted by the next daemon."""

    type: Literal["shutdown"] = "shutdown"


Request = Annotated[
    ListRequest
    | StartRequest
    | ResumeRequest
    | StopRequest
    | StatusRequest
    | RemoveRequest
    | SetAutoAcceptRequest
    | SubscribeRequest
    | ShutdownRequest
    | AnswerRequest,
    Field(discriminator="type"),
]
RequestAdapter: TypeAdapter[Request] = TypeAdapter(Request)

# --- replies ---------------------------------------------------------------------------


class SlotInfo(StrictModel):
    """One issue worked in parallel, as ``harness status`` and the TUI show it."""

    iid: int
    step: SlotStep
    started_at: datetime
    """When the issue was chosen (how long it has run)."""
    spend: Spend = Field(default_factory=Spend)
    """Its sessions so far."""
    conflicts: int = 0
    """Merges of its branch that conflicted."""
    title: str = ""
    """The issue's title as the tracker mirror has it: the model's words (shown escaped)."""
    waiting: bool = False
    """The checkpoint waiting for a person is about this issue (answer this one)."""


class AgentInfo(StrictModel):
    """An agent as clients see it: registry entry plus what its workspace says."""

    name: str
    spec_file: Path
    project_dir: Path
    workspace: Path
    log_file: Path
    pid: int | None
    status: AgentStatus
    phase: Phase | None
    auto_accept: bool
    """Some checkpoint type is answered without a person (``auto_accept_rules``)."""
    auto_accept_rules: AutoAcceptRules = Field(default_factory=AutoAcceptRules.off)
    """The auto-accept rules in the workspace, per checkpoint type."""
    pending_checkpoint: CheckpointType | None = None
    started_at: datetime
    reason: str = ""
    """Why it failed or stopped, when it did."""
    sandboxed: bool = True
    """Its sessions run in the OS sandbox; ``False`` when its spec says ``"sandbox": false``
    (an agent that wants the sandbox where it cannot run refuses to start)."""
    exit_state: ExitState = ExitState.CONTINUING
    """continuing, complete, partial (work left undone: see ``coverage``), failed or
    broken (the project's tests cannot run)."""
    coverage: SpecCoverage | None = None
    """Spec sections and issues the run leaves undone (``None`` before the merge request)."""
    issue_spend: dict[int, Spend] = Field(default_factory=dict)
    slots: list[SlotInfo] = Field(default_factory=list)
    """The issues worked in parallel now, by iid (empty one issue at a time)."""
    """What each issue's sessions cost so far."""
    set_aside: list[int] = Field(default_factory=list)
    """Issues left for a person (``needs-human``)."""
    pending_since: datetime | None = None
    """When the waiting checkpoint was raised (``None``: nothing waits)."""
    remind_every_minutes: float | None = None
    """The spec's ``checkpoint_timeout.remind_every_minutes``: clients announce a checkpoint
    that still waits again this often, as the agent's log and webhook do (``None``: never)."""
    issues_closed: int = 0
    """Issues of the spec's milestone closed so far."""
    issues_total: int = 0
    """Issues of the spec's milestone (0 until spec_to_issues created them)."""
    spend: Spend = Field(default_factory=Spend)
    """Tokens and cost of the agent's sessions so far."""
    ended_at: datetime | None = None
    """When the agent process ended (from its exit status), for elapsed times."""
    spec: AgentSpec | None = None
    """The spec it runs, so that a client can run it again in a new workspace (fresh)."""


class Hello(StrictModel):
    type: Literal["hello"] = "hello"
    protocol_version: int = PROTOCOL_VERSION
    daemon_pid: int
    refused_connections: int = 0
    """Connections the daemon refused since it started: another uid, or a process of an
    agent (its sandbox, its commands); ``daemon.log`` says which and why."""
    final: bool = False


class ErrorReply(StrictModel):
    type: Literal["error"] = "error"
    id: int | None
    """``None`` when the request was too broken to carry an id."""
    message: str
    final: bool = True


class OkReply(StrictModel):
    type: Literal["ok"] = "ok"
    id: int
    final: bool = True


class AgentReply(StrictModel):
    type: Literal["agent"] = "agent"
    id: int
    agent: AgentInfo
    final: bool = True


class AgentsReply(StrictModel):
    type: Literal["agents"] = "agents"
    id: int
    agents: list[AgentInfo]
    final: bool = True


class AnsweredReply(StrictModel):
    """The decision is written: the agent acts on it as soon as it sees the file."""

    type: Literal["answered"] = "answered"
    id: int
    agent: str
    checkpoint_id: str
    checkpoint_type: CheckpointType
    approved: bool
    final: bool = True


class AgentEvent(StrictModel):
    """One agent changed (status, phase, checkpoint, auto-accept) or was removed."""

    type: Literal["agent_event"] = "agent_event"
    id: int
    agent: AgentInfo
    removed: bool = False
    final: bool = False


Reply = Annotated[
    Hello | ErrorReply | OkReply | AgentReply | AgentsReply | AgentEvent | AnsweredReply,
    Field(discriminator="type"),
]
ReplyAdapter: TypeAdapter[Reply] = TypeAdapter(Reply)
