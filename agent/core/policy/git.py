"""git for the model is read-only: it looks at history, the harness changes it.

Allowed: ``status``, ``diff``, ``log``, ``show``, ``blame``, ``grep``, ``ls-files`` and
similar readers (``rev-parse``, ``ls-tree``, ``cat-file``, ``shortlog``, ``describe``…),
``branch``/``tag``/``remote``/``stash``/``reflog`` only to list. Denied: ``-c`` and
``--config-env`` (configuration can make git run programs: pagers, hooks, fsmonitor,
aliases), ``--exec-path``, ``--git-dir``/``--work-tree``, pagers (``-p``), aliases (any
unknown subcommand), ``config`` (a sandboxed session may read it: ``--get``,
``--list``, ``--get-regexp``), ``update-ref``, ``symbolic-ref``, commits, branch
moves, pushes and every command that talks to a remote. ``--output`` files stay inside
the project; ``--ext-diff``, ``--textconv`` and ``grep -O`` (programs) are denied.
"""

from __future__ import annotations

from pathlib import Path

from agent.core.policy.arguments import Rule
from agent.core.policy.context import Denied
from agent.core.policy.judging import Judge
from agent.core.policy.syntax import Word

READ_ONLY = frozenset(
    {
        "status", "diff", "log", "show", "blame", "grep", "ls-files", "rev-parse", "ls-tree",
        "cat-file", "shortlog", "describe", "rev-list", "merge-base", "name-rev",
        "whatchanged", "diff-tree", "diff-files", "diff-index", "show-ref", "for-each-ref",
        "count-objects", "annotate", "check-ignore", "check-attr", "version", "show-branch",
        "range-diff", "cherry",
    }
)  # fmt: skip
#: Subcommands allowed only to list (no positional arguments but patterns).
LISTING = frozenset({"branch", "tag", "remote", "stash", "reflog"})
#: Subcommands the harness owns (the wording the hook has always used).
OWNED = frozenset(
    {"commit", "push", "checkout", "switch", "reset", "rebase", "merge", "branch", "add",
     "rm", "mv", "restore", "cherry-pick", "revert", "am", "apply", "tag", "stash",
     "update-ref", "symbolic-ref", "worktree", "clean", "notes", "replace", "gc", "prune",
     "filter-branch", "init", "bisect", "commit-tree", "write-tree", "read-tree",
     "update-index", "hash-object", "pack-refs", "reflog"}
)  # fmt: skip
NETWORK = frozenset(
    {"fetch", "pull", "push", "clone", "ls-remote", "submodule", "remote", "send-email",
     "request-pull", "archive", "daemon", "http-backend", "instaweb", "svn", "p4"}
)  # fmt: skip
_GLOBAL_FLAGS = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
     "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--no-lazy-fetch",
     "--version", "--help"}
)  # fmt: skip
_PROGRAM_OPTIONS = ("--ext-diff", "--textconv", "--upload-pack", "--receive-pack", "--exec")
_OUTPUT_OPTIONS = ("--output",)
_LISTING_FLAGS = frozenset(
    {"-a", "--all", "-r", "--remotes", "-l", "--list", "-v", "-vv", "--verbose",
     "--show-current", "--contains", "--no-contains", "--merged", "--no-merged", "--color",
     "--no-color", "--column", "--no-column", "-n", "--points-at", "--format", "--sort",
     "--ignore-case", "-i", "--abbrev", "--no-abbrev", "--omit-empty"}
)  # fmt: skip


def git(judge: Judge, program: str, args: list[Word]) -> None:
    """Judge a git command: global options, then the subcommand and its arguments."""
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        if text is None:
            raise Denied(
                f"the git argument {word.raw} is built from a variable or substitution; "
                "write it out"
            )
        if not text.startswith("-"):
            break
        if text in ("-c", "--config-env") or text.startswith(("-c", "--config-env")):
            raise Denied(
                "git -c and --config-env set configuration, which can make git run programs; "
                "run git without them"
            )
        if text.startswith("--exec-path") and text != "--exec-path":
            raise Denied("git --exec-path=DIR makes git run programs from DIR; not allowed")
        if text == "-C":
            if index + 1 >= len(args):
                raise Denied("git -C needs a folder")
            judge.check_path(args[index + 1], write=False, what="folder")
            index += 2
            continue
        if text in ("-p", "--paginate"):
            raise Denied("git -p starts a pager, which can run programs; use --no-pager")
        if text not in _GLOBAL_FLAGS:
            raise Denied(
                f"git {text} changes where or how git runs; run git with the subcommand only"
            )
        index += 1
    if index >= len(args):
        return
    sub = args[index].text or ""
    rest = args[index + 1 :]
    if sub in READ_ONLY:
        _check_read_args(judge, sub, rest)
        return
    if sub == "worktree" and [w.text for w in rest] in (["list"], ["list", "--porcelain"]):
        return  # lists; every other worktree command is the harness's
    if sub in LISTING and _lists(sub, rest):
        _check_read_args(judge, sub, rest)
        return
    if sub in OWNED:
        raise Denied(f"git {sub} is done by the harness, not the model")
    if sub in NETWORK:
        raise Denied(
            f"git {sub} talks to a remote; the model's git is read-only and has no network "
            "(the harness pushes at the end of the run)"
        )
    if sub == "config" and judge.context.sandboxed and _config_reads(judge, rest):
        return
    if sub == "config":
        raise Denied(
            "git config is not allowed: git configuration can make git run programs "
            "(read settings from .git/config with the Read tool)"
        )
    raise Denied(
        f"git {sub} is not one of the read-only git commands the model may run (status, "
        "diff, log, show, blame, grep, ls-files…); aliases are not allowed"
    )


