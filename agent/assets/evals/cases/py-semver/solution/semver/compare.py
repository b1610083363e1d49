"""Semantic versions."""

import re

_VERSION = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")


def parse(version: str) -> tuple[int, int, int]:
    found = _VERSION.fullmatch(version)
    if found is None:
        raise ValueError(f"not a version: {version!r}")
    major, minor, patch = (int(part) for part in found.groups())
    return major, minor, patch


def compare(a: str, b: str) -> int:
    left, right = parse(a), parse(b)
    return (left > right) - (left < right)
