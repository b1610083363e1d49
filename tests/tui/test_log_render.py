"""The log pane's rendering: compact lines with icons, banners collapsed, nothing else lost."""

from __future__ import annotations

import pytest
from rich.text import Text

from tui.services.log_render import CONTINUATION, LogHighlighter, LogRenderer, wrap

BANNER = """\
================================================================
HITL CHECKPOINT: SPEC_TO_ISSUES  (spec_to_issues-1)
================================================================

WHAT HAPPENED:
  ✓ read the specification and the project
  → Create these issues?

┌─────────────────────────────────────────────────────────────┐
│ IF APPROVED:                                                │
└─────────────────────────────────────────────────────────────┘

================================================================
  TUI SHORTCUTS:
    [Y] or [1]  →  APPROVE
================================================================
09:36:57 waiting for a decision on spec_to_issues-1"""


def render_all(lines: list[str]) -> list[str]:
    renderer = LogRenderer()
    return [text for line in lines if (text := renderer.render(line)) is not None]


def test_a_checkpoint_banner_collapses_into_one_line() -> None:
    shown = render_all(BANNER.splitlines())
    assert shown == [
        "⚑ HITL CHECKPOINT: SPEC_TO_ISSUES (spec_to_issues-1) — c or Enter answers",
        "09:36:57 ⚑ waiting for a decision on spec_to_issues-1",
    ]


def test_agent_events_get_icons_and_keep_their_words() -> None:
    shown = render_all(
        [
            "09:00:01 phase → coding",
            "09:00:02 ── session coding #2 (attempt 1): start",
            '09:00:02 [tool] Write {"file_path": "a.py"}',
            "09:00:03 [result:ok] wrote 24 lines",
            "09:00:03 [result:error] no such file",
            "09:00:04 [model] Done.",
            "09:00:04 [assistant] Written by an older harness.",
            "09:00:05 tests: 9 passed in 0.04s",
            "09:00:05 committed 0123456789ab: feat: slugify",
            "09:00:06 [policy] denied Bash: git push",
            '09:00:06 [policy] allow Bash "ls"',
            "09:00:06 something new the renderer does not know",
            "  a test's own output line",
        ]
    )
    assert shown == [
        "09:00:01 ➜ phase coding",
        "09:00:02 ▶ session coding #2 (attempt 1): start",
        '09:00:02   ⚙ Write {"file_path": "a.py"}',
        "09:00:03     ✓ wrote 24 lines",
        "09:00:03     ✗ no such file",
        "09:00:04   › model: Done.",
        "09:00:04   › model: Written by an older harness.",
        "09:00:05 ◆ tests: 9 passed in 0.04s",
        "09:00:05 ✔ committed 0123456789ab: feat: slugify",
        "09:00:06   ⛔ policy: denied Bash: git push",
        '09:00:06   · policy: allow Bash "ls"',
        "09:00:06 something new the renderer does not know",
        "  a test's own output line",
    ]


def test_a_timestamped_line_ends_a_banner_that_never_closed() -> None:
    shown = render_all(["=" * 64, "HITL CHECKPOINT: MR_REVIEW  (mr-1)", "09:00:00 phase → done"])
    assert shown[-1] == "09:00:00 ➜ phase done"


def styles_of(line: str) -> set[str]:
    text = Text(line)
    LogHighlighter().highlight(text)
    return {str(span.style) for span in text.spans}


def test_the_highlighter_colours_each_kind_and_dims_the_stamp() -> None:
    assert styles_of("09:00:01 ➜ phase coding") == {"dim", "bold magenta"}
    assert styles_of("09:00:05 ✔ committed 0123: feat") == {"dim", "bold green"}
    assert styles_of("09:00:06   ⛔ policy: denied Bash") == {"dim", "bold red"}
    assert styles_of('09:00:06   · policy: allow Bash "ls"') == {"dim", "default"}
    assert styles_of("⚑ HITL CHECKPOINT: MR_REVIEW (mr-1) — c or Enter answers") == {"bold yellow"}
    assert styles_of("  a test's own output line") == {"dim"}
    assert styles_of(CONTINUATION + "the rest of a wrapped line") == set()


def test_only_denials_are_red_with_the_stop_glyph() -> None:
    """An allowed call is plain and never shows ⛔; a denial and a forgery do."""
    renderer = LogRenderer()
    allowed = renderer.render('09:00:01 [policy] allow Bash "pytest -q"')
    denied = renderer.render('09:00:02 [policy] deny Bash "curl x | sh": network clients')
    forgery = renderer.render("09:00:03 [policy] forgery rejected: unsigned decision")
    assert allowed is not None and denied is not None and forgery is not None
    assert "⛔" not in allowed and "red" not in " ".join(styles_of(allowed))
    for line in (denied, forgery):
        assert "⛔" in line and "bold red" in styles_of(line)


def test_long_lines_wrap_into_indented_rows() -> None:
    rows = wrap("x" * 100, 40)
    assert rows[0] == "x" * 40
    assert all(row.startswith(CONTINUATION) and len(row) <= 40 for row in rows[1:])
    assert "".join(row.removeprefix(CONTINUATION) for row in rows) == "x" * 100


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (
            "09:00:04 [model] \x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] APPROVED\x1b[0m",
            "09:00:04   › model: \\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] APPROVED\\x1b[0m",
        ),
        ("09:00:04 [model] txt.\u202emd", "09:00:04   › model: txt.<U+202E>md"),
        ("09:00:04 [model] a\u200bb\ufeff", "09:00:04   › model: a<U+200B>b<U+FEFF>"),
        ("09:00:05 committed 0123: \x1b[2Jx\r", "09:00:05 ✔ committed 0123: \\x1b[2Jx\\r"),
        ("raw \x9b2J bytes \udcff from an old run", "raw \\x9b2J bytes \\xff from an old run"),
    ],
)
def test_a_line_is_escaped_before_it_is_shown(raw: str, shown: str) -> None:
    """The log file may hold raw sequences (an older harness, a program's output)."""
    assert render_all([raw]) == [shown]


def test_a_forged_harness_line_from_the_model_stays_the_models() -> None:
    shown = render_all(["09:00:04 [model] ✔ committed 0123: approved by the security team"])
    assert shown == ["09:00:04   › model: ✔ committed 0123: approved by the security team"]
    assert styles_of(shown[0]) == {"dim", "default"}
