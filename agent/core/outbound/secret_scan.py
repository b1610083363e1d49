"""Credentials in a changed file: a maintained scanner plus the configured secrets.

Why detect-secrets (Yelp, pinned in requirements.txt): its plugins know the shapes
of many providers' credentials (AWS, GitHub, GitLab, Slack, Stripe, private keys…)
and are kept up to date, where a home-made list would only know ours. Its plugins are
regular expressions run in this process; nothing from the scanned file is imported or
run, and the scanner reads no settings from the project (no baseline file, no custom
plugin or filter path: the settings are ours, set for each scan).

What is left out, and why: the entropy and keyword detectors and the public-IP one
(measured on this repository: 18 of its 23 findings, all ordinary code, test fixtures
and lock-file hashes), and every filter that skips by the file's *name* or a comment
in it (``# pragma: allowlist secret``, lock files, swagger files, an image extension):
the model writes the name and the comments. The file is scanned under a neutral name.

A finding names the credential's type and line, never its value.

Cost: the scanner's settings and a scratch folder are set up once for many files, and
the content is scanned from memory (:class:`Scanner`): per file, settings, folder and
disk writes cost more than the scan itself (measured: 1.9 ms a small file before on a
quiet machine, 3.3 ms on a busy one; a review of 6,000 files took 7.8 s to 15 s).
The scanner's settings are process-wide, so one scan runs at a time (slots review in
threads of one agent).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path, PurePosixPath

from detect_secrets.core.secrets_collection import SecretsCollection
from detect_secrets.settings import transient_settings

from common.redact import MIN_SECRET_LENGTH, secret_forms
from common.schemas.outbound import Finding, FindingKind

PLUGINS = (
    "AWSKeyDetector",
    "ArtifactoryDetector",
    "AzureStorageKeyDetector",
    "BasicAuthDetector",
    "CloudantDetector",
    "DiscordBotTokenDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "IbmCloudIamDetector",
    "IbmCosHmacDetector",
    "JwtTokenDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PrivateKeyDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SoftlayerDetector",
    "SquareOAuthDetector",
    "StripeDetector",
    "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)
FILTERS = (
    # Judged on the found value alone: a template or an id is no credential.
    "detect_secrets.filters.heuristic.is_sequential_string",
    "detect_secrets.filters.heuristic.is_potential_uuid",
    "detect_secrets.filters.heuristic.is_templated_secret",
    "detect_secrets.filters.heuristic.is_prefixed_with_dollar_sign",
)
STRUCTURED = {".yaml", ".yml", ".ini", ".cfg"}
"""Suffixes kept for the scan: detect-secrets reads their multi-line values."""

_SETTINGS = {
    "plugins_used": [{"name": name} for name in PLUGINS],
    "filters_used": [{"path": path} for path in FILTERS],
}


def scanned_name(path: str) -> str:
    """The neutral name the content is scanned under."""
    suffix = PurePosixPath(path).suffix.lower()
    return f"scanned{suffix}" if suffix in STRUCTURED else "scanned.txt"


_ONE_AT_A_TIME = threading.Lock()


class Scanner:
    """detect-secrets with our settings, for one file after another.

    The content is scanned from memory: a ``memfd`` the scanner's neutral names link to.
    Written to a file on disk instead, each scan cost a truncate and a write that ext4
    flushes (``auto_da_alloc``): 1 ms a file here, far more on a busy disk, most of a
    review's time (measured: 2,000 opens took 1.97 s of a 3.1 s scan of 1,000 files).
    """

    def __init__(self, folder: Path, fd: int) -> None:
        self._folder = folder
        self._fd = fd

    def credential_findings(self, path: str, content: bytes) -> list[Finding]:
        """What detect-secrets finds in ``content`` (the file at ``path``), type and line."""
        os.ftruncate(self._fd, 0)
        written = 0
        while written < len(content):
            written += os.pwrite(self._fd, content[written:], written)
        collection = SecretsCollection()
        collection.scan_file(str(self._folder / scanned_name(path)))
        found = sorted({(secret.type, secret.line_number) for _, secret in collection})
        return [
            Finding(kind=FindingKind.SECRET, reason=f"{kind} on line {line} (value not shown)")
            for kind, line in found
        ]


@contextmanager
def scanner() -> Iterator[Scanner]:
    """A :class:`Scanner` (one at a time in the process: the settings are global)."""
    with ExitStack() as stack:
        stack.enter_context(_ONE_AT_A_TIME)
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="harness-scan-")))
        fd = os.memfd_create("harness-scan", os.MFD_CLOEXEC)
        stack.callback(os.close, fd)
        for name in {scanned_name("x"), *(scanned_name(f"x{suffix}") for suffix in STRUCTURED)}:
            (folder / name).symlink_to(f"/proc/self/fd/{fd}")
        stack.enter_context(transient_settings(_SETTINGS))
        yield Scanner(folder, fd)


def credential_findings(path: str, content: bytes) -> list[Finding]:
    """What detect-secrets finds in ``content`` (the file at ``path``), type and line only."""
    with scanner() as scan:
        return scan.credential_findings(path, content)


def exact_findings(content: bytes, secrets: Iterable[str]) -> list[Finding]:
    """Whether a configured secret (a token the harness was given) is in ``content``, as
    it is or URL-encoded, JSON-escaped or in base64 (:func:`common.redact.secret_forms`)."""
    text = content.decode("utf-8", errors="replace")
    hits = sum(
        1
        for secret in secrets
        if len(secret) >= MIN_SECRET_LENGTH and any(form in text for form in secret_forms(secret))
    )
    if not hits:
        return []
    return [
        Finding(
            kind=FindingKind.SECRET,
            reason=f"{hits} secret(s) the harness was configured with (value not shown)",
        )
    ]
