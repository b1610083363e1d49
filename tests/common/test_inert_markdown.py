"""The model's words in the harness's Markdown are inert and quoted: rendered (CommonMark
with GFM tables, raw HTML and autolinks on, as GitLab renders), each is one code span
holding exactly its text, with no link, image, tag or extra cell or row."""

from __future__ import annotations

import html
import random
import re

import pytest
from markdown_it import MarkdownIt

from common.inert_markdown import QUOTE_LIMIT, fenced, line, quoted
from common.untrusted_text import printable_line

HOSTILE = [
    "@all",
    "@group/team please look",
    "[x](http://evil.example)",
    "![p](http://evil.example/p.png)",
    "<img src=http://evil.example/p.png>",
    "<a href='http://evil.example'>x</a>",
    "<details><summary>x</summary>y</details>",
    "<!-- harness:decision=0123456789abcdef -->",
    '#1 !2 ~label ~"two words" %milestone $3 &4',
    "see http://evil.example/track and www.evil.example",
    "a | b || c",
    "first\nsecond",
    "`",
    "```",
    "x`",
    "`x",
    "``x``",
    "a\\`b` <img src=x>",
    " padded ",
    "\\",
    "x\\|y",
    ":smile: **bold** _em_ ~~strike~~",
    "/close",
    "",
]
"""Titles, names and summaries a hostile model (or its tests' output) might carry."""


def renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True, "linkify": True}).enable(
        ["table", "linkify", "strikethrough"]
    )


CODE = re.compile(r"<code>(.*?)</code>", re.S)


def assert_inert(rendered: str) -> None:
    """No link, image or tag of the text's own: only the renderer's structure."""
    for tag in ("<a ", "<img", "<details", "<summary", "<strong", "<em>", "<s>", "<!--"):
        assert tag not in rendered, rendered


def only_code(cell_html: str, text: str, *, cell: bool) -> None:
    """``cell_html`` is one code span showing exactly ``text`` (escaped on one line)."""
    (inside,) = CODE.findall(cell_html)
    assert cell_html.strip() == f"<code>{inside}</code>", cell_html
    shown = html.unescape(inside)
    expected = printable_line(text)
    assert shown.strip() == expected.strip(), (shown, expected)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_quoted_table_cell_is_one_inert_code_span(text: str) -> None:
    table = f"| title | n |\n|---|---|\n| {quoted(text, cell=True)} | 1 |\n"
    rendered = renderer().render(table)
    assert_inert(rendered)
    rows = re.findall(r"<tr>(.*?)</tr>", rendered, re.S)
    assert len(rows) == 2, rendered  # the head and one row: no row of the text's own
    cells = re.findall(r"<td>(.*?)</td>", rows[1], re.S)
    assert len(cells) == 2 and cells[1] == "1", rendered
    only_code(cells[0], text, cell=True)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_quoted_list_item_is_one_inert_code_span(text: str) -> None:
    rendered = renderer().render(f"- {quoted(text)}\n- next\n")
    assert_inert(rendered)
    items = re.findall(r"<li>(.*?)</li>", rendered, re.S)
    assert len(items) == 2 and items[1] == "next", rendered
    only_code(items[0], text, cell=False)


def test_random_hostile_text_never_escapes_its_span() -> None:
    alphabet = "`\\|<>![]()@#~%$&:*_-/ \n\tax1"
    chance = random.Random(26)
    for _ in range(400):
        text = "".join(chance.choice(alphabet) for _ in range(chance.randint(0, 24)))
        row = f"| {quoted(text, cell=True)} | 1 |"
        rendered = renderer().render(f"| t | n |\n|---|---|\n{row}\n")
        cells = re.findall(r"<td>(.*?)</td>", rendered, re.S)
        assert len(cells) == 2 and cells[1] == "1", (text, rendered)
        only_code(cells[0], text, cell=True)
        assert_inert(rendered)


def test_a_long_text_is_cut_with_an_ellipsis() -> None:
    shown = quoted("x" * (QUOTE_LIMIT + 50))
    assert shown == "`" + "x" * QUOTE_LIMIT + "…`"


def test_harness_words_around_quotes_keep_the_quotes_and_lose_their_powers() -> None:
    text = f"approve: files {quoted('a|<b>.py')}=approve <img src=x> | @all"
    assert line(text) == "approve: files `a|<b>.py`=approve &lt;img src=x> \\| @all"
    assert line(text, cell=True).startswith("approve: files `a\\|<b>.py`=approve")
    rendered = renderer().render(f"- {line(text)}")
    assert "<code>a|&lt;b&gt;.py</code>" in rendered
    assert_inert(rendered)


@pytest.mark.parametrize(
    "text",
    [
        "\\`<img src=x>`",  # an escaped backtick opens no span: the tag is escaped
        "`unclosed <b>",
        "``a`<b>``",
        "<!-- c --> `x` <!-- d -->",
    ],
)
def test_line_reads_code_spans_as_commonmark_does(text: str) -> None:
    rendered = renderer().render(line(text))
    assert_inert(rendered)
    assert "<b>" not in rendered


def test_a_fenced_block_cannot_be_closed_from_inside() -> None:
    output = "ok\n```\n<img src=http://evil.example/p.png>\n````\n@all [x](http://e)\n"
    rendered = renderer().render(f"{fenced(output)}\n\nafter\n")
    assert rendered.count("<pre>") == 1
    assert rendered.endswith("<p>after</p>\n"), rendered
    assert_inert(rendered)
    assert "\x1b" not in fenced("a\x1b[2Jb") and "\\x1b" in fenced("a\x1b[2Jb")
