"""Text for GitLab that GitLab will only show: no line of it runs as a quick action.

Why: GitLab carries out a line such as ``/close``, ``/merge``, ``/approve``,
``/unlabel ~needs-human`` or ``/move other/project`` that it finds in an issue or
merge request description or in a note, as the user whose token wrote the text,
and removes the line. The harness writes text the model wrote (enrichment,
handoff notes, the merge request's description) with the person's token, so
such a line would let the model close issues, merge or approve with the
person's authority, behind the harness's back. Whether an issue is done and
what is merged is the harness's and the person's decision, never the model's
word.

Every line that GitLab could take as a command (it drops carriage returns
first, then looks for a ``/`` at the start of a line, in any case) gets a
backslash in front: Markdown shows ``\\/close`` as ``/close``, and GitLab's
extractor no longer sees a command. This is done to all text, whatever its
source and code blocks included, because a rule that tried to follow GitLab's
idea of where a code block ends could be steered by the text itself.
"""

from __future__ import annotations


def inert(text: str) -> str:
    """``text`` with every line that starts with ``/`` escaped (``\\/``); ``\\r`` dropped."""
    lines = text.replace("\r", "").split("\n")
    return "\n".join("\\" + line if line.startswith("/") else line for line in lines)
