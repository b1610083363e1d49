"""Variables the model may not set: they change which programs run, or reach the harness."""

from __future__ import annotations

from agent.core.policy.context import Denied

#: Variables that change how programs are found or what they run, or reach the harness.
_GUARDED_VARIABLES = frozenset(
    {
        "PATH",
        "IFS",
        "ENV",
        "BASH_ENV",
        "PROMPT_COMMAND",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "HOME",
        "CDPATH",
        "GLOBIGNORE",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PYTHONBREAKPOINT",
        "PYTHONINSPECT",
        "NODE_OPTIONS",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "LESSOPEN",
        "LESSCLOSE",
        "HISTFILE",
        "FPATH",
        "SHELL",
        "TMOUT",
    }
)
_GUARDED_PREFIXES: tuple[str, ...] = (
    "LD_",
    "DYLD_",
    "GIT_",
    "BASH_FUNC_",
    "SSH_",
    "HARNESS_",
    "ANTHROPIC_",
)
_GUARDED_PREFIXES += ("CLAUDE_", "GITLAB_", "SUDO_")


#: Guarded by prefix, yet only ever read by the project's own scripts: the variable
#: Claude Code gives its hooks, set by a model testing the project's hook scripts. In a
#: sandboxed session only the model's own child processes see it (the CLI and the
#: harness's hooks do not inherit the Bash tool's variables).
SANDBOXED_SCRIPT_VARIABLES = frozenset({"CLAUDE_PROJECT_DIR"})


def check_variable_name(name: str, *, sandboxed: bool = False) -> None:
    """Deny setting a variable that changes what programs run or reaches the harness."""
    upper = name.upper()
    if sandboxed and name in SANDBOXED_SCRIPT_VARIABLES:
        return
    if (
        name in _GUARDED_VARIABLES
        or upper.startswith(_GUARDED_PREFIXES)
        or upper.endswith("_PROXY")
    ):
        raise Denied(
            f"setting {name} changes which programs run or how; it is not allowed "
            "(set only the project's own variables)"
        )
