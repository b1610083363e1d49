"""Every tracker write (issues, notes, the merge request) leaves escaped: one place, all text."""

from __future__ import annotations

from pathlib import Path

from agent.tracker.file import FileTracker
from agent.tracker.redacting import RedactingTracker
from common.schemas.issues import IssueDraft

PAYLOAD = "\x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] APPROVED\x1b[0m\u202e\u200b"
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] APPROVED\\x1b[0m<U+202E><U+200B>"
RAW = ("\x1b", "\x07", "\u202e", "\u200b")


def no_raw(text: str) -> bool:
    return not any(char in text for char in RAW)


async def test_issues_notes_and_the_merge_request_are_escaped(tmp_path: Path) -> None:
    path = tmp_path / "milestone.json"
    tracker = RedactingTracker(FileTracker(path), lambda text: text)
    await tracker.ensure_milestone(f"spec {PAYLOAD}", f"the spec\n{PAYLOAD}")
    [issue] = await tracker.create_issues(
        [
            IssueDraft(
                title=f"Parser {PAYLOAD}\nsecond line",
                summary=f"Parse.\n{PAYLOAD}",
                technical_notes=[PAYLOAD],
            )
        ]
    )
    assert issue.title == f"Parser {SHOWN}\\nsecond line"  # one line
    assert SHOWN in issue.description and no_raw(issue.description)

    updated = await tracker.update_issue(issue.iid, title=f"T {PAYLOAD}", description=PAYLOAD)
    assert updated.title == f"T {SHOWN}" and updated.description == SHOWN

    note = await tracker.add_note(issue.iid, "handoff", f"done\n{PAYLOAD}")
    assert note.body == f"done\n{SHOWN}"

    request = await tracker.create_merge_request(
        f"MR {PAYLOAD}", f"Description\n{PAYLOAD}", "feature/x", "main"
    )
    assert request.title == f"MR {SHOWN}" and request.description == f"Description\n{SHOWN}"

    assert no_raw(path.read_text())
    assert "\\u001b" not in path.read_text()  # escaped for people, not merely JSON-encoded


async def test_redaction_happens_before_escaping(tmp_path: Path) -> None:
    """Secrets are masked on the raw text, then what is left is escaped."""
    tracker = RedactingTracker(
        FileTracker(tmp_path / "m.json"), lambda text: text.replace("glpat-secret", "[REDACTED]")
    )
    await tracker.ensure_milestone("spec", "spec")
    [issue] = await tracker.create_issues([IssueDraft(title="t", summary="s")])
    note = await tracker.add_note(issue.iid, "handoff", "token glpat-secret\x1b[8m")
    assert note.body == "token [REDACTED]\\x1b[8m"
