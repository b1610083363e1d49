"""The model's words inside text the harness writes for people: marked, fenced in, last.

Why: a merge request description, a closure note or a handoff note mixes what the
harness vouches for (the test run it made, the issues it closed, the files it
committed) with what the model said about its work. Written one after the other,
the model's part could carry its own ``## Verification`` section with a made-up test
count, a ``Tests: 120 passed`` line that reads like the harness's, or (in the old
merge request text) the words ``## Changes``, which made the harness leave out its
own diff summary. A reviewer on GitLab cannot tell such lines apart.

So the model's words always go into a Markdown block quote under a label that says
whose words they are: every line is prefixed, blank ones included, so nothing the
model writes can end the quote and continue as the harness's text. A heading the
model writes stays inside the quote. List items that are the model's get one line
each, so an item cannot open a new section of the note either, and each is a code span,
so nothing in it acts.
"""

from __future__ import annotations

from common import inert_markdown

LABEL = "(the agent's model wrote this; the harness has not verified it)"


def quoted(text: str) -> str:
    """``text`` as a Markdown block quote, every line prefixed; ``>`` alone when empty."""
    lines = text.strip().splitlines() or [""]
    return "\n".join(f"> {line}".rstrip() for line in lines)


def section(heading: str, text: str) -> str:
    """``### heading`` with the label, then ``text`` quoted."""
    return f"{heading} {LABEL}\n{quoted(text)}"


def item(text: str) -> str:
    """One list item of the model's: its lines joined by spaces, as an inert code span
    (:func:`common.inert_markdown.quoted`): in a list the harness heads, a mention, a
    link, an image or a reference of the model's would pass for the harness's own."""
    return inert_markdown.quoted(" ".join(text.split()))


def name(path: str) -> str:
    """A file name in a list the harness heads: quoted like :func:`item`, its look-alike
    blanks escaped (:func:`common.untrusted_text.printable_name`)."""
    return inert_markdown.quoted(path, name=True)
