"""Credentials (detect-secrets and the configured secrets) and a person's per-file choices."""

from __future__ import annotations

import pytest

from agent.core.outbound.secret_scan import credential_findings, exact_findings, scanned_name
from common.errors import CheckpointError
from common.schemas.checkpoint import (
    ClosureDecision,
    IssueClosureCheckpoint,
    IssueClosureContext,
    MrReviewCheckpoint,
    MrReviewContext,
)
from common.schemas.outbound import FileChoice, Finding, FindingKind, FlaggedFile
from common.workspace import checkpoints
from common.workspace.decisions import (
    choice_decision,
    default_decision,
    file_choices,
    reject_decision,
    waits_for_person,
)

AWS_ID = "AKIA" + "QWERTYUIOPASDFGH"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----\n"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize(
    ("path", "content", "kind"),
    [
        ("app/settings.py", f'KEY = "{AWS_ID}"\n', "AWS Access Key"),
        ("deploy/key.pem", PEM, "Private Key"),
        ("ci/env.yml", f"token: {GITHUB}\n", "GitHub Token"),
    ],
)
def test_the_scanner_finds_credentials_and_never_shows_them(
    path: str, content: str, kind: str
) -> None:
    found = credential_findings(path, content.encode())
    assert found, content
    assert all(item.kind is FindingKind.SECRET for item in found)
    assert any(kind in item.reason for item in found)
    for item in found:
        assert AWS_ID not in item.reason and GITHUB not in item.reason
        assert "MIIE" not in item.reason


@pytest.mark.parametrize(
    "path",
    ["package-lock.json", "swagger.json", "logo.png", "notes.md"],
)
def test_a_name_or_an_allowlist_comment_does_not_hide_a_credential(path: str) -> None:
    content = f'"k": "{AWS_ID}"  # pragma: allowlist secret\n'.encode()
    assert credential_findings(path, content), path


@pytest.mark.parametrize(
    "content",
    [
        b"def add(a, b):\n    return a + b\n",
        b'password = os.environ["DB_PASSWORD"]\n',
        b"sha = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'\n",
        b"id = '123e4567-e89b-12d3-a456-426614174000'\n",
    ],
)
def test_ordinary_code_has_no_credential(content: bytes) -> None:
    assert credential_findings("src/app.py", content) == []


def test_scanned_under_a_neutral_name() -> None:
    assert scanned_name("a/b/package-lock.json") == "scanned.txt"
    assert scanned_name("ci/env.YML") == "scanned.yml"


def test_configured_secrets_are_found_in_any_form_and_counted_not_shown() -> None:
    secret = "glpat-Zx9vQ2mN8kL4pR7tY1wE"
    assert exact_findings(f"TOKEN={secret}\n".encode(), [secret])[0].reason == (
        "1 secret(s) the harness was configured with (value not shown)"
    )
    assert exact_findings(b"url=https://x/?t=glpat-Zx9vQ2mN8kL4pR7tY1wE", [secret])
    assert exact_findings(b"nothing here", [secret]) == []
    assert exact_findings(b"short abc", ["abc"]) == []


FLAGGED = [
    FlaggedFile(
        path=".github/workflows/ci.yml",
        findings=[Finding(kind=FindingKind.PROTECTED_PATH, reason="CI configuration")],
    ),
    FlaggedFile(
        path="src/keys.py", findings=[Finding(kind=FindingKind.SECRET, reason="AWS Access Key")]
    ),
]


def closure(
    flagged: list[FlaggedFile], budget: list[Finding] | None = None
) -> IssueClosureCheckpoint:
    return IssueClosureCheckpoint(
        id="issue_closure-9",
        what_happened=["done"],
        to_decide="Close?",
        if_approved="closed",
        if_rejected="again",
        context=IssueClosureContext(
            issue_iid=1,
            issue_title="t",
            commit_sha="a" * 40,
            commit_message="feat",
            files_changed=[],
            diff_stat="",
            diff="",
            flagged=flagged,
            issue_findings=budget or [],
        ),
    )


def test_auto_accept_waits_for_a_person_on_flagged_files_and_budgets() -> None:
    assert waits_for_person(closure([])) == []
    assert waits_for_person(closure(FLAGGED)) == [
        "flagged: .github/workflows/ci.yml",
        "flagged: src/keys.py",
    ]
    budget = [Finding(kind=FindingKind.DIFF_BUDGET, reason="3,000 changed lines")]
    assert waits_for_person(closure([], budget)) == ["3,000 changed lines"]
    review = MrReviewCheckpoint(
        id="mr_review-3",
        what_happened=[],
        to_decide="Create?",
        if_approved="created",
        if_rejected="again",
        context=MrReviewContext(
            title="t",
            description="d",
            source_branch="f",
            target_branch="main",
            commits=[],
            flagged=FLAGGED[:1],
        ),
    )
    assert waits_for_person(review) == ["flagged on the branch: .github/workflows/ci.yml"]


def test_the_default_for_flagged_files_is_wait_and_it_cannot_be_recorded() -> None:
    shown = closure(FLAGGED)
    default = default_decision(shown, "tui:alice")
    assert isinstance(default, ClosureDecision)
    assert set(default.files.values()) == {FileChoice.WAIT}
    with pytest.raises(CheckpointError, match="choose approve or exclude for every flagged file"):
        checkpoints.decided(shown, default)
    plain = default_decision(closure([]), "auto-accept")
    assert checkpoints.decided(closure([]), plain).status == "decided"


def test_a_choice_per_file() -> None:
    shown = closure(FLAGGED)
    decision = choice_decision(
        shown, "approve=src/keys.py; exclude=.github/workflows/ci.yml", "cli:bob"
    )
    assert isinstance(decision, ClosureDecision)
    assert decision.files == {
        "src/keys.py": FileChoice.APPROVE,
        ".github/workflows/ci.yml": FileChoice.EXCLUDE,
    }
    assert checkpoints.decided(shown, decision).status == "decided"
    rest = file_choices("approve=src/keys.py\nexclude=*", [item.path for item in FLAGGED])
    assert rest[".github/workflows/ci.yml"] is FileChoice.EXCLUDE


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ("approve=src/keys.py", "no choice for: .github/workflows/ci.yml"),
        ("allow=*", "unknown file choice"),
        ("wait=*", "unknown file choice"),
        ("approve=other.py;exclude=*", "not a flagged file"),
        ("approve", "unknown file choice"),
    ],
)
def test_a_choice_that_does_not_fit_is_one_clear_line(choice: str, message: str) -> None:
    with pytest.raises(CheckpointError, match=message):
        choice_decision(closure(FLAGGED), choice, "cli:bob")


def test_no_flagged_file_takes_no_file_choice_and_reject_sends_back() -> None:
    with pytest.raises(CheckpointError, match="issue_closure takes no choice"):
        choice_decision(closure([]), "approve=*", "cli:bob")
    rejected = reject_decision(closure(FLAGGED), "cli:bob", "remove the key")
    answered = checkpoints.decided(closure(FLAGGED), rejected)
    assert isinstance(answered.decision, ClosureDecision) and not answered.decision.approved
    assert answered.decision.files == {}