#: ``git config`` options that only read (``--get``, ``--list``…) or shape the output.
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list",
                           "-l", "--show-origin", "--show-scope", "--null", "-z", "--name-only",
                           "--bool", "--int", "--bool-or-int", "--path", "--expiry-date",
                           "--local", "--global", "--system", "--worktree", "--includes",
                           "--no-includes"})  # fmt: skip
_CONFIG_READ_VALUES = ("--type=", "--default=")
_CONFIG_READ_SUBCOMMANDS = frozenset({"get", "list"})


def _config_reads(judge: Judge, rest: list[Word]) -> bool:
    """Whether ``git config …`` only reads: ``--get``, ``--get-all``, ``--get-regexp``,
    ``--list``, the ``get``/``list`` subcommands of git 2.46, or one name alone
    (``git config user.name``). Reading runs nothing and changes nothing; every write
    (a value, ``--add``, ``--unset``, ``--edit``, ``--file``…) stays denied."""
    texts = [w.text for w in rest]
    if any(text is None for text in texts):
        return False
    words = [t for t in texts if t is not None]
    if words and words[0] in _CONFIG_READ_SUBCOMMANDS:
        words = ["--list" if words[0] == "list" else "--get", *words[1:]]
    options = [t for t in words if t.startswith("-")]
    names = [t for t in words if not t.startswith("-")]
    if any(o not in _CONFIG_READS and not o.startswith(_CONFIG_READ_VALUES) for o in options):
        return False
    if "--list" in options or "-l" in options:
        return not names
    if {"--get-regexp", "--get-urlmatch", "--get-all", "--get"} & set(options):
        return len(names) <= 2  # a name and a value pattern (or URL)
    return len(names) == 1


#: Listing filters followed by the commit they filter by.
_COMMIT_FILTERS = frozenset({"--contains", "--no-contains", "--merged", "--no-merged",
                             "--points-at"})  # fmt: skip


def _lists(sub: str, rest: list[Word]) -> bool:
    """Whether ``git branch|tag|remote|stash|reflog …`` only lists."""
    texts = [w.text or "" for w in rest]
    if sub == "remote":
        return all(t in ("-v", "--verbose") for t in texts)
    if sub == "stash":
        return bool(texts) and texts[0] in ("list", "show")
    if sub == "reflog":
        return not texts or texts[0] in ("list", "show")
    listing = any(t in ("-l", "--list") for t in texts)
    takes_commit = False
    for text in texts:
        if text.startswith("-"):
            if text.split("=", 1)[0] not in _LISTING_FLAGS:
                return False
            takes_commit = text in _COMMIT_FILTERS
        elif takes_commit:
            takes_commit = False  # `--contains 966e0df`: the commit it filters by
        elif not listing and text:
            return False
    return True


def _check_read_args(judge: Judge, sub: str, rest: list[Word]) -> None:
    no_index = any(w.text == "--no-index" for w in rest)
    for position, word in enumerate(rest):
        text = word.text
        if text is None:
            judge.check_path(word, write=False)
            continue
        if text.startswith(_PROGRAM_OPTIONS):
            raise Denied(f"git {sub} {text} runs an external program; not allowed")
        if sub == "grep" and (
            text in ("-O", "--open-files-in-pager") or text.startswith(("-O", "--open-files"))
        ):
            raise Denied("git grep -O opens a pager program; not allowed")
        if text.startswith(_OUTPUT_OPTIONS):
            value = text.partition("=")[2]
            if value:
                judge.check_path(Word(word.raw, value), write=True, what="output file")
            elif position + 1 < len(rest):
                judge.check_path(rest[position + 1], write=True, what="output file")
            continue
        if text.startswith("-"):
            continue
        if no_index or text.startswith(("/", "~")) or ".." in Path(text).parts:
            judge.check_path(word, write=False)


RULES: dict[str, Rule] = {"git": git}
