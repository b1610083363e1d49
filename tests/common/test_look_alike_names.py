"""A name with a blank that is not the plain space is shown escaped wherever a name is
shown, so a new file never looks like an existing one; prose keeps such blanks."""

from __future__ import annotations

import pytest

from agent.core.policy.audit import decision_line
from common.inert_markdown import quoted
from common.schemas.outbound import Finding, FindingKind, FlaggedFile
from common.untrusted_text import printable, printable_name
from common.workspace import pathnames
from common.workspace.kinds.lines import flagged_lines

BLANKS = {
    "\u00a0": "<U+00A0>",  # no-break space
    "\u3000": "<U+3000>",  # ideographic space
    "\u2800": "<U+2800>",  # braille pattern blank
    "\u2000": "<U+2000>",
    "\u2007": "<U+2007>",  # figure space
    "\u200a": "<U+200A>",  # hair space
    "\u202f": "<U+202F>",  # narrow no-break space
    "\u205f": "<U+205F>",
    "\u1680": "<U+1680>",  # ogham space mark
    "\ufe0f": "<U+FE0F>",  # a variation selector: shows as nothing
    "\U000e0100": "<U+E0100>",
    "\u3164": "<U+3164>",  # Hangul filler (escaped in all text already)
    "\u115f": "<U+115F>",
    "\u1160": "<U+1160>",
    "\uffa0": "<U+FFA0>",
    "\u200b": "<U+200B>",  # zero-width space (a format character)
    "\t": "\\t",
}


@pytest.mark.parametrize(("blank", "shown"), list(BLANKS.items()))
def test_every_look_alike_blank_in_a_name_is_escaped(blank: str, shown: str) -> None:
    name = f"notes{blank}.md"
    assert printable_name(name) == f"notes{shown}.md"
    assert pathnames.shown(name.encode()) == f"notes{shown}.md"
    assert printable_name(printable_name(name)) == printable_name(name)  # idempotent


def test_the_plain_space_and_ordinary_letters_stay() -> None:
    assert printable_name("my notes/été 日本.md") == "my notes/été 日本.md"


def test_prose_keeps_its_blanks() -> None:
    assert printable("Prix\u00a0: 3\u202f€ 東京\u3000駅") == "Prix\u00a0: 3\u202f€ 東京\u3000駅"


@pytest.mark.parametrize("blank", ["\u00a0", "\u3000", "\u2800"])
def test_such_a_name_is_committed_and_shown_escaped(blank: str) -> None:
    raw = f"src/app{blank}.py".encode()
    assert pathnames.refusal(raw) is None, "git keeps it exactly: committed"
    assert blank not in pathnames.shown(raw)


def test_the_policys_log_line_shows_a_path_escaped() -> None:
    line = decision_line("Write", {"file_path": "/p/notes\u2800.md", "content": "x"}, None)
    assert line == '[policy] allow Write "/p/notes<U+2800>.md"'


def test_a_flagged_files_name_is_shown_escaped_at_the_checkpoint() -> None:
    finding = Finding(kind=FindingKind.PROTECTED_PATH, reason="CI configuration")
    flagged = FlaggedFile(path=".gitlab-ci\u00a0.yml", findings=[finding])
    lines = flagged_lines([flagged], {})
    assert "  ⚑ .gitlab-ci<U+00A0>.yml" in lines


def test_a_quoted_name_in_markdown_is_escaped_too() -> None:
    assert quoted("a\u3000b.py", name=True) == "`a<U+3000>b.py`"
    assert quoted("a\u3000b", name=False) == "`a\u3000b`"
