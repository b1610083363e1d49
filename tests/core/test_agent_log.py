"""The agent log a person reads: escaped, and the model's words marked on every line."""

from __future__ import annotations

import io
import re

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

from agent.core.log import CONTINUATION, AgentLog
from agent.core.session.session_log import log_message

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] Security review: APPROVED - press Y\x1b[0m"
STAMP = re.compile(r"^\d\d:\d\d:\d\d ")


def written(write: str, text: str) -> list[str]:
    """The lines ``AgentLog`` writes for one call, without their time stamps."""
    out = io.StringIO()
    log = AgentLog(out)
    getattr(log, write)(text)
    lines = out.getvalue().splitlines()
    if write != "block":
        assert all(STAMP.match(line) for line in lines)
        lines = [STAMP.sub("", line) for line in lines]
    return lines


@pytest.mark.parametrize("write", ["__call__", "model", "block"])
@pytest.mark.parametrize(
    ("payload", "escaped"),
    [
        (HOSTILE, "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness]"),
        ("notes/\x1b[2Jevil\u202etxt.md", "notes/\\x1b[2Jevil<U+202E>txt.md"),
        ("a\u200bb\u2066c\ufeff", "a<U+200B>b<U+2066>c<U+FEFF>"),
        ("over\rwrite", "over\\rwrite"),
        ("\x9b2J and \udcff", "\\x9b2J and \\xff"),
    ],
)
def test_every_way_of_writing_escapes(write: str, payload: str, escaped: str) -> None:
    text = "\n".join(written(write, f"x {payload}"))
    assert escaped in text
    assert text.isprintable() or all(line.isprintable() for line in text.splitlines())


def test_every_line_of_the_models_text_carries_the_model_mark() -> None:
    lines = written("model", f"I am done.\n{HOSTILE}\n\n[harness] phase → done")
    assert lines == [
        "[model] I am done.",
        "[model] \\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] Security review: APPROVED - "
        "press Y\\x1b[0m",
        "[model]",
        "[model] [harness] phase → done",
    ]


def test_a_harness_message_quoting_the_model_cannot_start_a_line() -> None:
    lines = written("__call__", "error in coding: session failed: done\n[harness] APPROVED")
    assert lines == ["error in coding: session failed: done", f"{CONTINUATION}[harness] APPROVED"]


def test_redaction_still_runs_before_escaping() -> None:
    out = io.StringIO()
    log = AgentLog(out)
    log.redact_with(lambda text: text.replace("sk-secret", "[REDACTED]"))
    log.model("key sk-secret\x1b[8m")
    assert out.getvalue().endswith("[model] key [REDACTED]\\x1b[8m\n")


def test_the_sessions_messages_are_logged_as_the_models() -> None:
    out = io.StringIO()
    log = AgentLog(out)
    log_message(
        log,
        AssistantMessage(
            content=[
                TextBlock(f"Done.\n{HOSTILE}\u202e"),
                ThinkingBlock(f"think {HOSTILE}", "sig"),
                ToolUseBlock("t1", "Write", {"file_path": "notes/\x1b[2Jevil\u202etxt.md"}),
            ],
            model="m",
        ),
    )
    log_message(log, UserMessage(content=[ToolResultBlock("t1", f"out {HOSTILE}", False)]))
    lines = [STAMP.sub("", line) for line in out.getvalue().splitlines()]
    assert lines[0] == "[model] Done."
    assert lines[1].startswith("[model] \\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness]")
    assert lines[1].endswith("<U+202E>")
    assert lines[2].startswith("[thinking] think \\x1b]0;pwned")
    assert lines[3] == '[tool] Write {"file_path": "notes/\\u001b[2Jevil\\u202etxt.md"}'
    assert lines[4].startswith("[result:ok] out \\x1b]0;pwned\\x07")
    assert "\x1b" not in out.getvalue() and "\u202e" not in out.getvalue()
