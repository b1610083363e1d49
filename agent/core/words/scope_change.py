"""Whether an enrichment changed an issue's scope: the harness's judgement, never the model's.

Why: an enrichment session rewrites an issue's title and description, and a model
can rewrite a feature away (issue #3 "Add Interval.parse(text)" came back as a copy
of #2, and the feature vanished from the run). The spec-faithful draft approved at
spec_to_issues is the harness's record of what the issue must deliver; this module
compares the enriched text with it, line by line, and says what is gone. Additions
alone (more detail, a longer title, new sections) are not a scope change: the rule
is that every sentence the person approved is still there, word for word up to
case, whitespace and Markdown emphasis.

Pure functions: no IO, so the rule is tested without processes.
"""

from __future__ import annotations

import difflib
import re

from common.schemas.issues import IssueDraft

#: The draft's sections whose every bullet is part of the issue's scope (Technical
#: Notes and Open Questions are advice and questions: an enrichment may answer them).
SCOPE_SECTIONS: tuple[tuple[str, str], ...] = (
    ("Requirement Details", "requirement_details"),
    ("User-Facing Behavior", "user_facing_behavior"),
    ("Test Criteria", "test_criteria"),
)

_EMPHASIS = re.compile(r"[`*_~]")
_HIDDEN = re.compile(
    r"<!--.*?(?:-->|$)"  # an HTML comment, closed or not
    r"|~~.+?~~"  # GitLab's strikethrough
    r"|<(del|s|strike)\b[^>]*>.*?(?:</\1\s*>|$)",  # HTML's struck-out elements
    re.DOTALL | re.IGNORECASE,
)
"""Text Markdown hides (a comment) or shows struck out: a sentence kept there is not kept,
whatever its words."""
_WORD = re.compile(r"[^\W_]+")
_TRAILING = ".;:,"


def normalised(text: str) -> str:
    """``text`` in lower case, without Markdown emphasis or backticks, whitespace collapsed."""
    return " ".join(_EMPHASIS.sub("", text.lower()).split())


def title_words(title: str) -> list[str]:
    """The title's words in lower case: punctuation and whitespace do not count."""
    return _WORD.findall(title.lower())


def title_kept(original: str, enriched: str) -> bool:
    """Whether ``enriched`` still says ``original``'s words, in order and together
    (``Add slugify`` → ``Add slugify (URL slugs)`` keeps it; ``Add Interval.parse``
    → ``Add Interval.overlaps`` does not)."""
    words, found = title_words(original), title_words(enriched)
    if not words:
        return True
    width = len(words)
    return any(found[at : at + width] == words for at in range(len(found) - width + 1))


def sentence_kept(sentence: str, enriched: str) -> bool:
    """Whether the normalised ``sentence`` (its final stop aside) is in normalised ``enriched``."""
    wanted = normalised(sentence).rstrip(_TRAILING).strip()
    return not wanted or wanted in normalised(enriched)


def scope_changes(original: IssueDraft, title: str, description: str) -> list[str]:
    """What the enriched ``title`` and ``description`` dropped or altered of ``original``.

    Empty: the scope is kept (the enrichment only added). Each item is one line the
    person reads at the enrichment_scope checkpoint (the model's text in it is quoted
    as it is; the caller escapes it for display).
    """
    enriched = _HIDDEN.sub(" ", f"{title}\n{description}")
    dropped: list[str] = []
    if not title_kept(original.title, title):
        dropped.append(f"title: {original.title!r} became {title!r}")
    if not sentence_kept(original.summary, enriched):
        dropped.append(f"Summary: {original.summary}")
    for heading, field in SCOPE_SECTIONS:
        items: list[str] = getattr(original, field)
        dropped += [f"{heading}: {item}" for item in items if not sentence_kept(item, enriched)]
    return dropped


def scope_diff(iid: int, before_title: str, before: str, after_title: str, after: str) -> str:
    """A unified diff of the issue's text, spec-faithful → enriched, headed like one file of
    ``git diff`` (``issue-3.md``), so the checkpoint's diff viewers show each issue as a file."""
    name = f"issue-{iid}.md"
    old = [f"# {before_title}", "", *before.splitlines()]
    new = [f"# {after_title}", "", *after.splitlines()]
    body = difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}", lineterm="")
    return "\n".join([f"diff --git a/{name} b/{name}", *body])
