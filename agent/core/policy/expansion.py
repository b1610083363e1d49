"""Brace expansion and loop variables: the words bash would pass, known statically.

In a sandboxed session the judge expands what it can know without running anything,
and judges the result by the usual rules instead of refusing the form:

* brace expansion (``mkdir -p pkg/{api,models}``, ``touch src/{a,b}.py``, ``x{1..3}``)
  in words written out without quotes or variables: each word bash makes is judged
  (:func:`expand_braces`);
* a ``for`` loop's variable over words written out (``for f in tests/*.py``): each use
  (``"$f"``, ``${f}``, ``"$f".bak``, ``"${f%.py}"``) is judged once per value, a glob
  value as the glob, whose every match is checked (:func:`loop_values`,
  :func:`substitute`). A variable the command assigns anywhere else (``f=…``,
  ``read f``) keeps no value: the judge cannot know which one a use sees.

Anything else (a value from ``$(…)``, ``"$@"``, an operator other than ``%``, ``%%``,
``#``, ``##``) has no static value, and the path rules deny it as before.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections.abc import Mapping

from agent.core.policy.context import Denied
from agent.core.policy.syntax import Node, Word, quoted_value, text_of, unquoted_word, word_of

#: The most words one brace expansion, or one command's loop variants, may give.
MAX_WORDS = 256
_SEQUENCE = re.compile(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?")
_UNQUOTED = frozenset({"word", "number", "brace_expression"})
_TRIM_OPERATORS = frozenset({"%", "%%", "#", "##"})

Bindings = Mapping[str, tuple[Word, ...]]
"""A loop variable's possible values, by name."""


def brace_words(node: Node) -> list[Word] | None:
    """The words bash makes of ``node`` by brace expansion, or ``None`` when it is not an
    unquoted word (quotes, variables and substitutions are left to the usual rules)."""
    parts = node.children if node.type == "concatenation" else [node]
    if not all(part.type in _UNQUOTED for part in parts):
        return None
    texts = expand_braces(text_of(node))
    return [unquoted_word(text) for text in texts]


def expand_braces(text: str) -> list[str]:
    """Bash's brace expansion of unquoted ``text`` (backslash escapes kept as written)."""
    words = _expand(text)
    if len(words) > MAX_WORDS:
        raise Denied(f"{text} expands to more than {MAX_WORDS} words; write it more simply")
    return words


def _expand(text: str) -> list[str]:
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            group = _group(text, index)
            if group is not None:
                close, alternatives = group
                suffixes = _expand(text[close + 1 :])
                out: list[str] = []
                for alternative in alternatives:
                    for middle in _expand(alternative):
                        out.extend(text[:index] + middle + suffix for suffix in suffixes)
                        if len(out) > MAX_WORDS:
                            return out
                return out
        index += 1
    return [text]


def _group(text: str, start: int) -> tuple[int, list[str]] | None:
    """The ``{…}`` opening at ``start``: where it closes and its alternatives, or ``None``
    when it is no brace expansion (``{a}``, ``{}``, unbalanced)."""
    depth = 0
    commas: list[int] = []
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                body = text[start + 1 : index]
                if commas:
                    bounds = [start, *commas, index]
                    return index, [text[a + 1 : b] for a, b in itertools.pairwise(bounds)]
                sequence = _sequence(body)
                return None if sequence is None else (index, sequence)
            depth -= 1
        elif char == "," and depth == 0:
            commas.append(index)
        index += 1
    return None


def _sequence(body: str) -> list[str] | None:
    """``1..5``, ``01..10``, ``a..e``, ``1..10..2``."""
    match = _SEQUENCE.fullmatch(body)
    if match is None:
        return None
    first, last, step_text = match.groups()
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if first.isalpha() != last.isalpha():
        return None
    if first.isalpha():
        low, high = ord(first), ord(last)
        count = abs(high - low) // step + 1
        if count > MAX_WORDS:
            raise Denied(f"{{{body}}} expands to more than {MAX_WORDS} words")
        direction = step if high >= low else -step
        return [chr(low + i * direction) for i in range(count)]
    low, high = int(first), int(last)
    count = abs(high - low) // step + 1
    if count > MAX_WORDS:
        raise Denied(f"{{{body}}} expands to more than {MAX_WORDS} words")
    width = max(len(first), len(last)) if first.lstrip("-").startswith("0") or last.lstrip(
        "-"
    ).startswith("0") else 0  # fmt: skip
    direction = step if high >= low else -step
    return [str(low + i * direction).zfill(width) for i in range(count)]


