"""Secrets out of everything the harness writes: logs, checkpoints, tracker text, tool output.

Two nets. Patterns catch well-known secret shapes whoever they belong to (GitLab
``glpat-`` tokens, Anthropic API keys and OAuth tokens, AWS access keys, PEM
private keys). The exact values the harness was configured with (its GitLab token,
Claude credentials) are caught in every form a program is likely to print them:
as is, URL-encoded, JSON-escaped, and base64 at the three byte alignments (a
secret inside a longer base64 string, such as an HTTP Basic header, shows up as
one of three fixed substrings).

Pure: no IO. :class:`Redactor` counts what it replaced, so callers can record it.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import quote, quote_plus

MASK = "[REDACTED]"
#: Configured values shorter than this are not searched for (they would mask ordinary text).
MIN_SECRET_LENGTH = 8

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("gitlab token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    (
        "gitlab token",
        re.compile(r"\bgl(?:oas|dt|rt|cbt|ptt|ft|imt|agent|soat)-[A-Za-z0-9_\-]{20,}"),
    ),
    ("anthropic key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("aws access key", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b")),
    (
        "aws secret key",
        re.compile(r"(?i)(aws_secret_access_key\s*[=:]\s*[\"']?)[A-Za-z0-9/+=]{40}"),
    ),
    (
        "private key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?"
            r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----"
        ),
    ),
)
"""Named shapes of secrets; a pattern with a group keeps that group (the key name)."""


def secret_forms(value: str) -> set[str]:
    """``value`` as is, URL-encoded, JSON-escaped and in base64 at each of three alignments."""
    forms = {value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1]}
    raw = value.encode()
    for shift in range(3):
        # ``shift`` bytes of unknown text precede the secret: skip the base64 characters
        # they touch, and stop before the characters the unknown text after it touches.
        encoded = base64.b64encode(b"\0" * shift + raw).decode()
        start = {0: 0, 1: 2, 2: 3}[shift]
        end = (shift + len(raw)) * 4 // 3
        fragment = encoded[start:end]
        if len(fragment) >= MIN_SECRET_LENGTH:
            forms.add(fragment)
            forms.add(fragment.replace("+", "-").replace("/", "_"))  # base64url
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


@dataclass
class Redactor:
    """Replaces secrets in text and counts the replacements."""

    secrets: Iterable[str] = ()
    """The exact configured values (tokens, keys) to hide in all their forms."""
    count: int = 0
    """Replacements made so far."""
    _exact: re.Pattern[str] | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        forms: set[str] = set()
        for value in self.secrets:
            if value and len(value) >= MIN_SECRET_LENGTH:
                forms |= secret_forms(value)
        if forms:
            alternatives = sorted(forms, key=len, reverse=True)  # longest first
            self._exact = re.compile("|".join(re.escape(form) for form in alternatives))

    def __call__(self, text: str) -> str:
        """``text`` with every secret replaced by :data:`MASK`."""
        if self._exact is not None:
            text, found = self._exact.subn(MASK, text)
            self.count += found
        for _name, pattern in PATTERNS:
            text, found = pattern.subn(_replacement, text)
            self.count += found
        return text

    def take_count(self) -> int:
        """The replacements since the last call (for recording them once)."""
        count, self.count = self.count, 0
        return count


def _replacement(match: re.Match[str]) -> str:
    kept = match.group(1) if match.re.groups else ""
    return f"{kept}{MASK}"


def redact(text: str, secrets: Iterable[str] = ()) -> tuple[str, int]:
    """``text`` redacted, and how many secrets were replaced."""
    redactor = Redactor(secrets)
    return redactor(text), redactor.count
