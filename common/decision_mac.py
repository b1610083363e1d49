"""Decisions the model cannot forge: an HMAC-SHA256 made with a key only clients hold.

The checkpoint file and ``.workspace_info.json`` live in the project, where the
model's tools can write. So a decision, and the auto-accept switch, count only
with a MAC made with ``HARNESS_HOME/decision.key`` (0600, created once): the
clients (``harness``, the TUI, the daemon) sign when they decide; the agent reads
the key at start, keeps it in memory and checks every decision before it obeys.
Inside the sandbox ``HARNESS_HOME`` is invisible, so the model cannot sign.

Without the sandbox (``"sandbox": false``) the model's Bash runs as the same user
and could read the key: the MAC then stops forging by writing files, not a
determined attacker (see ``docs/security.md``).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common.errors import HarnessError
from common.paths import harness_home
from common.schemas.auto_accept import AutoAcceptRules

if TYPE_CHECKING:  # annotations only: signing needs no checkpoint schema built
    from common.schemas.checkpoint import AnyDecision, Checkpoint

KEY_NAME = "decision.key"
KEY_BYTES = 32


class DecisionKeyError(HarnessError):
    """The decision key cannot be read or created."""


def key_path(home: Path | None = None) -> Path:
    """``HARNESS_HOME/decision.key``."""
    return (home or harness_home()) / KEY_NAME


def load_key(home: Path | None = None) -> bytes:
    """The decision key, created on first use (0600; concurrent first uses agree).

    The key is written to a private temporary file and linked into place, so a
    reader never sees a half-written key and two creators end with one key.

    Raises:
        DecisionKeyError: the key file is unreadable, the wrong size, or readable by others.
    """
    path = key_path(home)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_name(f".{KEY_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(KEY_BYTES))
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
    try:
        if path.stat().st_mode & 0o077:
            raise DecisionKeyError(f"{path} is readable by others; it must be 0600")
        key = path.read_bytes()
    except OSError as e:
        raise DecisionKeyError(f"cannot read the decision key {path}: {e.strerror}") from e
    if len(key) != KEY_BYTES:
        raise DecisionKeyError(f"{path} is not a decision key ({len(key)} bytes)")
    return key


def canonical(payload: Any) -> bytes:
    """One byte string per JSON value: sorted keys, no spaces, UTF-8."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _mac(key: bytes, payload: Any) -> str:
    return hmac.new(key, canonical(payload), hashlib.sha256).hexdigest()


def checkpoint_body(checkpoint: Checkpoint) -> dict[str, Any]:
    """What the person was shown: the checkpoint without its status and decision."""
    return checkpoint.model_dump(mode="json", exclude={"status", "decision"})


def decision_body(decision: AnyDecision) -> dict[str, Any]:
    """The decision as recorded, without its MAC.

    A decision with no ``rule`` (a person's answer) is signed without the key, as
    before the field existed: decisions signed then still count on resume.
    """
    body = decision.model_dump(mode="json", exclude={"mac"})
    if body.get("rule") is None:
        body.pop("rule", None)
    return body


def sign_decision(
    key: bytes, workspace: Path, checkpoint: Checkpoint, decision: AnyDecision
) -> str:
    """The MAC of ``decision`` on ``checkpoint`` in ``workspace`` (binds all three)."""
    return _mac(
        key,
        {
            "kind": "decision",
            "workspace": str(workspace),
            "checkpoint": checkpoint_body(checkpoint),
            "decision": decision_body(decision),
        },
    )


def decision_problem(
    key: bytes, workspace: Path, shown: Checkpoint, found: Checkpoint
) -> str | None:
    """Why ``found``'s decision does not count for the checkpoint ``shown``; ``None`` if it does.

    ``shown`` is the agent's own copy of the pending checkpoint: a decision on a
    checkpoint the model rewrote does not match it either.
    """
    decision = found.decision
    if decision is None:
        return f"checkpoint {found.id} is marked decided without a decision"
    if decision.mac is None:
        return f"checkpoint {found.id}: a decision by {decision.decided_by!r} without a MAC"
    expected = sign_decision(key, workspace, shown, decision)
    if not hmac.compare_digest(expected, decision.mac):
        return f"checkpoint {found.id}: a decision by {decision.decided_by!r} with a wrong MAC"
    return None


def sign_auto_accept(key: bytes, workspace: Path, rules: AutoAcceptRules, serial: int) -> str:
    """The MAC of the auto-accept rules of ``workspace``, the ``serial``-th setting.

    Rules alike for every type are signed as the old switch was (``enabled``), so a
    workspace signed before the rules existed still counts; others sign their canonical
    form (:class:`~common.schemas.auto_accept.AutoAcceptRules` has one per meaning).
    """
    payload: dict[str, Any] = {"kind": "auto_accept", "workspace": str(workspace)}
    if rules.uniform:
        payload["enabled"] = rules.default == "approve"
    else:
        payload["rules"] = rules.model_dump(mode="json")
    return _mac(key, {**payload, "serial": serial})


def auto_accept_valid(
    key: bytes, workspace: Path, rules: AutoAcceptRules, serial: int, mac: str | None
) -> bool:
    """Whether the rules as stored were set by a client."""
    if mac is None:
        return False
    return hmac.compare_digest(sign_auto_accept(key, workspace, rules, serial), mac)
