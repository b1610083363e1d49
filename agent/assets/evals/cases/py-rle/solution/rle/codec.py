"""Run-length encoding."""

import itertools
import re

_PAIR = re.compile(r"(\d+)(\D)")


def encode(text: str) -> str:
    if any(ch.isdigit() for ch in text):
        raise ValueError("digits cannot be encoded")
    return "".join(f"{len(list(run))}{ch}" for ch, run in itertools.groupby(text))


def decode(text: str) -> str:
    pairs = _PAIR.findall(text)
    if "".join(n + ch for n, ch in pairs) != text:
        raise ValueError(f"not run-length encoded: {text!r}")
    return "".join(ch * int(n) for n, ch in pairs)
