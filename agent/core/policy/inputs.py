"""Programs read from an open file instead of a project file, and the text they get.

A shell or an interpreter can read its program from standard input or another open
file: ``-``, ``/dev/stdin``, ``/dev/fd/N``, ``/proc/self/fd/N`` (``thread-self``, a pid,
``task/TID``), or a process substitution ``<(…)``. What arrives there is a here-string,
a here-document, a pipe or another command's output: text written in the command, not a
file of the project, so the policy treats these forms as one-liners
(:mod:`.interpreters`). A here-string or here-document on standard input whose text is
written out literally is the one source the judge can read (``bash /dev/stdin <<< 'ls'``).

tree-sitter-bash reads ``bash 0<<< id`` and ``bash 0<f`` as an argument ``0`` followed by
a redirection (bash reads descriptor 0); :func:`descriptor_word` tells the judge which
words are such descriptor numbers.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from agent.core.policy.syntax import Node, Word, text_of, word_of

STANDARD_INPUT = 0
_MAX_LINKS = 40
_DESCRIPTOR_PATH = re.compile(
    r"/dev/(?:(?P<std>stdin|stdout|stderr)|fd/(?P<fd>\d+))"
    r"|/proc/(?:self|thread-self|\d+)(?:/task/\d+)?/fd/(?P<proc>\d+)"
)
_STANDARD = {"stdin": 0, "stdout": 1, "stderr": 2}
_INPUT_OPERATORS = frozenset({"<", "<&", "<&-", "<<", "<<-", "<<<"})


@dataclass(frozen=True)
class OpenFile:
    """Where a program is read from when it is not a file: for the message and the judge."""

    shown: str
    """As the model wrote it (``/dev/stdin``, ``<(echo …)``, ``standard input``)."""
    descriptor: int | None
    """The descriptor it reads (0 for standard input); ``None`` for a process substitution."""


FROM_STANDARD_INPUT = OpenFile("standard input", STANDARD_INPUT)


def descriptor_of(text: str, cwds: list[Path]) -> int | None:
    """The descriptor a path opens (``/dev/stdin`` is 0, ``/dev/fd/3`` is 3), or ``None``
    for any other path. ``//dev/./stdin``, ``../../dev/stdin`` and a link that leads to
    one (``src/in`` to ``/dev/stdin``, ``src/fd`` to ``/dev/fd``) count too."""
    places = [text] if text.startswith("/") else [str(cwd / text) for cwd in cwds]
    for place in places:
        for step in _link_steps(place):
            match = _DESCRIPTOR_PATH.fullmatch(step)
            if match is None:
                continue
            if match["std"]:
                return _STANDARD[match["std"]]
            return int(match["fd"] or match["proc"])
    return None


def _link_steps(place: str) -> list[str]:
    """``place`` as written, then each path its symbolic links lead to, one link at a
    time (the last one, ``/proc/PID/fd/N``, is not followed to what it names)."""
    steps = ["/" + posixpath.normpath(place).lstrip("/")]
    for _ in range(_MAX_LINKS):
        current = Path(steps[-1])
        folder = os.path.realpath(current.parent)
        here = posixpath.join(folder, current.name)
        if here != steps[-1]:
            steps.append(here)
        try:
            target = str(Path(here).readlink())
        except OSError:  # not a link, or nothing there
            break
        steps.append("/" + posixpath.normpath(posixpath.join(folder, target)).lstrip("/"))
    return steps


def open_file_of(word: Word, cwds: list[Path]) -> OpenFile | None:
    """Whether ``word``, where a program's file is expected, names an open file instead."""
    if word.fd_path:
        return OpenFile(f"the process substitution {word.raw}", None)
    if word.text == "-":
        return FROM_STANDARD_INPUT
    if word.text is None:
        return None
    descriptor = descriptor_of(word.text, cwds)
    return None if descriptor is None else OpenFile(word.text, descriptor)


def descriptor_word(node: Node, source: bytes) -> bool:
    """Whether ``node``, read as an argument, is the descriptor number of the redirection
    right after it (``0`` in ``bash 0<<< id``)."""
    if node.type not in ("number", "word") or not text_of(node).isdigit():
        return False
    following = source[node.end_byte : node.end_byte + 2]
    return following[:1] in (b"<", b">") and following != b"<("


def standard_input_text(redirects: list[Node], source: bytes) -> str | None:
    """The text a command reads on its standard input when exactly one here-string or
    here-document written out literally gives it; ``None`` otherwise (a file, a pipe, an
    expansion, several sources)."""
    texts: list[str | None] = []
    for node in redirects:
        operator = next((text_of(c) for c in node.children if not c.is_named), "")
        if operator not in _INPUT_OPERATORS or _descriptor(node, source) != STANDARD_INPUT:
            continue
        if node.type == "herestring_redirect":
            texts.append(_here_string_text(node))
        elif node.type == "heredoc_redirect":
            texts.append(_here_document_text(node, strip_tabs=operator == "<<-"))
        else:
            texts.append(None)  # a file or another descriptor
    return texts[0] if len(texts) == 1 else None


def _descriptor(node: Node, source: bytes) -> int:
    """The descriptor a redirection sets: written (``3<<E``), read by tree-sitter as an
    argument right before it (``0<<< x``), or 0 for an input redirection."""
    for child in node.named_children:
        if child.type == "file_descriptor":
            return int(text_of(child))
    start = node.start_byte
    digits = start
    while digits > 0 and source[digits - 1 : digits].isdigit():
        digits -= 1
    if digits < start and (digits == 0 or source[digits - 1 : digits].isspace()):
        return int(source[digits:start])
    return STANDARD_INPUT


def _here_string_text(node: Node) -> str | None:
    words = [c for c in node.named_children if c.type != "file_descriptor"]
    if len(words) != 1:
        return None
    value = word_of(words[0]).text
    return None if value is None else value + "\n"


def _here_document_text(node: Node, *, strip_tabs: bool) -> str | None:
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    if start is None or body is None:
        return None
    text = text_of(body)
    quoted = any(q in text_of(start) for q in "'\"\\")
    if not quoted and any(c in text for c in "$`\\"):
        return None  # bash expands it: the text is not what is written
    if strip_tabs:
        text = "".join(line.lstrip("\t") for line in text.splitlines(keepends=True))
    return text
