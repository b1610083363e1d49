"""Redacting what the agent writes, and counting it in the workspace.

One :class:`Secrecy` per agent, built from the secrets it was handed: the log,
every checkpoint file and every text sent to the tracker (issues, notes, the
merge request) pass through it. The model's own tool output cannot be rewritten
in this CLI (a PostToolUse hook may replace only MCP tools' output), so what the
model reads from a Bash command is not redacted; what the harness logs and
records of it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agent.core.words import security_counts
from common.paths import WorkspaceFiles
from common.redact import Redactor
from common.schemas.checkpoint import Checkpoint, CheckpointAdapter


@dataclass
class Secrecy:
    """Redacts text and records how many secrets it replaced."""

    files: WorkspaceFiles
    secrets: Iterable[str] = ()
    redactor: Redactor = field(init=False)

    def __post_init__(self) -> None:
        self.redactor = Redactor(list(self.secrets))

    def text(self, text: str) -> str:
        """``text`` redacted; the count goes to the workspace."""
        cleaned = self.redactor(text)
        security_counts.record_redactions(self.files, self.redactor.take_count())
        return cleaned

    def optional(self, text: str | None) -> str | None:
        """:meth:`text` for a value that may be absent."""
        return None if text is None else self.text(text)

    def checkpoint(self, checkpoint: Checkpoint) -> Checkpoint:
        """``checkpoint`` with every string in it redacted (diffs, test output, summaries)."""
        data = self._walk(checkpoint.model_dump(mode="json"))
        count = self.redactor.take_count()
        if count == 0:
            return checkpoint
        security_counts.record_redactions(self.files, count)
        return CheckpointAdapter.validate_python(data)

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.redactor(value)
        if isinstance(value, list):
            return [self._walk(item) for item in value]
        if isinstance(value, dict):
            return {key: self._walk(item) for key, item in value.items()}
        return value
