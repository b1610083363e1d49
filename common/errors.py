"""One error root with data, one subclass per failure domain.

Third-party errors are converted once, at the adapter edge, with ``raise ... from e``.
Every message is a single line a person can act on: the CLI prints ``str(error)``
and exits non-zero, never a traceback.
"""

from __future__ import annotations

from pathlib import Path


class HarnessError(Exception):
    """Root of every error the harness raises on purpose."""


class StateFileError(HarnessError):
    """A persisted JSON file is missing, unreadable, corrupted or fails its schema.

    It is never silently reset: the caller decides, and the message names the file.
    """

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class SpecError(HarnessError):
    """An agent spec is malformed or points at something that does not exist."""


class ProtocolError(HarnessError):
    """A daemon protocol frame could not be parsed or was not expected."""


class DaemonError(HarnessError):
    """The daemon is not running, already running, or refused a request."""


class CheckpointError(HarnessError):
    """A checkpoint could not be written, answered or applied."""


class AlreadyDecidedError(CheckpointError):
    """Another client answered this checkpoint first; its decision counts."""


class NoPendingCheckpointError(CheckpointError):
    """There is no checkpoint waiting for a decision."""


class NewCheckpointError(CheckpointError):
    """The waiting checkpoint appeared after the answer was started: nobody saw it."""


class TransitionError(HarnessError):
    """The phase machine was asked for a transition its table does not allow."""


class TrackerError(HarnessError):
    """The issue tracker (file or GitLab) failed."""


class GitError(HarnessError):
    """A git command failed; the message carries git's own words."""


class SessionError(HarnessError):
    """A Claude session could not start or ended in an error."""

    retryable: bool = True
    """Whether another attempt may succeed (a crash, a timeout: yes; a refused key: no)."""


class ModelEndpointError(SessionError):
    """The model endpoint cannot serve this agent: unreachable, or it refused the credentials."""

    retryable = False


class CredentialsError(HarnessError):
    """A spec needs Claude credentials and none were given."""


class SecretsError(HarnessError):
    """Secrets could not be handed to a process through its pipe."""


class ProjectBrokenError(HarnessError):
    """The project's own tests cannot run before the agent touches anything."""


class SandboxError(HarnessError):
    """The OS sandbox around sessions cannot be built here, or was asked for something it
    cannot give (for example a remote model endpoint without network)."""


class ProjectSettingsError(HarnessError):
    """The target repository's harness settings file (``.harness.json``) is not valid."""
