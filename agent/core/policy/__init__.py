"""The command policy: a real shell parser and rules per program decide each Bash call.

The pieces: :mod:`.syntax` (tree-sitter-bash and word values), :mod:`.judge` (every
command, redirection and ``&`` in the tree), :mod:`.programs` (the allowlist), with
:mod:`.git`, :mod:`.interpreters` and :mod:`.tools` for the programs with many rules,
:mod:`.paths` (containment) and :mod:`.audit` (the log line and the counts).
"""

from agent.core.policy.context import Denied, PolicyContext
from agent.core.policy.judge import judge_command

__all__ = ["Denied", "PolicyContext", "judge_command"]
