"""The fixed class of a policy denial, for the counts that metrics read.

Why a class and not the reason: the reason is a sentence that quotes the model's own
command or path, and a metric label taken from it would let the model write into an
operator's dashboards. The class is one of :class:`DenialClass`, chosen from the tool
and from words the policy's own sentences use.
"""

from __future__ import annotations

from common.schemas.policy_counts import DenialClass

_NETWORK_WORDS = ("network", "another host", "network port")
_TOO_COMPLEX_WORDS = ("write it more simply", "could not parse", "nests shells")


def denial_class(tool_name: str, reason: str) -> DenialClass:
    """The class of the refusal of a ``tool_name`` call for ``reason``."""
    if tool_name != "Bash":
        if "outside the project" in reason:
            return DenialClass.OUTSIDE_PROJECT
        return DenialClass.PROTECTED_WRITE
    lowered = reason.lower()
    if lowered.startswith("git "):
        return DenialClass.COMMAND_GIT
    if any(word in lowered for word in _NETWORK_WORDS):
        return DenialClass.COMMAND_NETWORK
    if any(word in lowered for word in _TOO_COMPLEX_WORDS):
        return DenialClass.COMMAND_TOO_COMPLEX
    return DenialClass.COMMAND
