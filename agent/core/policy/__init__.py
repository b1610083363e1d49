"""The command policy: a real shell parser and rules per program decide each Bash call.

The pieces: :mod:`.syntax` (tree-sitter-bash and word values), :mod:`.judge` (every
command, redirection and ``&`` in the tree, and the folders ``cd`` reaches),
:mod:`.programs` (the allowlist), with the rules by kind in :mod:`.shell`, :mod:`.files`,
:mod:`.git`, :mod:`.interpreters` and :mod:`.tools`; :mod:`.arguments` and
:mod:`.paths` (containment), :mod:`.protected` (the files the harness reads: ``.git`` at
any depth, ``*.pth``, ``pyvenv.cfg``), :mod:`.inputs` (programs read from standard input
or another open file), :mod:`.variables` (guarded names) and :mod:`.audit` (the log line
and the counts). See ``docs/security.md`` for every rule and why.

``Denied``, ``PolicyContext`` and ``judge_command`` are loaded when first asked for: a
reader of the counts (``harness status``) imports :mod:`.audit` without the parser and
its tree-sitter grammar.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.core.policy.context import Denied, PolicyContext
    from agent.core.policy.judge import judge_command

__all__ = ["Denied", "PolicyContext", "judge_command"]

_HOMES = {
    "Denied": "agent.core.policy.context",
    "PolicyContext": "agent.core.policy.context",
    "judge_command": "agent.core.policy.judge",
}


def __getattr__(name: str) -> object:
    """``from agent.core.policy import judge_command``: the name from its module, now."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
