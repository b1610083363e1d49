"""Development tools: test runners, linters, build tools and package managers.

Test runners and linters (pytest, mypy, ruff, tsc, eslint…) run with any flags; their
path arguments stay inside the project. Build tools run the project's own targets
(``make``, ``cargo build|test|run``, ``go test|build|vet``, ``npm test``, ``npm run X``),
which is running project code. ``uv run`` and ``poetry run`` are looked through: the
command they run is judged. Package installs (``pip install``, ``npm install``,
``cargo add``, ``go get``, ``uv sync``…) fetch from the network: denied unless the
project sets ``allow_network``, with a reason that tells the model to name the
dependency in its handoff instead. Search tools read their pattern first (``grep PATTERN
FILES``), so the pattern is not taken for a path.
"""

from __future__ import annotations

from agent.core.policy.arguments import Rule, check_paths, one_liner
from agent.core.policy.context import Denied
from agent.core.policy.inputs import open_file_of
from agent.core.policy.judging import Judge
from agent.core.policy.syntax import Word

LINTERS = frozenset(
    {
        "pytest", "py.test", "mypy", "ruff", "black", "isort", "flake8", "pylint",
        "pyflakes", "pycodestyle", "pydocstyle", "pyright", "tox", "nox", "bandit",
        "vulture", "tsc", "eslint", "prettier", "jest", "vitest", "mocha", "rustc",
        "rustfmt", "gofmt", "shellcheck", "yamllint", "markdownlint", "hadolint", "cloc",
    }
)  # fmt: skip
_PATTERN_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "grep": frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "--regexp", "--file",
                       "--max-count", "--context", "--label"}),
    "rg": frozenset({"-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-M", "-j", "-d",
                     "--type", "--glob", "--iglob", "--max-depth", "--regexp", "--file",
                     "--type-not", "--max-count", "--context", "--sort", "--color"}),
    "jq": frozenset({"-f", "--from-file", "--indent", "--tab"}),
}  # fmt: skip
_PATTERN_PROGRAMS = {"egrep": "grep", "fgrep": "grep", "ag": "rg"}


def _network(judge: Judge, what: str) -> None:
    if not judge.context.settings.allow_network:
        raise Denied(
            f"{what} fetches packages from the network, which the model's commands cannot "
            "reach; name the dependency the project needs in your handoff"
        )


def linter(judge: Judge, program: str, args: list[Word]) -> None:
    """Test runners and linters: any flags, paths inside the project."""
    check_paths(judge, args, write=True)


def search(judge: Judge, program: str, args: list[Word]) -> None:
    """grep/rg/jq: the first positional is the pattern unless ``-e``/``-f`` gave one."""
    family = _PATTERN_PROGRAMS.get(program, program)
    with_value = _PATTERN_VALUE_OPTIONS.get(family, frozenset())
    pattern_given = False
    files: list[Word] = []
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        if text is None:
            files.append(word)
            index += 1
            continue
        if text.startswith("--pre") or text.startswith("--hostname-bin"):
            raise Denied(f"{program} {text} runs a program on every file; not allowed")
        if text in with_value:
            if text in ("-e", "--regexp"):
                pattern_given = True
            elif text in ("-f", "--file", "--from-file") and index + 1 < len(args):
                judge.check_path(args[index + 1], write=False)
                pattern_given = family != "jq"
            index += 2
            continue
        if text.startswith(("--regexp=", "--file=")):
            pattern_given = True
        if text.startswith("-") and text != "-":
            index += 1
            if text == "--":
                files.extend(args[index:])
                break
            continue
        files.append(word)
        index += 1
    if not pattern_given and files:
        files.pop(0)  # the pattern: text, not a path
    check_paths(judge, files)
    check_paths(judge, [w for w in args if (w.text or "").startswith("-")])


def yq(judge: Judge, program: str, args: list[Word]) -> None:
    """yq reads YAML like jq reads JSON (sandboxed sessions: it is not on the strict
    list); ``-i`` writes the files it is given back, so they are held to the write rule."""
    if not judge.context.sandboxed:
        raise Denied(
            f"{program} is not on the harness's list of programs the model may run; use the "
            "project's own tools, or ask for it in your handoff"
        )
    if any(w.text in ("-i", "--inplace") or (w.text or "").startswith("--inplace") for w in args):
        positionals = [w for w in args if not (w.text or "-").startswith("-")]
        check_paths(judge, positionals[1:], write=True)
    search(judge, "jq", args)


