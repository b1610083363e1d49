"""The embedded default model: a local Anthropic Messages API server answering from a playbook.

The Claude CLI is pointed at it with ``ANTHROPIC_BASE_URL``; it answers every
request from a JSON playbook, so a whole harness run works with no account and
no network (demo, tests, CI). :mod:`~agent.model.playbook` chooses the answer,
:mod:`~agent.model.wire` puts it in the API's format, :mod:`~agent.model.server`
serves it and :mod:`~agent.model.launcher` runs it as a child process.
"""

from agent.model.launcher import LocalModel, LocalModelError
from agent.model.playbook import Playbook, PlaybookError, choose_reply, load_playbook
from agent.model.server import FAULTS, Fault, PlaybookServer, parse_faults

__all__ = [
    "FAULTS",
    "Fault",
    "LocalModel",
    "LocalModelError",
    "Playbook",
    "PlaybookError",
    "PlaybookServer",
    "choose_reply",
    "load_playbook",
    "parse_faults",
]
