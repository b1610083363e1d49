"""The model's words inside Markdown the harness writes as its own: inert, and quoted.

Why: a merge request's traceability table, its lists, an issue's set-aside and handoff
notes and the decision records are the harness's facts, rendered as Markdown on GitLab
(and read in the file tracker's record). An issue title or a file name the model chose
and pasted there raw keeps all of Markdown's and GitLab's powers: ``@all`` notifies
every member, ``![p](http://evil.example/p.png)`` or ``<img src=…>`` loads a remote image
for every reviewer (a tracking pixel), ``[x](http://evil.example)`` is a link that reads
like the harness's, ``#1``, ``!2``, ``~label`` and ``%milestone`` become references, a
``|`` or a newline breaks the table and adds a row of its own.

So each of the model's words goes into a Markdown *code span* (:func:`quoted`): GitLab's
renderer and its reference, mention, emoji and autolink filters leave a code span's text
alone, HTML in it is shown as text, and a reader sees at a glance that it is quoted,
not the harness's. The span's backtick fence is longer than any run of backticks in the
text, so nothing inside can end it; the text is escaped on one line first
(:func:`common.untrusted_text.printable_line`); in a table cell every ``|`` is escaped
too (GFM splits a row on pipes before it reads code spans, and shows ``\\|`` in one as
``|``). Multi-line text (a gate's output) goes into a fenced block the same way
(:func:`fenced`). Harness text that holds such spans is made safe for one line by
:func:`line`: outside the spans ``<`` and ``|`` are escaped, inside them only what a
table needs.

Pure: no IO.
"""

from __future__ import annotations

import re

from common.untrusted_text import printable, printable_line, printable_name

QUOTE_LIMIT = 300
"""Most characters of the model's text one quote shows (then ``…``): a table cell or a
list item is no place for more, and the whole text is in the tracker's issue itself."""
_BACKTICKS = re.compile("`+")
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def quoted(text: str, *, cell: bool = False, name: bool = False, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as one inert Markdown code span: escaped on one line, cut to ``limit``.

    Args:
        text: the model's (or the spec's) words.
        cell: for a GFM table cell: every ``|`` escaped as well.
        name: ``text`` is a name (a file's): every blank but the plain space escaped too
            (:func:`common.untrusted_text.printable_name`).
        limit: most characters of ``text`` shown; a longer text ends with ``…``.
    """
    cut = text if len(text) <= limit else text[:limit] + "…"
    shown = printable_name(cut) if name else printable_line(cut)
    if cell:
        shown = shown.replace("|", "\\|")
    fence = "`" * (_longest_run(shown) + 1)
    if not shown or shown[0] in "` " or shown[-1] in "` ":
        # One space inside each side (CommonMark strips exactly one of each): a text that
        # starts or ends with a backtick cannot join the fence, nor lose its own spaces.
        return f"{fence} {shown} {fence}"
    return f"{fence}{shown}{fence}"


def fenced(text: str) -> str:
    """``text`` (lines kept, every unsafe character escaped) as a fenced code block whose
    fence no line of it can close: inert Markdown for a gate's output or a feedback."""
    shown = printable(text).rstrip("\n")
    fence = "`" * max(3, _longest_run(shown) + 1)
    return f"{fence}\n{shown}\n{fence}"


def line(text: str, *, cell: bool = False) -> str:
    """Harness text that may hold :func:`quoted` spans, safe on one Markdown line.

    Escaped on one line; outside code spans ``<`` becomes ``&lt;`` (no tag, no HTML
    comment, no autolink) and ``|`` becomes ``\\|``; inside them (where Markdown shows
    every character as it is) only a table cell's ``|`` is escaped. Code spans are found
    as CommonMark finds them: a backslash escapes the character after it, and a run of
    backticks opens a span only where a run of the same length closes it.
    """
    out: list[str] = []
    for part, in_code in _code_spans(printable_line(text)):
        if in_code:
            out.append(part.replace("|", "\\|") if cell else part)
        else:
            out.append(part.replace("<", "&lt;").replace("|", "\\|"))
    return "".join(out)


def _longest_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def _code_spans(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into (part, is a code span) pieces, as a CommonMark parser reads it."""
    pieces: list[tuple[str, bool]] = []
    plain_from = index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] in _ASCII_PUNCTUATION:
            index += 2  # an escaped character, a backtick too, opens nothing
            continue
        if char != "`":
            index += 1
            continue
        run = _BACKTICKS.match(text, index)
        assert run is not None
        closer = re.compile(f"(?<!`){run.group()}(?!`)").search(text, run.end())
        if closer is None:
            index = run.end()  # no span: the backticks are text
            continue
        pieces.append((text[plain_from : run.start()], False))
        pieces.append((text[run.start() : closer.end()], True))
        plain_from = index = closer.end()
    pieces.append((text[plain_from:], False))
    return [(part, in_code) for part, in_code in pieces if part]
