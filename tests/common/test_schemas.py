"""Every persisted or transmitted model survives JSON unchanged and refuses bad data loudly."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from common.protocol_wire import PROTOCOL_VERSION
from common.schemas.agent_state import AgentState, Phase, Stage, Transition
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointAdapter,
    CheckpointFile,
    CheckpointLog,
    CheckpointType,
    ClosureDecision,
    Decision,
    DiffExcerpt,
    EnrichmentDecision,
    EnrichmentScopeCheckpoint,
    EnrichmentScopeContext,
    IssueClosureCheckpoint,
    IssueClosureContext,
    IssueEnrichmentCheckpoint,
    IssueEnrichmentContext,
    IssueRef,
    IssueSelectionCheckpoint,
    IssueSelectionContext,
    MergeConflictAction,
    MergeConflictCheckpoint,
    MergeConflictContext,
    MergeConflictDecision,
    MrPhaseTransitionCheckpoint,
    MrPhaseTransitionContext,
    MrReviewCheckpoint,
    MrReviewContext,
    ProjectVerificationCheckpoint,
    ProjectVerificationContext,
    ProposalDecision,
    RegressionAction,
    RegressionApprovalCheckpoint,
    RegressionApprovalContext,
    RegressionDecision,
    ScopeChange,
    ScopeDecision,
    SelectionDecision,
    SpecToIssuesCheckpoint,
    SpecToIssuesContext,
)
from common.schemas.daemon_state import (
    AgentRecord,
    AgentStatus,
    DaemonState,
    DaemonStatusFile,
)
from common.schemas.exit_status import AgentExit
from common.schemas.gates import TestRun
from common.schemas.issue_work import IssueWork
from common.schemas.issues import IssueDraft, IssueNote, MergeRequestRecord, TrackedIssue
from common.schemas.milestone import FileMilestone
from common.schemas.protocol import (
    AgentEvent,
    AgentInfo,
    AgentReply,
    AgentsReply,
    ErrorReply,
    Hello,
    ListRequest,
    OkReply,
    RemoveRequest,
    Reply,
    ReplyAdapter,
    Request,
    RequestAdapter,
    SetAutoAcceptRequest,
    ShutdownRequest,
    StartRequest,
    StatusRequest,
    StopRequest,
    SubscribeRequest,
)
from common.schemas.spec import AgentSpec, SpecList
from common.schemas.workspace import WorkspaceInfo
from tests.core.checkpoint_samples import budget as budget_sample

WHEN = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
SPEC = AgentSpec(
    spec_file=Path("/srv/specs/todo.md"),
    project_dir=Path("/srv/todo"),
    target_branch="main",
    file_only_mode=True,
    max_iterations=3,
    model="local",
    playbook=Path("/srv/playbook.json"),
    test_command="python -m pytest -q",
)
RUN = TestRun(
    command="python -m pytest -q",
    exit_code=1,
    duration_s=0.25,
    summary="1 failed, 4 passed in 0.25s",
    failed_tests=["tests/test_a.py::test_x"],
    output_tail="FAILED tests/test_a.py::test_x - assert 1 == 2",
)
DRAFT = IssueDraft(
    title="Add the parser",
    summary="Parse the input.",
    requirement_details=["Accept commas"],
    test_criteria=["Parses 1,2"],
)
REFS = [IssueRef(iid=1, title="Parser", labels=["in-progress"]), IssueRef(iid=2, title="CLI")]
INFO = AgentInfo(
    name="agent_1",
    spec_file=SPEC.spec_file,
    project_dir=SPEC.project_dir,
    workspace=Path("/srv/todo/.claude-agent/todo-1234abcd"),
    log_file=Path("/srv/todo/.claude-agent/todo-1234abcd/logs/agent.log"),
    pid=4242,
    status=AgentStatus.WAITING,
    phase=Phase.CODING,
    auto_accept=False,
    pending_checkpoint=CheckpointType.ISSUE_CLOSURE,
    started_at=WHEN,
    reason="",
)


def _base(checkpoint_id: str) -> dict[str, Any]:
    return {
        "id": checkpoint_id,
        "created_at": WHEN,
        "what_happened": ["Something happened."],
        "to_decide": "Go on?",
        "if_approved": "It goes on.",
        "if_rejected": "It stops.",
    }


def _decision(approved: bool = True) -> dict[str, Any]:
    return {"approved": approved, "decided_by": "tui:ada", "decided_at": WHEN}


#: One pending and one decided example of each of the eight checkpoint types.
CHECKPOINTS: list[Checkpoint] = [
    ProjectVerificationCheckpoint(
        **_base("pv-1"),
        context=ProjectVerificationContext(
            project_dir="/srv/todo",
            current_branch="main",
            target_branch="main",
            feature_branch="feature/todo",
            head_commit="0" * 40,
            tracker="file",
            test_command=None,
            baseline_tests=RUN,
            uncommitted=["notes.txt"],
            warnings=["dirty tree"],
        ),
    ),
    SpecToIssuesCheckpoint(
        **_base("si-1"),
        context=SpecToIssuesContext(
            issues=[DRAFT], recommended_enrichment=[1], attempt=2, feedback="smaller"
        ),
        status="decided",
        decision=ProposalDecision(**_decision(False), reason="too big"),
    ),
    IssueEnrichmentCheckpoint(
        **_base("ie-1"),
        context=IssueEnrichmentContext(issues=REFS, recommended=[2]),
        status="decided",
        decision=EnrichmentDecision(**_decision(), selected=[1, 2]),
    ),
    RegressionApprovalCheckpoint(
        **_base("ra-1"),
        context=RegressionApprovalContext(
            issue_iid=1, issue_title="Parser", newly_failing=["t.py::a"], test_run=RUN
        ),
        status="decided",
        decision=RegressionDecision(**_decision(), action=RegressionAction.DEFER),
    ),
    IssueSelectionCheckpoint(
        **_base("is-1"),
        context=IssueSelectionContext(open_issues=REFS, recommended_iid=1, closed_count=3),
        status="decided",
        decision=SelectionDecision(**_decision(), issue_iid=2),
    ),
    IssueClosureCheckpoint(
        **_base("ic-1"),
        context=IssueClosureContext(
            issue_iid=1,
            issue_title="Parser",
            commit_sha="a" * 40,
            commit_message="feat(#1): Parser",
            files_changed=["parser.py"],
            diff_stat=" parser.py | 3 +++",
            diff="+x",
            test_run=RUN,
            model_summary="done",
        ),
    ),
    MrPhaseTransitionCheckpoint(
        **_base("mp-1"),
        context=MrPhaseTransitionContext(closed_issues=REFS, open_issues=[], test_run=None),
        status="decided",
        decision=Decision(**_decision()),
    ),
    MrReviewCheckpoint(
        **_base("mr-1"),
        context=MrReviewContext(
            title="Todo",
            description="All of it",
            source_branch="feature/todo",
            target_branch="main",
            commits=["a" * 40],
        ),
    ),
    budget_sample("br-1"),
    EnrichmentScopeCheckpoint(
        **_base("es-1"),
        context=EnrichmentScopeContext(
            changes=[
                ScopeChange(
                    iid=3,
                    spec_title="Add Interval.parse(text)",
                    enriched_title="Add Interval.overlaps",
                    dropped=["title: 'Add Interval.parse(text)' became 'Add Interval.overlaps'"],
                    diff="diff --git a/issue-3.md b/issue-3.md\n-# Add Interval.parse(text)",
                )
            ]
        ),
        status="decided",
        decision=ScopeDecision(**_decision(), selected=[3]),
    ),
    MergeConflictCheckpoint(
        **_base("mc-1"),
        context=MergeConflictContext(
            issue_iid=2,
            issue_title="CLI",
            branch="feature/todo-issue-2",
            feature_branch="feature/todo",
            worktree="/srv/worktrees/issue-2",
            conflicts=["todo.py"],
            conflicts_so_far=2,
            diff=DiffExcerpt(
                stat=" todo.py | 2 +-", text="diff --cc todo.py", range="feature/todo...b"
            ),
        ),
        status="decided",
        decision=MergeConflictDecision(**_decision(), action=MergeConflictAction.RETRY),
    ),
]


def test_the_samples_cover_every_checkpoint_type() -> None:
    assert {checkpoint.type for checkpoint in CHECKPOINTS} == set(CheckpointType)


#: One fully populated example of every other persisted or transmitted model.
MODELS: list[BaseModel] = [
    SPEC,
    WorkspaceInfo(spec=SPEC, spec_slug="todo", feature_branch="feature/todo", created_at=WHEN),
    DRAFT,
    IssueNote(kind="handoff", body="next: tests", created_at=WHEN),
    TrackedIssue(
        iid=2,
        title="CLI",
        description=DRAFT.description(),
        state="closed",
        labels=["bug"],
        notes=[IssueNote(kind="research", body="r", created_at=WHEN)],
        created_at=WHEN,
        closed_at=WHEN,
    ),
    FileMilestone(
        title="Todo",
        description="the spec",
        issues=[TrackedIssue(iid=1, title="Parser", description="d", created_at=WHEN)],
        merge_request=MergeRequestRecord(
            iid=1,
            title="Todo",
            description="d",
            source_branch="feature/todo",
            target_branch="main",
            web_url="https://example.invalid/mr/1",
            created_at=WHEN,
        ),
        created_at=WHEN,
    ),
    RUN,
    CheckpointLog(entries=CHECKPOINTS),
    AgentState(
        phase=Phase.ISSUE_CLOSURE,
        test_command="pytest",
        issues={
            1: IssueWork(
                iid=1,
                commits=["a" * 40],
                baseline=RUN,
                tests=RUN,
                pre_session_dirty=["notes.txt"],
                regression=["t.py::a"],
            )
        },
        last_test_run=RUN,
        dismissed_checkpoints=["pv-1"],
        history=[
            Transition(
                from_phase=Phase.CODING, to_phase=Phase.ISSUE_CLOSURE, reason="gates", at=WHEN
            )
        ],
        updated_at=WHEN,
    ),
    AgentExit(pid=12, outcome="failed", exit_code=3, reason="tracker down", ended_at=WHEN),
    DaemonState(
        agents=[
            AgentRecord(
                name="agent_1",
                spec=SPEC,
                workspace=INFO.workspace,
                log_file=INFO.log_file,
                pid=4242,
                pid_start_ticks=99,
                started_at=WHEN,
            )
        ],
        next_number=2,
    ),
    DaemonStatusFile(pid=77, socket=Path("/tmp/h1/daemon.sock"), started_at=WHEN),
]


@pytest.mark.parametrize("model", MODELS, ids=lambda model: type(model).__name__)
def test_model_survives_a_json_round_trip(model: BaseModel) -> None:
    text = model.model_dump_json()

    again = type(model).model_validate_json(text)

    assert again == model
    assert again.model_dump_json() == text


@pytest.mark.parametrize("checkpoint", CHECKPOINTS, ids=lambda checkpoint: checkpoint.type.value)
def test_checkpoint_file_round_trip_restores_the_concrete_type(checkpoint: Checkpoint) -> None:
    text = CheckpointFile(checkpoint).model_dump_json(indent=2)

    again = CheckpointFile.model_validate_json(text).root

    assert type(again) is type(checkpoint)
    assert again == checkpoint


@pytest.mark.parametrize("checkpoint", CHECKPOINTS, ids=lambda checkpoint: checkpoint.type.value)
def test_checkpoint_adapter_picks_the_type_from_the_discriminator(checkpoint: Checkpoint) -> None:
    data = CheckpointAdapter.dump_python(checkpoint, mode="json")
    assert data["type"] == checkpoint.type.value

    again = CheckpointAdapter.validate_json(CheckpointAdapter.dump_json(checkpoint))

    assert type(again) is type(checkpoint)
    assert again == checkpoint


def test_checkpoint_log_keeps_the_concrete_type_of_each_entry() -> None:
    log = CheckpointLog.model_validate_json(CheckpointLog(entries=CHECKPOINTS).model_dump_json())

    assert [type(entry) for entry in log.entries] == [type(entry) for entry in CHECKPOINTS]


# --- rejection of bad data --------------------------------------------------------------


def _dump(model: BaseModel) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json")
    return data


def _without(data: dict[str, Any], key: str) -> dict[str, Any]:
    return {name: value for name, value in data.items() if name != key}


#: (model, data, the field the error must name). Each is one way a file can be wrong.
BAD_DATA: list[tuple[type[BaseModel], dict[str, Any], str]] = [
    (AgentSpec, {**_dump(SPEC), "spec_fle": "/x.md"}, "spec_fle"),
    (AgentSpec, {**_dump(SPEC), "file_only_mode": "sometimes"}, "file_only_mode"),
    (AgentSpec, _without(_dump(SPEC), "project_dir"), "project_dir"),
    (AgentSpec, {**_dump(SPEC), "target_branch": ""}, "target_branch"),
    (AgentSpec, {**_dump(SPEC), "max_iterations": 0}, "max_iterations"),
    (WorkspaceInfo, {**_dump(MODELS[1]), "colour": "red"}, "colour"),
    (WorkspaceInfo, {**_dump(MODELS[1]), "auto_accept": [True]}, "auto_accept"),
    (WorkspaceInfo, _without(_dump(MODELS[1]), "feature_branch"), "feature_branch"),
    (WorkspaceInfo, {**_dump(MODELS[1]), "schema_version": 2}, "schema_version"),
    (IssueDraft, {**_dump(DRAFT), "priority": 1}, "priority"),
    (IssueDraft, {**_dump(DRAFT), "test_criteria": "one"}, "test_criteria"),
    (IssueDraft, _without(_dump(DRAFT), "summary"), "summary"),
    (IssueDraft, {**_dump(DRAFT), "title": ""}, "title"),
    (IssueDraft, {**_dump(DRAFT), "title": "x" * 256}, "title"),
    (TrackedIssue, {**_dump(MODELS[4]), "assignee": "bob"}, "assignee"),
    (TrackedIssue, {**_dump(MODELS[4]), "iid": "one"}, "iid"),
    (TrackedIssue, _without(_dump(MODELS[4]), "description"), "description"),
    (TrackedIssue, {**_dump(MODELS[4]), "iid": 0}, "iid"),
    (TrackedIssue, {**_dump(MODELS[4]), "state": "reopened"}, "state"),
    (FileMilestone, {**_dump(MODELS[5]), "due": "never"}, "due"),
    (FileMilestone, {**_dump(MODELS[5]), "issues": {"1": "x"}}, "issues"),
    (FileMilestone, _without(_dump(MODELS[5]), "title"), "title"),
    (FileMilestone, {**_dump(MODELS[5]), "state": "archived"}, "state"),
    (TestRun, {**_dump(RUN), "duration_s": -1}, "duration_s"),
    (TestRun, {**_dump(RUN), "exit_code": "bad"}, "exit_code"),
    (AgentState, {**_dump(MODELS[8]), "phase": "sleeping"}, "phase"),
    (AgentState, {**_dump(MODELS[8]), "mood": "ok"}, "mood"),
    (AgentState, {**_dump(MODELS[8]), "issues": {"1": {"iid": "first"}}}, "iid"),
    (AgentState, {**_dump(MODELS[8]), "current_issue": 1}, "current_issue"),
    (AgentState, {**_dump(MODELS[8]), "schema_version": 0}, "schema_version"),
    (AgentExit, {**_dump(MODELS[9]), "outcome": "crashed"}, "outcome"),
    (AgentExit, _without(_dump(MODELS[9]), "exit_code"), "exit_code"),
    (AgentExit, {**_dump(MODELS[9]), "signal": 9}, "signal"),
    (DaemonState, {**_dump(MODELS[10]), "next_number": "two"}, "next_number"),
    (DaemonState, {**_dump(MODELS[10]), "agents": [{"name": "a"}]}, "spec"),
    (DaemonState, {**_dump(MODELS[10]), "owner": "me"}, "owner"),
    (DaemonStatusFile, _without(_dump(MODELS[11]), "socket"), "socket"),
    (DaemonStatusFile, {**_dump(MODELS[11]), "pid": "self"}, "pid"),
    (DaemonStatusFile, {**_dump(MODELS[11]), "host": "x"}, "host"),
    (CheckpointLog, {"entries": [{"type": "coffee_break"}]}, "entries"),
    (CheckpointLog, {"entries": [], "extra": 1}, "extra"),
]


@pytest.mark.parametrize(
    ("model_type", "data", "field"),
    BAD_DATA,
    ids=[f"{model.__name__}-{field}-{index}" for index, (model, _, field) in enumerate(BAD_DATA)],
)
def test_model_rejects_bad_data_naming_the_field(
    model_type: type[BaseModel], data: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        model_type.model_validate(data)

    assert field in {str(part) for error in caught.value.errors() for part in error["loc"]}


def _checkpoint_data(index: int, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = CheckpointAdapter.dump_python(CHECKPOINTS[index], mode="json")
    data.update(changes)
    return data


BAD_CHECKPOINTS: list[tuple[str, dict[str, Any], str]] = [
    ("unknown type", _checkpoint_data(0, type="coffee_break"), "type"),
    ("missing type", _without(_checkpoint_data(0), "type"), "type"),
    ("unknown field", _checkpoint_data(0, colour="red"), "colour"),
    ("wrong type", _checkpoint_data(1, what_happened="one line"), "what_happened"),
    ("missing id", _without(_checkpoint_data(5), "id"), "id"),
    ("bad status", _checkpoint_data(5, status="maybe"), "status"),
    (
        "context of another type",
        _checkpoint_data(4, context=_checkpoint_data(2)["context"]),
        "open_issues",
    ),
    (
        "decision without its action",
        _checkpoint_data(3, decision=_decision() | {"decided_at": WHEN.isoformat()}),
        "action",
    ),
    (
        "unknown regression action",
        _checkpoint_data(3, decision={**_checkpoint_data(3)["decision"], "action": "ignore"}),
        "action",
    ),
    (
        "enrichment_scope applies an issue it does not list",
        _checkpoint_data(9, decision={**_checkpoint_data(9)["decision"], "selected": [4]}),
        "not an issue of this checkpoint",
    ),
    (
        "enrichment_scope rejected with a selection",
        _checkpoint_data(9, decision={**_checkpoint_data(9)["decision"], "approved": False}),
        "applies no enrichment",
    ),
    (
        "bad tracker",
        _checkpoint_data(0, context={**_checkpoint_data(0)["context"], "tracker": "jira"}),
        "tracker",
    ),
]


@pytest.mark.parametrize(
    ("data", "field"),
    [(d, f) for _, d, f in BAD_CHECKPOINTS],
    ids=[n for n, _, _ in BAD_CHECKPOINTS],
)
def test_checkpoint_adapter_and_file_reject_bad_data(data: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as through_adapter:
        CheckpointAdapter.validate_python(data)
    with pytest.raises(ValidationError):
        CheckpointFile.model_validate(data)

    locations = {str(part) for error in through_adapter.value.errors() for part in error["loc"]}
    assert field in locations or any(
        field in error["msg"] for error in through_adapter.value.errors()
    )


# --- specific rules ---------------------------------------------------------------------


def test_agent_spec_makes_relative_and_home_paths_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    spec = AgentSpec.model_validate(
        {"spec_file": "specs/a.md", "project_dir": "~/proj", "target_branch": "main"}
    )

    assert spec.spec_file == tmp_path / "specs" / "a.md"
    assert spec.project_dir == Path.home() / "proj"
    assert spec.playbook is None
    assert not spec.uses_local_model


def test_spec_list_parses_the_specs_array_with_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = (
        '[{"spec_file": "a.md", "project_dir": ".", "target_branch": "main", "model": "local"},'
        ' {"spec_file": "/abs/b.md", "project_dir": "sub", "target_branch": "dev",'
        ' "playbook": "p.json"}]'
    )

    specs = SpecList.validate_json(text)

    assert [spec.spec_file for spec in specs] == [tmp_path / "a.md", Path("/abs/b.md")]
    assert [spec.project_dir for spec in specs] == [tmp_path, tmp_path / "sub"]
    assert specs[1].playbook == tmp_path / "p.json"
    assert [spec.uses_local_model for spec in specs] == [True, False]
    assert all(spec.spec_file.is_absolute() for spec in specs)


@pytest.mark.parametrize(
    "text",
    [
        '{"spec_file": "a.md", "project_dir": ".", "target_branch": "main"}',
        '[{"spec_file": "a.md", "project_dir": ".", "target_branch": "main", "typo": 1}]',
        '[{"spec_file": "a.md", "target_branch": "main"}]',
        "[",
    ],
    ids=["not-a-list", "unknown-field", "missing-project", "not-json"],
)
def test_spec_list_rejects_bad_specs(text: str) -> None:
    with pytest.raises(ValidationError):
        SpecList.validate_json(text)


def test_issue_draft_description_has_only_the_sections_the_spec_gave() -> None:
    draft = IssueDraft(
        title="Parser",
        summary="Parse numbers.",
        technical_notes=["Use re", "No eval"],
        open_questions=["Negative numbers?"],
    )

    assert draft.description() == (
        "## Summary\nParse numbers.\n\n"
        "## Technical Notes\n- Use re\n- No eval\n\n"
        "## Open Questions\n- Negative numbers?"
    )


def test_issue_draft_description_of_a_bare_draft_is_just_the_summary() -> None:
    assert IssueDraft(title="t", summary="Only this.").description() == "## Summary\nOnly this."


def test_issue_draft_description_lists_all_sections_in_template_order() -> None:
    draft = IssueDraft(
        title="t",
        summary="s",
        requirement_details=["r"],
        technical_notes=["n"],
        user_facing_behavior=["u"],
        test_criteria=["c"],
        open_questions=["q"],
    )

    headings = [line for line in draft.description().splitlines() if line.startswith("## ")]

    assert headings == [
        "## Summary",
        "## Requirement Details",
        "## Technical Notes",
        "## User-Facing Behavior",
        "## Test Criteria",
        "## Open Questions",
    ]


def test_an_approved_selection_must_name_an_issue() -> None:
    with pytest.raises(ValidationError, match="names an issue"):
        SelectionDecision(approved=True, decided_by="cli:ada")

    rejected = SelectionDecision(approved=False, decided_by="cli:ada")
    assert rejected.issue_iid is None


def test_a_regression_decision_cannot_be_a_plain_reject() -> None:
    with pytest.raises(ValidationError, match="choose an action"):
        RegressionDecision(approved=False, decided_by="cli:ada", action=RegressionAction.ABORT)

    chosen = RegressionDecision(approved=True, decided_by="cli:ada", action="abort")
    assert chosen.action is RegressionAction.ABORT


def test_a_decision_names_the_rule_that_decided_or_none_for_a_person() -> None:
    person = Decision(approved=True, decided_by="cli:ada")
    assert person.rule is None

    ruled = ClosureDecision(
        approved=True, decided_by="auto-accept", rule="auto-accept: issue_closure=approve"
    )
    again = ClosureDecision.model_validate_json(ruled.model_dump_json())
    assert again.rule == "auto-accept: issue_closure=approve"
    # a decision recorded before the field existed loads with no rule
    assert Decision.model_validate({"approved": False, "decided_by": "tui:ada"}).rule is None


def test_regression_context_offers_every_action_by_default() -> None:
    context = RegressionApprovalContext(
        issue_iid=1, issue_title="t", newly_failing=[], test_run=RUN
    )

    assert context.actions == [
        RegressionAction.FIX_NOW,
        RegressionAction.DEFER,
        RegressionAction.ABORT,
    ]


def test_models_validate_assignments_too() -> None:
    state = AgentState()

    with pytest.raises(ValidationError):
        state.phase = "nowhere"  # type: ignore[assignment]


EXPECTED_STAGES: dict[Phase, Stage] = {
    Phase.PROJECT_VERIFICATION: Stage.INITIALIZER,
    Phase.SPEC_TO_ISSUES: Stage.INITIALIZER,
    Phase.ISSUE_ENRICHMENT: Stage.INITIALIZER,
    Phase.CREATE_BRANCH: Stage.INITIALIZER,
    Phase.ISSUE_SELECTION: Stage.CODING,
    Phase.CODING: Stage.CODING,
    Phase.REGRESSION_APPROVAL: Stage.CODING,
    Phase.ISSUE_CLOSURE: Stage.CODING,
    Phase.MR_PHASE_TRANSITION: Stage.MR,
    Phase.MR_REVIEW: Stage.MR,
    Phase.MR_CREATE: Stage.MR,
    Phase.DONE: Stage.END,
    Phase.FAILED: Stage.END,
}


@pytest.mark.parametrize("phase", list(Phase), ids=lambda phase: phase.value)
def test_every_phase_belongs_to_its_stage(phase: Phase) -> None:
    assert phase.stage is EXPECTED_STAGES[phase]


def test_a_fresh_agent_state_starts_at_project_verification() -> None:
    state = AgentState()

    assert state.phase is Phase.PROJECT_VERIFICATION
    assert state.history == []
    assert state.issue is None
    assert state.updated_at.tzinfo is not None


def test_test_run_passes_only_on_exit_status_zero() -> None:
    assert RUN.model_copy(update={"exit_code": 0}).passed
    assert not RUN.passed
    assert not RUN.model_copy(update={"exit_code": 5}).passed


def test_daemon_status_file_carries_the_protocol_version() -> None:
    status = DaemonStatusFile(pid=1, socket=Path("/tmp/s.sock"))

    assert status.protocol_version == PROTOCOL_VERSION
    assert status.started_at.tzinfo is not None


# --- protocol ---------------------------------------------------------------------------

REQUESTS: list[Request] = [
    ListRequest(id=0),
    StartRequest(id=1, spec=SPEC),
    StopRequest(id=2, agent="agent_1"),
    StatusRequest(id=3, agent="agent_1"),
    RemoveRequest(id=4, agent="agent_1"),
    SetAutoAcceptRequest(id=5, agent="agent_1", enabled=True),
    SubscribeRequest(id=6),
    ShutdownRequest(id=7),
]
REPLIES: list[Reply] = [
    Hello(daemon_pid=10),
    ErrorReply(id=None, message="bad frame"),
    OkReply(id=1),
    AgentReply(id=2, agent=INFO),
    AgentsReply(id=3, agents=[INFO, INFO.model_copy(update={"name": "agent_2"})]),
    AgentEvent(id=4, agent=INFO, removed=True),
]


@pytest.mark.parametrize("request_", REQUESTS, ids=lambda request_: request_.type)
def test_request_round_trips_through_its_union(request_: Request) -> None:
    frame = RequestAdapter.dump_json(request_)

    again = RequestAdapter.validate_json(frame)

    assert type(again) is type(request_)
    assert again == request_


@pytest.mark.parametrize("reply", REPLIES, ids=lambda reply: reply.type)
def test_reply_round_trips_through_its_union(reply: Reply) -> None:
    frame = ReplyAdapter.dump_json(reply)

    again = ReplyAdapter.validate_json(frame)

    assert type(again) is type(reply)
    assert again == reply


def test_the_request_and_reply_unions_cover_every_type() -> None:
    assert {r.type for r in REQUESTS} == {
        "list",
        "start",
        "stop",
        "status",
        "remove",
        "set_auto_accept",
        "subscribe",
        "shutdown",
    }
    assert {r.type for r in REPLIES} == {"hello", "error", "ok", "agent", "agents", "agent_event"}


def test_only_single_replies_are_final_and_streams_are_not() -> None:
    finals = {type(reply).__name__: reply.final for reply in REPLIES}

    assert finals == {
        "Hello": False,
        "ErrorReply": True,
        "OkReply": True,
        "AgentReply": True,
        "AgentsReply": True,
        "AgentEvent": False,
    }
    assert Hello(daemon_pid=1).protocol_version == PROTOCOL_VERSION


@pytest.mark.parametrize(
    ("adapter", "frame"),
    [
        (RequestAdapter, '{"type": "dance", "id": 1}'),
        (RequestAdapter, '{"id": 1}'),
        (RequestAdapter, '{"type": "list", "id": -1}'),
        (RequestAdapter, '{"type": "list"}'),
        (RequestAdapter, '{"type": "list", "id": 1, "extra": true}'),
        (RequestAdapter, '{"type": "stop", "id": 1}'),
        (RequestAdapter, '{"type": "set_auto_accept", "id": 1, "agent": "a", "enabled": "maybe"}'),
        (RequestAdapter, '{"type": "start", "id": 1, "spec": {"spec_file": "a.md"}}'),
        (ReplyAdapter, '{"type": "ok"}'),
        (ReplyAdapter, '{"type": "bye", "id": 1}'),
        (ReplyAdapter, '{"type": "error", "message": "no id key"}'),
        (ReplyAdapter, '{"type": "hello", "daemon_pid": "me"}'),
        (ReplyAdapter, '{"type": "agents", "id": 1, "agents": [{"name": "a"}]}'),
    ],
    ids=[
        "unknown-request-type",
        "request-without-type",
        "negative-id",
        "request-without-id",
        "request-unknown-field",
        "stop-without-agent",
        "enabled-not-bool",
        "start-incomplete-spec",
        "ok-without-id",
        "unknown-reply-type",
        "error-without-id-key",
        "hello-bad-pid",
        "agents-incomplete-info",
    ],
)
def test_protocol_unions_reject_malformed_frames(adapter: TypeAdapter[Any], frame: str) -> None:
    with pytest.raises(ValidationError):
        adapter.validate_json(frame)


def test_start_request_makes_the_spec_paths_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    request_ = RequestAdapter.validate_json(
        '{"type": "start", "id": 9, "spec":'
        ' {"spec_file": "s.md", "project_dir": "p", "target_branch": "main"}}'
    )

    assert isinstance(request_, StartRequest)
    assert request_.spec.spec_file == tmp_path / "s.md"
    assert request_.spec.project_dir == tmp_path / "p"
