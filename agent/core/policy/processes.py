"""Process tools (``ps``, ``pgrep``, ``pkill``, ``kill``, ``lsof``, ``ss``): sandbox only.

A sandboxed session has a PID namespace (and a network and a UTS namespace) of its
own: ``ps`` and ``pgrep`` list only the session's processes, ``kill`` and ``pkill``
reach only them, ``lsof -i :3000`` and ``ss -tlnp`` see only the session's sockets,
``hostname -I`` its own addresses. A model stopping the dev server
it started, or finding which of its processes holds a port, acts on nothing but its
own session. Unsandboxed, the same tools see and signal every process of the user
(the daemon, other agents): they stay denied there.
"""

from __future__ import annotations

from agent.core.policy.arguments import Rule, check_paths
from agent.core.policy.context import Denied
from agent.core.policy.judging import Judge
from agent.core.policy.syntax import Word

#: Programs that only list processes, and those that signal them.
LISTING = frozenset({"ps", "pgrep", "lsof", "ss", "netstat", "hostname"})
SIGNALLING = frozenset({"kill", "pkill"})


def _unsandboxed(program: str) -> Denied:
    if program in SIGNALLING:
        return Denied(
            f"{program} changes the machine or its processes, not the project; it is not "
            "allowed (outside the sandbox it would reach every process of the user)"
        )
    return Denied(
        f"{program} is not on the harness's list of programs the model may run outside "
        "the sandbox (it would show the machine's processes, sockets or names); use the "
        "project's own tools, or ask for it in your handoff"
    )


def process_tool(judge: Judge, program: str, args: list[Word]) -> None:
    """Any option in a sandboxed session; the files ``lsof`` is asked about stay in the
    project. Values must be written out (a PID from ``$(…)`` is judged as the
    substitution it is, and the word is then unknown text, which is fine for a PID)."""
    if not judge.context.sandboxed:
        raise _unsandboxed(program)
    if program == "hostname" and any(not (w.text or "").startswith("-") for w in args):
        raise Denied("hostname NAME changes the machine's name; hostname alone prints it")
    if program == "lsof":
        files = [w for w in args if w.text is not None and w.text.startswith(("/", "."))]
        check_paths(judge, files)


RULES: dict[str, Rule] = dict.fromkeys(LISTING | SIGNALLING, process_tool)
