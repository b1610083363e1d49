"""How the harness runs git without running anything the repository configured.

The model can write the project's ``.git/config`` (without the sandbox) and its
``.gitattributes``; git would then run a hook, an fsmonitor, a filter or diff
driver, a pager, an editor or an ssh command *as the harness* at its next commit
or status. Every git the harness starts therefore gets:

- an environment without the system and global config (``GIT_CONFIG_NOSYSTEM``,
  ``GIT_CONFIG_GLOBAL=/dev/null``), without prompts, pagers and editors, and
  without the variables that inject config or programs (``GIT_CONFIG_PARAMETERS``,
  ``GIT_EXTERNAL_DIFF``, ``GIT_SSH``, askpass, trace);
- ``-c`` overrides for every setting that runs a program, fixed ones plus one set per
  filter, diff and merge driver the repository's config names (read with ``git config``,
  which runs nothing); an empty ``diff.<name>.command`` cannot be run, so ``diff``,
  ``log`` and ``show`` also get ``--no-ext-diff``;
- no descent into nested repositories: the model can make any folder a repository
  (or a ``.git`` file pointing at one) with its *own* config and ``.gitattributes``,
  whose drivers the overrides above cannot name. git reads that config only when it
  recurses into the submodule (``status``/``diff`` asking whether it is dirty, a
  ``checkout`` or ``fetch`` that recurses, a ``--submodule=diff`` summary), so every
  recursion is switched off (``diff.ignoreSubmodules=all``, ``submodule.recurse``,
  ``fetch``/``push.recurseSubmodules``, ``status.submoduleSummary``,
  ``diff.submodule=short``) and ``status``/``diff`` also get ``--ignore-submodules=all``.
  ``.gitmodules`` (``update = !cmd``, ``url``) is read only by ``git submodule``,
  which the harness never runs.

``url.*.insteadOf`` cannot be unset with ``-c`` (the longest match wins and a tie
keeps the repository's rule), so :func:`url_rewrites` lets a push refuse instead.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

from common.errors import GitError
from common.workspace import git_jail

#: Settings that make git run a program, and the value that switches each off.
FIXED_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", "/dev/null"),
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("core.askPass", ""),
    ("core.gitProxy", ""),
    ("core.sshCommand", "ssh"),
    ("core.alternateRefsCommand", ""),
    ("diff.external", ""),
    ("credential.helper", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("push.gpgSign", "false"),
    ("gpg.program", "gpg"),
    ("protocol.ext.allow", "never"),
    ("uploadpack.packObjectsHook", ""),
    # Never descend into a nested repository: its own config would name the programs.
    ("diff.ignoreSubmodules", "all"),
    ("diff.submodule", "short"),
    ("status.submoduleSummary", "false"),
    ("submodule.recurse", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("push.recurseSubmodules", "no"),
    # git's built-in ``union`` merge keeps both sides' lines and reports no conflict: a
    # model-written ``.gitattributes`` (``* merge=union``) would make the harness merge an
    # issue's branch into code nobody reviewed. A configured driver of that name is looked
    # up before the built-in one, so the merge reports the conflict instead.
    ("merge.union.driver", "false"),
)
"""Applied to every git the harness runs; ``credential.helper=`` empties the helper list."""

#: Variables of the caller's environment that would inject config, programs or tracing.
DROPPED_VARIABLES = frozenset(
    {
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_EXTERNAL_DIFF",
        "GIT_SSH",
        "GIT_PROXY_COMMAND",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_SYSTEM",
        "GIT_EXEC_PATH",
        "GIT_TRACE",
        "GIT_TRACE_CURL",
        "GIT_TRACE_PACKET",
        "GIT_TRACE2",
        "GIT_TRACE2_EVENT",
        "GIT_TRACE2_PERF",
        "GIT_CURL_VERBOSE",
        "GIT_TEMPLATE_DIR",
    }
)
#: What every harness git's environment is set to.
FIXED_VARIABLES: Mapping[str, str] = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_SEQUENCE_EDITOR": "true",
    "GIT_OPTIONAL_LOCKS": "0",
}
_DRIVER = re.compile(r"^(filter|diff|merge)\.(?P<name>.+)\.(?P<key>[^.]+)$", re.IGNORECASE)
_DRIVER_KEYS = {
    "filter": (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")),
    "diff": (("textconv", "cat"), ("command", "")),
    "merge": (("driver", "false"),),
}


def safe_environ(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) made safe for a harness git."""
    source = os.environ if base is None else base
    env = {
        name: value
        for name, value in source.items()
        if name not in DROPPED_VARIABLES
        and not name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))
    }
    env.update(FIXED_VARIABLES)
    env.setdefault("GIT_SSH_COMMAND", "ssh")
    return env


