"""The parser adapter: bash text to a tree-sitter-bash syntax tree, and words to values.

Why tree-sitter-bash: it parses every construct the policy must see (pipelines, lists,
subshells, functions, here-documents, command and process substitution) into one tree
in tens of microseconds per command, and marks what it cannot parse with ``ERROR``
nodes, which the policy denies. ``bashlex`` was measured too (see ``docs/security.md``):
slower, and it raises on valid syntax such as ``[[ … ]]`` or ``case``.

A :class:`Word` is what bash would pass to a program for one argument, as far as it can
be known without running anything: quotes removed, escapes decoded, ``~`` expanded.
A word that holds an expansion or a substitution has no static value (``text is None``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import tree_sitter
import tree_sitter_bash

Node = tree_sitter.Node

#: Characters that make an unquoted word a glob pattern.
GLOB_CHARS = frozenset("*?[")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


class ParseFailure(Exception):
    """The command is not bash the parser understands."""


@dataclass(frozen=True)
class Word:
    """One argument as bash would pass it, when that can be known statically."""

    raw: str
    """The source text, for messages."""
    text: str | None
    """The value after quote removal; ``None`` when it holds an expansion."""
    plain: bool = True
    """No quotes, escapes or concatenation: the word is written as it is read."""
    glob: bool = False
    """It holds unquoted ``*``, ``?`` or ``[``: bash would expand it to matching names."""
    braces: bool = False
    """It holds an unquoted brace expansion (``{a,b}``)."""
    fd_path: bool = False
    """It is a process substitution: bash passes a ``/dev/fd/N`` path."""


@cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def join_continued_lines(command: str) -> str:
    """Remove backslash-newline pairs, as bash does before splitting words.

    tree-sitter splits ``cu\\<newline>rl`` into two words where bash reads ``curl``; the
    policy judges the joined text. A backslash that is itself escaped is kept.
    """
    out: list[str] = []
    index = 0
    while index < len(command):
        char = command[index]
        if char == "\\" and index + 1 < len(command):
            if command[index + 1] == "\n":
                index += 2
                continue
            out.append(command[index : index + 2])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def parse(command: str) -> Node:
    """The syntax tree of ``command``; raises :class:`ParseFailure` on any syntax error."""
    tree = _parser().parse(command.encode())
    root = tree.root_node
    if root.has_error:
        raise ParseFailure("syntax error")
    return root


def text_of(node: Node) -> str:
    """The source text of ``node``."""
    return (node.text or b"").decode(errors="replace")


def word_of(node: Node) -> Word:
    """The :class:`Word` a word-like node stands for."""
    raw = text_of(node)
    kind = node.type
    if kind == "process_substitution":
        return Word(raw, None, plain=False, fd_path=True)
    if kind in ("word", "number"):
        return _unquoted(raw, first=True)
    if kind == "concatenation":
        return _concatenation(node, raw)
    value = _quoted_value(node)
    return Word(raw, value, plain=False)


def _concatenation(node: Node, raw: str) -> Word:
    parts: list[str] = []
    glob = braces = False
    for index, part in enumerate(node.children):
        if part.type in ("word", "number"):
            word = _unquoted(text_of(part), first=index == 0)
            if word.text is None:
                return Word(raw, None, plain=False)
            parts.append(word.text)
            glob = glob or word.glob
            braces = braces or text_of(part) in ("{", "}")
            continue
        if part.type == "brace_expression":
            return Word(raw, None, plain=False, braces=True)
        value = _quoted_value(part)
        if value is None:
            return Word(raw, None, plain=False)
        parts.append(value)
    return Word(raw, "".join(parts), plain=False, glob=glob, braces=braces)


def unquoted_word(raw: str, *, first: bool = True) -> Word:
    """The :class:`Word` of unquoted text (as one word of a brace expansion is)."""
    return _unquoted(raw, first=first)


def quoted_value(node: Node) -> str | None:
    """The value of a quoted node (or of a string's content), ``None`` with an expansion."""
    if node.type == "string_content":
        return _decode_double_quoted(text_of(node))
    return _quoted_value(node)


def _unquoted(raw: str, *, first: bool) -> Word:
    """An unquoted word: backslash escapes removed, a leading ``~`` expanded."""
    out: list[str] = []
    glob = escaped = False
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == "\\" and index + 1 < len(raw):
            out.append(raw[index + 1])
            escaped = True
            index += 2
            continue
        glob = glob or char in GLOB_CHARS
        out.append(char)
        index += 1
    text = "".join(out)
    if first and raw.startswith("~"):
        text = _tilde(text)
    return Word(raw, text, plain=not escaped, glob=glob)


def _tilde(text: str) -> str:
    """``~`` and ``~/x`` name the home folder; ``~user`` someone else's (never the project)."""
    head, sep, tail = text.partition("/")
    if head == "~":
        return str(Path.home()) + sep + tail
    return "/~" + text[1:]  # another user's home: outside any project


def _quoted_value(node: Node) -> str | None:
    """The value of a quoted node, or ``None`` when it holds an expansion."""
    kind = node.type
    raw = text_of(node)
    if kind == "raw_string":
        return raw[1:-1]
    if kind == "ansi_c_string":
        return decode_ansi_c(raw[2:-1])
    if kind in ("string", "translated_string"):
        parts: list[str] = []
        for child in node.children:
            if child.type == "string_content":
                parts.append(_decode_double_quoted(text_of(child)))
            elif child.is_named:
                return None  # an expansion or a substitution inside the quotes
        return "".join(parts)
    return None


def _decode_double_quoted(text: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] in '$`"\\':
            out.append(text[index + 1])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def decode_ansi_c(body: str) -> str:
    """The value of ``$'…'``: C escapes (``\\x63``, ``\\143``, ``\\u0063``, ``\\cX``) decoded."""
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\" or index + 1 >= len(body):
            out.append(char)
            index += 1
            continue
        code = body[index + 1]
        index += 2
        if code in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[code])
        elif code in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[code]
            digits = _take(body, index, limit, "0123456789abcdefABCDEF")
            out.append(chr(int(digits, 16)) if digits else "\\" + code)
            index += len(digits)
        elif code in "01234567":
            digits = code + _take(body, index, 2, "01234567")
            out.append(chr(int(digits, 8) & 0xFF))
            index += len(digits) - 1
        elif code == "c" and index < len(body):
            out.append(chr(ord(body[index]) & 0x1F))
            index += 1
        else:
            out.append("\\" + code)
    return "".join(out)


def _take(text: str, start: int, limit: int, allowed: str) -> str:
    end = start
    while end < len(text) and end - start < limit and text[end] in allowed:
        end += 1
    return text[start:end]