def pip(judge: Judge, program: str, args: list[Word]) -> None:
    """pip lists and shows; installing fetches from the network."""
    sub = next((w.text for w in args if not (w.text or "-").startswith("-")), None)
    if any(w.text in ("-h", "--help") for w in args):
        return  # `pip install --help` prints and fetches nothing
    if sub in ("install", "download", "wheel", "uninstall", "index", "search"):
        _network(judge, f"pip {sub}")
    elif sub in ("config", "cache"):
        raise Denied(f"pip {sub} changes pip's own settings; not allowed")
    check_paths(judge, args, write=True)


_NPM_RUN = frozenset({"test", "t", "tst", "run", "run-script", "rum", "urn", "ls", "list",
                      "ll", "la", "version", "help", "explain", "why", "start", "stop",
                      "restart"})  # fmt: skip
_NPM_NETWORK = frozenset({"install", "i", "in", "ins", "add", "ci", "update", "up", "upgrade",
                          "uninstall", "remove", "rm", "un", "exec", "x", "publish", "login",
                          "adduser", "init", "create", "audit", "outdated", "link", "ln",
                          "dedupe", "prune", "rebuild", "fund", "search", "view", "info",
                          "doctor", "install-test", "it", "pack", "dlx", "unpublish"})  # fmt: skip
_YARN_RUN = frozenset({"test", "run", "lint", "build", "typecheck", "check", "format", "list",
                       "ls", "why", "start", "tsc", "jest", "vitest"})  # fmt: skip


def npm(judge: Judge, program: str, args: list[Word]) -> None:
    """npm/yarn/pnpm: test and run the project's scripts; installs need the network."""
    if any((w.text or "").startswith(("--prefix", "-C", "--dir", "--cwd")) for w in args):
        check_paths(judge, args, write=True)
    if any((w.text or "") in ("--script-shell",) or (w.text or "").startswith("--script-shell")
           for w in args):  # fmt: skip
        raise Denied(f"{program} --script-shell changes the shell scripts run in; not allowed")
    sub = next((w.text for w in args if not (w.text or "-").startswith("-")), None)
    if sub in ("--version", "-v") or (sub is None and any(
        w.text in ("--version", "-v") for w in args
    )):  # fmt: skip
        return
    if sub is None:
        if program == "npm":
            raise Denied("npm needs a subcommand: npm test or npm run SCRIPT")
        _network(judge, f"{program} (install)")
        return
    if sub == "pack" and judge.context.sandboxed and _packs_the_project(args):
        check_paths(judge, [w for w in args if (w.text or "").startswith("-")], write=True)
        return
    if sub in _NPM_NETWORK:
        _network(judge, f"{program} {sub}")
        return
    if sub == "config" or sub == "set":
        raise Denied(f"{program} {sub} changes the package manager's settings; not allowed")
    if sub in _NPM_RUN or (program != "npm" and sub in _YARN_RUN):
        return
    if program != "npm":
        return  # `yarn lint`: a script of the project's package.json
    raise Denied(f"npm {sub} is not allowed; use npm test or npm run SCRIPT")


def _packs_the_project(args: list[Word]) -> bool:
    """``npm pack`` with no package named packs the project itself: its ``prepack``
    script runs (a project script, as ``npm run`` runs) and nothing is downloaded."""
    positionals = [w for w in args if not (w.text or "-").startswith("-")]
    return [w.text for w in positionals] == ["pack"]


_CARGO_OK = frozenset({"build", "b", "test", "t", "check", "c", "clippy", "fmt", "run", "r",
                       "doc", "d", "bench", "tree", "metadata", "clean", "--version", "-V",
                       "version", "help", "locate-project", "verify-project",
                       "pkgid", "nextest", "read-manifest"})  # fmt: skip
_CARGO_NETWORK = frozenset({"install", "add", "update", "fetch", "search", "publish", "login",
                            "logout", "owner", "yank", "uninstall", "vendor", "generate-lockfile",
                            "new", "init"})  # fmt: skip


def cargo(judge: Judge, program: str, args: list[Word]) -> None:
    """cargo builds, tests and runs the project; ``--config`` and installs are denied."""
    for word in args:
        if (word.text or "").startswith("--config") or word.text == "-Z":
            raise Denied("cargo --config can make cargo run programs; use the project's config")
    sub = next((w.text for w in args if not (w.text or "-").startswith(("-", "+"))), None)
    if sub in _CARGO_NETWORK:
        _network(judge, f"cargo {sub}")
    elif sub is not None and sub not in _CARGO_OK:
        raise Denied(f"cargo {sub} is not allowed; use cargo build, test, check, clippy or run")
    check_paths(judge, args, write=True)