def loop_values(for_node: Node, tree: Node) -> tuple[str, tuple[Word, ...]] | None:
    """A ``for`` loop's variable and its values (brace expansions expanded), when every
    value is written out and the command assigns the variable nowhere else."""
    variable = for_node.child_by_field_name("variable")
    if variable is None or not any(child.type == "in" for child in for_node.children):
        return None
    name = text_of(variable)
    values: list[Word] = []
    for child in for_node.children:
        if not child.is_named or child == variable or child.type == "do_group":
            continue
        if child.type in ("comment",):
            continue
        expanded = brace_words(child)
        words = expanded if expanded is not None else [word_of(child)]
        for word in words:
            if word.text is None or word.braces or not word.text or _blank(word.text):
                return None
            values.append(word)
    if not values or len(values) > MAX_WORDS or _assigned_elsewhere(name, for_node, tree):
        return None
    return name, tuple(values)


def _blank(text: str) -> bool:
    return any(char.isspace() for char in text)


def _assigned_elsewhere(name: str, for_node: Node, tree: Node) -> bool:
    """Whether anything in the command but this loop may give ``name`` a value: an
    assignment, another loop over it, ``${name:=…}``, or the bare name as a word (``read
    name``, ``unset name``, ``local name``, ``printf -v name``)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        kind = node.type
        if kind == "variable_assignment":
            target = node.child_by_field_name("name")
            if target is not None and text_of(target).partition("[")[0] == name:
                return True
        elif kind == "for_statement" and node != for_node:
            other = node.child_by_field_name("variable")
            if other is not None and text_of(other) == name:
                return True
        elif kind == "expansion":
            operators = {c.type for c in node.children if not c.is_named}
            named = [text_of(c) for c in node.named_children if c.type == "variable_name"]
            if name in named and operators & {"=", ":="}:
                return True
        elif kind == "word" and text_of(node) == name:
            return True
    return False


def substitute(node: Node, bindings: Bindings) -> list[Word] | None:
    """The words ``node`` may be, one per combination of the loop values it uses, or
    ``None`` when a part of it has no static value."""
    if not bindings:
        return None
    parts = node.children if node.type == "concatenation" else [node]
    choices: list[list[tuple[str, bool]]] = []
    for index, part in enumerate(parts):
        choice = _part_choices(part, bindings, first=index == 0)
        if choice is None:
            return None
        choices.append(choice)
    words: list[Word] = []
    for combination in itertools.product(*choices):
        text = "".join(piece for piece, _ in combination)
        words.append(Word(text_of(node), text, plain=False, glob=any(g for _, g in combination)))
        if len(words) > MAX_WORDS:
            raise Denied(f"{text_of(node)} may be too many words; write it more simply")
    return words


def _part_choices(part: Node, bindings: Bindings, *, first: bool) -> list[tuple[str, bool]] | None:
    kind = part.type
    if kind in ("simple_expansion", "expansion"):
        return _variable(part, bindings)
    if kind == "string":
        pieces: list[list[tuple[str, bool]]] = []
        for child in part.children:
            if child.type == "string_content":
                pieces.append([(quoted_value(child) or text_of(child), False)])
            elif child.type in ("simple_expansion", "expansion"):
                values = _variable(child, bindings)
                if values is None:
                    return None
                pieces.append(values)
            elif child.is_named:
                return None
        return [
            ("".join(p for p, _ in combo), any(g for _, g in combo))
            for combo in itertools.product(*pieces)
        ]
    if kind in ("word", "number"):
        word = unquoted_word(text_of(part), first=first)
        return None if word.text is None else [(word.text, word.glob)]
    if kind == "raw_string":
        value = quoted_value(part)
        return None if value is None else [(value, False)]
    return None


def _variable(node: Node, bindings: Bindings) -> list[tuple[str, bool]] | None:
    """``$f``, ``${f}`` and ``${f%PATTERN}`` (``%%``, ``#``, ``##``) of a bound variable."""
    names = [c for c in node.named_children if c.type == "variable_name"]
    if len(names) != 1 or text_of(names[0]) not in bindings:
        return None
    values = bindings[text_of(names[0])]
    operators = [c.type for c in node.children if not c.is_named and c.type not in ("$", "${", "}")]
    others = [c for c in node.named_children if c != names[0]]
    if not operators and not others:
        return [(w.text or "", w.glob) for w in values]
    if len(operators) != 1 or operators[0] not in _TRIM_OPERATORS or len(others) != 1:
        return None
    pattern = text_of(others[0])
    if any(char in pattern for char in "$`\"'\\"):
        return None
    return [(_trim(w.text or "", operators[0], pattern), w.glob) for w in values]


def _trim(value: str, operator: str, pattern: str) -> str:
    """``${v%p}`` (shortest suffix), ``%%`` (longest), ``#`` (shortest prefix), ``##``."""
    cuts = range(len(value) + 1)
    if operator.startswith("%"):
        order = cuts if operator == "%%" else reversed(cuts)
        for cut in order:
            if fnmatch.fnmatchcase(value[cut:], pattern):
                return value[:cut]
        return value
    order = reversed(cuts) if operator == "##" else cuts
    for cut in order:
        if fnmatch.fnmatchcase(value[:cut], pattern):
            return value[cut:]
    return value
