"""The Claude credentials an agent runs with: taken from the client that starts it.

Why from the client: the daemon may have been started long before, from another
shell (an open TUI even restarts it), so its environment says nothing about the
key the person has now. The client that starts an agent (``harness run``, the TUI,
``harness demo``) sends the credentials it has inside the start request; the
daemon hands them to that agent through its secrets pipe and never uses its own.

Three of them are secrets (kept out of every ``/proc/PID/environ``); the base URL
and the model name are settings that travel with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from common.errors import CredentialsError

if TYPE_CHECKING:  # a type only: `harness list` starts without the spec's schema
    from common.schemas.spec import AgentSpec

API_KEY = "ANTHROPIC_API_KEY"
AUTH_TOKEN = "ANTHROPIC_AUTH_TOKEN"
OAUTH_TOKEN = "CLAUDE_CODE_OAUTH_TOKEN"
BASE_URL = "ANTHROPIC_BASE_URL"
MODEL = "CLAUDE_MODEL"

CLAUDE_SECRET_VARIABLES: tuple[str, ...] = (API_KEY, AUTH_TOKEN, OAUTH_TOKEN)
"""The secrets: whoever reads one can spend on the account."""
CREDENTIAL_VARIABLES: tuple[str, ...] = (*CLAUDE_SECRET_VARIABLES, BASE_URL, MODEL)
"""Everything a client hands over for an agent's model access."""

MISSING_MESSAGE = (
    "no Claude credentials: set ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or "
    "CLAUDE_CODE_OAUTH_TOKEN (or ANTHROPIC_BASE_URL for a gateway that needs none) where you "
    'run harness, or use "model": "local" for the embedded model'
)


def credentials_from(environ: Mapping[str, str]) -> dict[str, str]:
    """The credential variables set, and not empty, in ``environ``.

    Empty ones count as unset: ``.env.example`` has ``ANTHROPIC_API_KEY=`` lines
    that ``start.sh`` exports as empty strings.
    """
    return {name: environ[name] for name in CREDENTIAL_VARIABLES if environ.get(name)}


def without_credentials(mapping: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``mapping`` with no credential variable (secret or setting)."""
    return {name: value for name, value in mapping.items() if name not in CREDENTIAL_VARIABLES}


def has_model_access(credentials: Mapping[str, str]) -> bool:
    """A key, a token or a base URL: something that can reach a model."""
    return any(credentials.get(name) for name in (*CLAUDE_SECRET_VARIABLES, BASE_URL))


def check_credentials(spec: AgentSpec, credentials: Mapping[str, str]) -> None:
    """Refuse, before anything starts, a spec whose model cannot be reached.

    Raises:
        CredentialsError: the spec names a Claude model and ``credentials`` hold
            no key, token or base URL.
    """
    if not spec.uses_local_model and not has_model_access(credentials):
        raise CredentialsError(f"{spec.spec_file.name}: {MISSING_MESSAGE}")


def check_names(credentials: Mapping[str, str]) -> dict[str, str]:
    """``credentials`` if every name is a credential variable (the protocol's validator).

    Raises:
        ValueError: an unknown name (its value is never quoted).
    """
    unknown = sorted(set(credentials) - set(CREDENTIAL_VARIABLES))
    if unknown:
        raise ValueError(f"unknown credential variable(s) {', '.join(unknown)}")
    return dict(credentials)
