"""The command policy: a real shell parser and rules per program decide each Bash call.

The pieces: :mod:`.syntax` (tree-sitter-bash and word values), :mod:`.judge` (every
command, redirection and ``&`` in the tree, and the folders ``cd`` reaches),
:mod:`.programs` (the allowlist), with the rules by kind in :mod:`.shell`, :mod:`.files`,
:mod:`.git`, :mod:`.interpreters` and :mod:`.tools`; :mod:`.arguments` and
:mod:`.paths` (containment), :mod:`.protected` (the files the harness reads: ``.git`` at
any depth, ``*.pth``, ``pyvenv.cfg``), :mod:`.inputs` (programs read from standard input
or another open file), :mod:`.variables` (guarded names) and :mod:`.audit` (the log line
and the counts). See ``docs/security.md`` for every rule and why.
"""

from agent.core.policy.context import Denied, PolicyContext
from agent.core.policy.judge import judge_command

__all__ = ["Denied", "PolicyContext", "judge_command"]