_GO_OK = frozenset({"test", "build", "vet", "fmt", "run", "list", "version", "env", "doc",
                    "generate", "help", "mod", "work", "clean"})  # fmt: skip
_GO_NETWORK = frozenset({"get", "install", "download", "tidy"})


def go(judge: Judge, program: str, args: list[Word]) -> None:
    """go tests, builds and runs the project; ``-exec``/``-toolexec`` and downloads are not."""
    texts = [w.text or "" for w in args]
    for text in texts:
        if text.lstrip("-").startswith(("exec", "toolexec", "overlay")):
            raise Denied(f"go {text} makes go run another program; not allowed")
    positionals = [t for t in texts if not t.startswith("-")]
    sub = positionals[0] if positionals else None
    if sub == "env" and any(t in ("-w", "-u") for t in texts):
        raise Denied("go env -w changes go's settings; not allowed")
    if sub == "tool" and positionals[1:2] == ["cover"] and judge.context.sandboxed:
        if any(t.startswith("-html") for t in texts):
            raise Denied("go tool cover -html opens a browser; use -func")
        check_paths(judge, args, write=True)  # reads a coverage profile, prints a report
        return
    if sub == "mod" and len(positionals) > 1 and positionals[1] in _GO_NETWORK:
        _network(judge, f"go mod {positionals[1]}")
    elif sub in _GO_NETWORK:
        _network(judge, f"go {sub}")
    elif sub is not None and sub not in _GO_OK:
        raise Denied(f"go {sub} is not allowed; use go test, build, vet or run")
    check_paths(judge, args, write=True)


_UV_VALUE_OPTIONS = frozenset({"--python", "-p", "--extra", "--group", "--project",
                               "--directory", "--package", "--env-file", "--index",
                               "--only-group"})  # fmt: skip


def uv(judge: Judge, program: str, args: list[Word]) -> None:
    """``uv run CMD`` judges CMD; ``uv pip`` follows pip's rules; syncing needs the network."""
    texts = [w.text or "" for w in args]
    if not texts:
        raise Denied("uv needs a subcommand: uv run COMMAND")
    if texts[0] in ("--version", "-V", "version", "help", "--help", "tree"):
        return
    if texts[0] == "run":
        index = 1
        while index < len(args) and texts[index].startswith("-"):
            option = texts[index].split("=", 1)[0]
            if option in ("--with", "--with-requirements", "--with-editable", "--script"):
                _network(judge, f"uv run {option}")
            if option in ("--directory", "--project") and "=" not in texts[index]:
                judge.check_path(args[index + 1], write=False, what="folder")
            index += 2 if option in _UV_VALUE_OPTIONS and "=" not in texts[index] else 1
            if option in ("--with", "--with-requirements", "--with-editable"):
                index += 0 if "=" in texts[index - 1] else 1
        if index >= len(args):
            raise Denied("uv run needs a command")
        judge.judge_words(args[index:])
        return
    if texts[0] == "pip":
        pip(judge, "uv pip", args[1:])
        return
    if texts[0] == "venv":
        if not judge.context.sandboxed:
            _network(judge, "uv venv")
        _uv_venv(judge, args[1:])
        return
    if texts[0] in ("sync", "add", "remove", "lock", "tool", "python", "init",
                    "export", "publish", "build", "self", "cache"):  # fmt: skip
        _network(judge, f"uv {texts[0]}")
        check_paths(judge, args, write=True)
        return
    raise Denied(f"uv {texts[0]} is not allowed; use uv run COMMAND")


_UV_VENV_NETWORK = frozenset({"--index", "--default-index", "--index-url", "-i",
                              "--extra-index-url", "--find-links", "-f",
                              "--allow-insecure-host", "--keyring-provider"})  # fmt: skip
"""Options that send ``uv venv`` to a package index (``--seed`` installs pip from one)."""
_UV_VENV_VALUES = frozenset({"--python", "-p", "--prompt", "--index-strategy",
                             "--exclude-newer", "--exclude-newer-package", "--link-mode",
                             "--refresh-package", "--color", "--python-preference",
                             "--cache-dir", "--config-file", "--directory", "--project",
                             *_UV_VENV_NETWORK})  # fmt: skip
"""The options of ``uv venv`` (its own and uv's global ones) that take a value: the word
after them is that value, never the folder (``--prompt NAME`` names no folder)."""
_UV_VENV_SHORT_VALUES = frozenset("pif")
"""Short options with a value (``-p``, ``-i``, ``-f``); any other letter is a flag."""