#: Subcommands that would run an external diff driver without ``--no-ext-diff``.
_DIFFING = frozenset({"diff", "log", "show", "format-patch"})
#: Subcommands that look into a submodule's work tree unless told not to.
_SUBMODULE_LOOKING = frozenset({"status", "diff", "diff-index", "diff-files"})


def command_args(args: tuple[str, ...]) -> list[str]:
    """``args`` with ``--no-ext-diff`` after a diffing subcommand and
    ``--ignore-submodules=all`` after one that would look into a nested repository."""
    if not args:
        return []
    extra: list[str] = []
    if args[0] in _DIFFING:
        extra.append("--no-ext-diff")
    if args[0] in _SUBMODULE_LOOKING:
        extra.append("--ignore-submodules=all")
    return [args[0], *extra, *args[1:]]


def repository_config(repo: Path) -> list[tuple[str, str]]:
    """Every ``key=value`` of the repository's own config (includes followed), in order.

    ``git config --list`` only reads files; with the system and global config switched
    off this is exactly what the repository adds. An unreadable config gives ``[]``:
    the git command that follows reports the problem in its own words.
    """
    done = subprocess.run(
        [str(git_jail.git_binary()[0]), "-C", str(repo), "config", "--list", "-z"],
        capture_output=True,
        check=False,
        env=safe_environ(),
    )
    if done.returncode != 0:
        return []
    pairs: list[tuple[str, str]] = []
    for entry in done.stdout.decode(errors="replace").split("\0"):
        if entry:
            key, _, value = entry.partition("\n")
            pairs.append((key, value))
    return pairs


def driver_overrides(config: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``-c`` settings that switch off every filter, diff and merge driver in ``config``."""
    seen: set[tuple[str, str]] = set()
    overrides: list[tuple[str, str]] = []
    for key, _value in config:
        match = _DRIVER.match(key)
        if match is None:
            continue
        section = key.split(".", 1)[0].lower()
        name = match["name"]
        if (section, name) in seen:
            continue
        seen.add((section, name))
        overrides.extend((f"{section}.{name}.{k}", v) for k, v in _DRIVER_KEYS[section])
    return overrides


def user_identity() -> list[tuple[str, str]]:
    """The user's own ``user.name`` / ``user.email`` from their global config.

    The global config is switched off for harness gits (it could name programs too),
    but the author identity in it is the user's wish: it is read here, as data only.
    """
    env = safe_environ()
    env.pop("GIT_CONFIG_GLOBAL")
    done = subprocess.run(
        [
            str(git_jail.git_binary()[0]),
            "config",
            "--global",
            "--get-regexp",
            r"^user\.(name|email)$",
        ],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd="/",
    )
    pairs: list[tuple[str, str]] = []
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        if value:
            pairs.append((key, value))
    return pairs


def override_args(repo: Path, subcommand: str = "") -> list[str]:
    """The ``-c`` arguments for a harness git in ``repo``: the fixed ones and its drivers'.

    A ``commit`` or a ``merge`` (an issue's branch into the feature branch makes a merge
    commit) also gets the user's global identity for the parts the repository does not
    set itself.
    """
    config = repository_config(repo)
    pairs = [*FIXED_OVERRIDES, *driver_overrides(config)]
    if subcommand in ("commit", "merge"):
        local = {key.lower() for key, _ in config}
        pairs.extend((key, value) for key, value in user_identity() if key not in local)
    args: list[str] = []
    for key, value in pairs:
        args.extend(("-c", f"{key}={value}"))
    return args


def url_rewrites(repo: Path, url: str) -> list[str]:
    """The repository's ``url.<base>.insteadOf`` / ``pushInsteadOf`` rules that match ``url``.

    A push must refuse when this is not empty: such a rule would send the token to
    another host, and ``-c`` cannot take it back.
    """
    found: list[str] = []
    for key, value in repository_config(repo):
        lowered = key.lower()
        rewrites = lowered.startswith("url.") and lowered.endswith((".insteadof", ".pushinsteadof"))
        if rewrites and value and url.startswith(value):
            found.append(f"{key}={value}")
    return found


def refuse_rewrites(repo: Path, url: str, what: str) -> None:
    """Raise when the repository's config rewrites ``url``.

    Raises:
        GitError: naming the rules (never the token: ``url`` carries none).
    """
    rules = url_rewrites(repo, url)
    if rules:
        raise GitError(
            f"git {what}: refusing, the repository's config rewrites the URL "
            f"({'; '.join(rules)}); remove the rule from .git/config"
        )