def uv_venv_arguments(args: list[Word]) -> tuple[list[tuple[str, Word]], list[Word]]:
    """The options of ``uv venv ARGS`` that carry a value, each with its value, and the
    positional words (the folder; uv takes one).

    Values come as uv's parser reads them: the next word (``--prompt NAME``), after
    ``=`` (``--prompt=NAME``), or glued to a short option (``-p3.12``, ``-qp 3.12``).
    After ``--`` every word is positional. A flag takes no value.
    """
    options: list[tuple[str, Word]] = []
    positionals: list[Word] = []
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        index += 1
        if text is None or not text.startswith("-") or text == "-":
            positionals.append(word)
        elif text == "--":
            positionals.extend(args[index:])
            break
        elif text.startswith("--"):
            option, equals, attached = text.partition("=")
            if option not in _UV_VENV_VALUES:
                continue
            if equals:
                options.append((option, Word(word.raw, attached)))
            elif index < len(args):
                options.append((option, args[index]))
                index += 1
        else:
            for at, letter in enumerate(text[1:], start=2):
                if letter not in _UV_VENV_SHORT_VALUES:
                    continue
                glued = text[at:].removeprefix("=")
                if glued:
                    options.append((f"-{letter}", Word(word.raw, glued)))
                elif index < len(args):
                    options.append((f"-{letter}", args[index]))
                    index += 1
                break
    return options, positionals


def _uv_venv(judge: Judge, args: list[Word]) -> None:
    """``uv venv [FOLDER] [-p PYTHON] [--prompt NAME]…``, as ``python -m venv``.

    The ``pyvenv.cfg`` and ``.pth`` it writes name the interpreter it was made from,
    which must run inside the sandbox, so they name no place the sandbox hides (the
    issue 14 attack wrote a ``.pth`` naming ``HARNESS_HOME`` by hand; writing those files
    by hand stays denied). The folder stays in the project (under ``--directory`` when
    one is given); ``--python`` is a version or an interpreter the policy would let run;
    the cache folder is written, the config file read; other values (a prompt, a
    strategy) name no file."""
    options, positionals = uv_venv_arguments(args)
    directory: Word | None = None
    for option, value in options:
        if option in _UV_VENV_NETWORK:
            _network(judge, f"uv venv {option}")
        elif option in ("-p", "--python") and "/" in (value.text or "/"):
            judge.check_path(value, write=False)
        elif option == "--cache-dir":
            judge.check_path(value, write=True)
        elif option == "--config-file":
            judge.check_path(value, write=False)
        elif option in ("--directory", "--project"):
            judge.check_path(value, write=False, what="folder")
            directory = value if option == "--directory" else directory
    if directory is not None and not positionals:
        positionals = [Word(".venv", ".venv")]  # uv's default folder, under --directory
    for folder in positionals:
        judge.check_path(_under(directory, folder), write=True)


def _under(directory: Word | None, path: Word) -> Word:
    """``path`` as uv resolves it: relative paths under ``--directory`` when given."""
    if directory is None or directory.text is None or path.text is None:
        return path
    if path.text.startswith("/"):
        return path
    return Word(f"{directory.raw}/{path.raw}", f"{directory.text.rstrip('/')}/{path.text}")


def poetry(judge: Judge, program: str, args: list[Word]) -> None:
    """``poetry run CMD`` judges CMD; installs need the network."""
    texts = [w.text or "" for w in args]
    if not texts:
        raise Denied("poetry needs a subcommand: poetry run COMMAND")
    if texts[0] == "run":
        if len(args) < 2:
            raise Denied("poetry run needs a command")
        judge.judge_words(args[1:])
        return
    if texts[0] in ("show", "check", "version", "--version", "env", "about", "help"):
        if texts[0] == "env" and texts[1:2] not in (["info"], ["list"]):
            raise Denied("poetry env changes environments; use poetry env info")
        return
    if texts[0] in ("install", "add", "remove", "update", "lock", "self", "publish", "build",
                    "init", "new", "source", "sync"):  # fmt: skip
        _network(judge, f"poetry {texts[0]}")
        check_paths(judge, args, write=True)
        return
    raise Denied(f"poetry {texts[0]} is not allowed; use poetry run COMMAND")


def make(judge: Judge, program: str, args: list[Word]) -> None:
    """make runs the project's own targets; ``--eval`` and ``SHELL=`` are denied, and a
    makefile read from an open file (``-f /dev/stdin``, ``-f -``, ``-f <(…)``) is a
    one-liner."""
    for index, word in enumerate(args):
        text = word.text or ""
        if text.startswith(("--eval", "SHELL=", ".SHELLFLAGS=", "MAKESHELL=")):
            raise Denied(f"make {text} changes the commands make runs; not allowed")
        makefile = _makefile_argument(args, index)
        source = open_file_of(makefile, sorted(judge.cwds)) if makefile else None
        if source is not None:
            one_liner(judge, f"make reading its makefile from {source.shown}")
        elif makefile is not None and makefile.text is None:
            raise Denied(f"the makefile {makefile.raw} must be written out")
    check_paths(judge, [w for w in args if "=" not in (w.text or "=")], write=True)


_MAKE_VALUE_LETTERS = frozenset("CIoW")


def _makefile_argument(args: list[Word], index: int) -> Word | None:
    """The makefile named by ``args[index]`` (``-f X``, ``-fX``, ``-kf X``, ``--file=X``)."""
    word = args[index]
    text = word.text or ""
    following = args[index + 1] if index + 1 < len(args) else None
    if text in ("--file", "--makefile", "--file=", "--makefile="):
        return following  # tree-sitter splits `--file=<(…)` after the `=`
    if text.startswith(("--file=", "--makefile=")):
        return Word(word.raw, text.partition("=")[2])
    if word.text is None and word.raw.startswith(("--file=", "--makefile=")):
        return Word(word.raw, None, plain=False)
    if not text.startswith("-") or text.startswith("--"):
        return None
    for position, letter in enumerate(text[1:], start=1):
        if letter in _MAKE_VALUE_LETTERS:
            return None
        if letter == "f":
            rest = text[position + 1 :]
            return Word(word.raw, rest) if rest else following
    return None


def npx(judge: Judge, program: str, args: list[Word]) -> None:
    """``npx TOOL`` runs the project's own ``node_modules/.bin/TOOL``; anything else would be
    downloaded, which needs the network."""
    options = [w for w in args if (w.text or "").startswith("-")]
    if any(w.text in ("-p", "--package", "-c", "--call") for w in options):
        _network(judge, f"{program} {options[0].text}")
    tool = next((w for w in args if not (w.text or "-").startswith("-")), None)
    if tool is None or tool.text is None:
        raise Denied(f"{program} needs the name of a tool of the project written out")
    name = tool.text.split("@", 1)[0] if not tool.text.startswith("@") else tool.text
    local = any(
        (folder / "node_modules" / ".bin" / name).exists() for folder in (judge.root, *judge.cwds)
    )
    if not local or "/" in name:
        _network(judge, f"{program} {tool.text} (not installed in the project)")
    rest = args[args.index(tool) + 1 :]
    check_paths(judge, rest, write=True)


#: Subcommands of tools a project installs that act beyond its files: git's hooks
#: (the harness's), or downloads.
_PROJECT_TOOL_REFUSALS: dict[str, dict[str, str]] = {
    "pre-commit": {
        "install": "writes a hook into .git/hooks, which belongs to the harness",
        "uninstall": "changes .git/hooks, which belongs to the harness",
        "install-hooks": "downloads the hooks' environments from the network",
        "autoupdate": "fetches new hook versions from the network",
        "try-repo": "fetches a hook repository from the network",
        "init-templatedir": "writes git's template folder, which belongs to the harness",
    },
}


def project_tool(judge: Judge, program: str, args: list[Word]) -> None:
    """The project's own executable (``./scripts/x.sh``, ``.venv/bin/pre-commit``): its
    paths are checked, and a known tool's subcommands that reach git's hooks or the
    network are refused."""
    refusals = _PROJECT_TOOL_REFUSALS.get(program, {})
    sub = next((w.text for w in args if not (w.text or "-").startswith("-")), None)
    if sub in refusals:
        raise Denied(f"{program} {sub} {refusals[sub]}; run {program} run instead")
    check_paths(judge, args, write=True)


RULES: dict[str, Rule] = {
    **dict.fromkeys(LINTERS, linter),
    **dict.fromkeys(("grep", "egrep", "fgrep", "rg", "ag", "jq"), search),
    "yq": yq,
    **dict.fromkeys(("pip", "pip3"), pip),
    **dict.fromkeys(("npm", "yarn", "pnpm"), npm),
    "cargo": cargo,
    "go": go,
    "uv": uv,
    "poetry": poetry,
    "make": make,
    "npx": npx,
}
