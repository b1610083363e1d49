"""Judged by consequence (issue 15): each relaxation for a sandboxed agent, and each rule
that stays, sandboxed and unsandboxed, with the sentence the model gets."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agent.core.policy import PolicyContext, judge_command
from agent.core.policy.expansion import MAX_WORDS, expand_braces
from agent.core.policy.paths import SANDBOX_SYSTEM_FOLDERS
from agent.sandbox.plan import SYSTEM_DIRS


@pytest.fixture
def sandboxed(context: PolicyContext) -> PolicyContext:
    return dataclasses.replace(context, sandboxed=True)


def verdict(context: PolicyContext, command: str) -> str:
    return judge_command(command, context) or "allow"


def test_a_context_is_unsandboxed_unless_the_agent_says_so(project: Path) -> None:
    assert PolicyContext.for_project(project).sandboxed is False
    assert PolicyContext.for_project(project, sandboxed=True).sandboxed is True


# --- relaxations: allowed sandboxed, denied unsandboxed --------------------------------

RELAXED = {
    "inline code": (
        "python -c 'from mypkg import x'",
        "python -c runs a program the harness cannot check",
    ),
    "a program on standard input": (
        "python - <<'EOF'\nprint(1)\nEOF",
        "python reading its program from standard input runs a program",
    ),
    "uv run of inline code": ("uv run python -c 'print(1)'", "python -c runs a program"),
    "node -e": ("node -e 'console.log(1)'", "node -e runs a program"),
    "brace expansion": ("mkdir -p pkg/{api,models}", "uses a brace expansion"),
    "a loop variable": (
        'for f in tests/*.py; do wc -l "$f"; done',
        "built from a variable or substitution",
    ),
    "find -exec": ("find . -name '*.py' -exec wc -l {} \\;", "find -exec runs programs"),
    "xargs": ("git ls-files | xargs wc -l", "xargs runs other programs"),
    "source activate": ("source .venv/bin/activate", "source runs a file's commands"),
    "ps": ("ps aux", "ps is not on the harness's list"),
    "pkill": ("pkill -f vite", "pkill changes the machine or its processes"),
    "lsof": ("lsof -i :3000", "lsof is not on the harness's list"),
    "git config --get": ("git config --get user.name", "git config is not allowed"),
    "background &": ("npm run dev &", "& starts a process that keeps running"),
    "a system file": ("cat /etc/os-release", "outside the project"),
    "any python module": ("python -m http.server 8000", "python -m http.server is not a"),
}


@pytest.mark.parametrize("case", RELAXED, ids=list(RELAXED))
def test_each_relaxation_holds_only_in_the_sandbox(
    context: PolicyContext, sandboxed: PolicyContext, case: str
) -> None:
    command, unsandboxed_reason = RELAXED[case]

    assert verdict(sandboxed, command) == "allow"
    assert unsandboxed_reason in verdict(context, command)


# --- rules that stay, sandboxed too -----------------------------------------------------

KEPT = {
    "git writes": ("git commit -am x", "git commit is done by the harness, not the model"),
    "git push": ("git push origin main", "git push is done by the harness"),
    "git fetch": ("git fetch origin", "git fetch talks to a remote"),
    "git config writes": ("git config user.name bob", "git config is not allowed"),
    "git config --unset": ("git config --unset user.name", "git config is not allowed"),
    "network clients": ("curl -s https://example.com", "curl is a network client"),
    "network through find": ("find . -exec curl {} \\;", "curl is a network client"),
    "network through xargs": ("ls | xargs -n1 wget", "wget is a network client"),
    "package installs": ("pip install requests", "name the dependency the project needs"),
    "a write into .git": ("echo x > .git/config", "inside .git/, which belongs to the harness"),
    "a brace into .git": ("mkdir -p {.git,src}/hooks", "inside .git/, which belongs to"),
    "a loop into .git": (
        'for f in .git/config; do echo x > "$f"; done',
        "inside .git/, which belongs to the harness",
    ),
    "a nested .git": ("touch vendor/lib/.git/config", "a .git folder or is a .git file"),
    "a .pth file": ("echo /x > .venv/lib/x.pth", "is a Python path file"),
    "a .pth through find": (
        "find . -name '*.pth' -exec sed -i s/a/b/ {} +",
        "is a Python path file",
    ),
    "nohup": ("nohup python src/app.py &", "nohup asks for a process that outlives"),
    "setsid": ("setsid python src/app.py", "setsid asks for a process that outlives"),
    "disown": ("sleep 5 & disown", "disown asks for a process that outlives"),
    "a fork bomb": (":(){ :|:& };:", "a background job inside a function can multiply"),
    "writes outside": ("python -c 'x' > /etc/x", "is outside the project"),
    "system writes": ("touch /usr/local/bin/x", "is outside the project"),
    "credentials of the system": ("cat /etc/shadow", "is outside the project"),
    "host keys": ("cat /etc/ssh/ssh_host_ed25519_key", "is outside the project"),
    "the real home": ("cat ~/.bashrc", "is outside the project"),
    "cd out of the project": ("cd /usr && ls", "the folder /usr is outside the project"),
    "source of another file": ("source .env", "source runs a file's commands"),
    "a shell reading a pipe": ("cat x.sh | bash", "runs text the harness cannot see"),
    "names pasted into shell code": (
        "ls | xargs -I{} sh -c 'echo {}'",
        "would paste file names into the code sh runs",
    ),
    "names pasted through find": (
        "find . -exec sh -c 'cat {}' \\;",
        "would paste file names into the code sh runs",
    ),
    "xargs -p": ("ls | xargs -p rm", "xargs -p waits for a person"),
    "find -ok": ("find . -ok rm {} \\;", "find -ok runs programs the harness cannot check"),
    "guarded variables": ("PATH=/tmp ./scripts/check.sh", "setting PATH changes which programs"),
    "harness variables": ("HARNESS_HOME=/x ./scripts/check.sh", "setting HARNESS_HOME changes"),
    "ANTHROPIC variables": ("ANTHROPIC_BASE_URL=x python src/app.py", "ANTHROPIC_BASE_URL"),
    "git variables": ("GIT_DIR=x ./scripts/check.sh", "setting GIT_DIR changes"),
    "a variable from a substitution": (
        'd=$(pwd); cat "$d/x"',
        "built from a variable or substitution",
    ),
    "a loop over a substitution": (
        'for f in $(ls); do cat "$f"; done',
        "built from a variable or substitution",
    ),
    "a reassigned loop variable": (
        'for f in a; do f=/etc/shadow; cat "$f"; done',
        "built from a variable or substitution",
    ),
    "interactive modules": ("python -m pdb src/app.py", "is interactive"),
    "interactive node": ("node -i", "node -i is interactive"),
    "a preloaded module outside": ("node -r /tmp/x.js src/app.js", "outside the project"),
    "rm -rf of the project through find": (
        "find . -exec rm -rf {} +",
        "would delete the whole project",
    ),
    "pre-commit install": ("pre-commit install", "not on the harness's list"),
    "killall": ("killall node", "killall changes the machine"),
    "hostname NAME": ("hostname box", "hostname NAME changes the machine's name"),
    "yq -i into .git": ("yq -i '.a = 1' .git/config", "inside .git/, which belongs to"),
    "uv venv outside": ("uv venv /tmp/env", "outside the project"),
    "uv venv with an index": ("uv venv --index-url https://x", "fetches packages from"),
    "npm pack of a package": ("npm pack left-pad", "npm pack fetches packages"),
    "go tool cover -html": ("go tool cover -html=c.out", "opens a browser"),
    "go tool compile": ("go tool compile x.go", "go tool is not allowed"),
    "another CLAUDE variable": ("CLAUDE_CONFIG_DIR=x ./scripts/check.sh", "setting CLAUDE_CON"),
}


@pytest.mark.parametrize("case", KEPT, ids=list(KEPT))
def test_each_kept_rule_holds_sandboxed_and_unsandboxed(
    context: PolicyContext, sandboxed: PolicyContext, case: str
) -> None:
    command, reason = KEPT[case]

    assert reason in verdict(sandboxed, command)
    assert verdict(context, command) != "allow"


def test_nohup_tells_the_sandboxed_model_what_to_do_instead(sandboxed: PolicyContext) -> None:
    assert verdict(sandboxed, "nohup npm run dev") == (
        "nohup asks for a process that outlives this session, and nothing started in the "
        "sandbox does (it ends with the session); to keep a job running while you work, "
        "end its command with & instead"
    )


def test_a_venv_tool_runs_by_name_but_not_its_git_hook_installer(
    project: Path, sandboxed: PolicyContext
) -> None:
    tool = project / ".venv" / "bin" / "pre-commit"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)

    assert verdict(sandboxed, "pre-commit run --all-files") == "allow"
    assert "writes a hook into .git/hooks" in verdict(sandboxed, "pre-commit install")
    assert "not on the harness's list" in verdict(
        dataclasses.replace(sandboxed, sandboxed=False), "pre-commit run --all-files"
    )


def test_a_venv_tool_named_like_a_network_client_stays_denied(
    project: Path, sandboxed: PolicyContext
) -> None:
    planted = project / ".venv" / "bin" / "curl"
    planted.write_text("#!/bin/sh\n")
    planted.chmod(0o755)

    assert "curl is a network client" in verdict(sandboxed, "curl https://example.com")


# --- the expansions, their values checked ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("pkg/{api,models}", ["pkg/api", "pkg/models"]),
        ("src/{a,b/{c,d}}", ["src/a", "src/b/c", "src/b/d"]),
        ("x{1..3}", ["x1", "x2", "x3"]),
        ("f{01..03}", ["f01", "f02", "f03"]),
        ("{a..c}", ["a", "b", "c"]),
        ("{1..7..3}", ["1", "4", "7"]),
        ("app.py{,.bak}", ["app.py", "app.py.bak"]),
        ("{a}", ["{a}"]),
        ("\\{a,b}", ["\\{a,b}"]),
        ("{}", ["{}"]),
    ],
)
def test_brace_expansion_gives_the_words_bash_gives(text: str, words: list[str]) -> None:
    assert expand_braces(text) == words


def test_a_brace_expansion_of_too_many_words_is_denied(sandboxed: PolicyContext) -> None:
    assert f"more than {MAX_WORDS} words" in verdict(sandboxed, "touch x{1..1000}")


@pytest.mark.parametrize(
    "command",
    [
        "mkdir -p /etc/{a,b}",
        "cat src/{app.py,escape/secret.txt}",
        'for f in src/escape/*; do cat "$f"; done',
        'for f in src/app.py /home; do ls "$f"; done',
        'for f in ../outside; do echo x > "$f.txt"; done',
    ],
)
def test_every_word_an_expansion_gives_is_checked(sandboxed: PolicyContext, command: str) -> None:
    assert "outside the project" in verdict(sandboxed, command)


@pytest.mark.parametrize(
    "command",
    [
        'for f in src/*.py; do cp "$f" "${f%.py}.bak"; done',
        'for f in src/app.py; do echo "${f##*/}"; cat "${f#src/}x" 2>/dev/null; done',
        'for d in src tests; do cd "$d" && ls; done',
    ],
)
def test_loop_values_go_through_trims_and_cd(sandboxed: PolicyContext, command: str) -> None:
    assert verdict(sandboxed, command) == "allow"


def test_a_loop_variable_assigned_by_read_has_no_value(sandboxed: PolicyContext) -> None:
    command = 'for f in src/app.py; do read f; cat "$f"; done'

    assert "built from a variable or substitution" in verdict(sandboxed, command)


def test_the_system_folders_are_the_sandboxs() -> None:
    assert [str(p) for p in SANDBOX_SYSTEM_FOLDERS] == list(SYSTEM_DIRS)


@pytest.mark.parametrize(
    "command",
    [
        "git config --get-regexp '^user'",
        "git config -l --show-origin",
        "git config get user.name",
        "git config --local --get core.bare",
    ],
)
def test_git_config_reads(sandboxed: PolicyContext, command: str) -> None:
    assert verdict(sandboxed, command) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "git config set user.name x",
        "git config --add x.y z",
        "git config -e",
        "git config --file=/tmp/x --get a.b",
        "git config --get a.b c d",
    ],
)
def test_git_config_writes_stay_denied(sandboxed: PolicyContext, command: str) -> None:
    assert "git config is not allowed" in verdict(sandboxed, command)


@pytest.mark.parametrize(
    "command",
    [
        "FOO=1 ./scripts/check.sh",
        "NODE_ENV=test npm test",
        "PYTHONPATH=src python src/app.py",
        "export DEBUG=1 && bash scripts/check.sh",
    ],
)
def test_the_projects_own_variables_are_set_sandboxed_or_not(
    context: PolicyContext, sandboxed: PolicyContext, command: str
) -> None:
    assert verdict(context, command) == "allow"
    assert verdict(sandboxed, command) == "allow"


@pytest.fixture
def nested_repository(project: Path) -> Path:
    (project / "vendor" / "lib" / ".git").mkdir(parents=True)
    (project / "vendor" / "lib" / ".git" / "config").write_text("[core]\n")
    (project / "vendor" / "lib" / "x.py").write_text("")
    return project


@pytest.mark.parametrize(
    "command",
    [
        "find . -path '*/.git/config' -exec sed -i s/x/y/ {} +",
        "find . -type f -exec sed -i s/a/b/ {} +",
        "find . -type f -not -path './.git/*' -exec sed -i s/a/b/ {} +",
        "find vendor -type f -mtime +30 -exec chmod 644 {} +",
        "find . -name '*.pth' -exec cp src/app.py {} \\;",
    ],
)
def test_find_exec_never_hands_a_file_the_harness_reads_to_a_writer(
    nested_repository: Path, sandboxed: PolicyContext, command: str
) -> None:
    assert "the harness reads" in verdict(sandboxed, command) or "Python path file" in verdict(
        sandboxed, command
    )


@pytest.mark.parametrize(
    "command",
    [
        "find . -type f -exec wc -l {} +",
        "find . -type f -not -path '*/.git/*' -exec sed -i s/a/b/ {} +",
        "find . -path ./.git -prune -o -path ./vendor -prune -o -type f -exec sed -i s/a/b/ {} +",
        "find src -type f -exec sed -i s/a/b/ {} +",
        "find . -name '*.py' -exec sed -i s/a/b/ {} +",
    ],
)
def test_find_exec_with_the_harness_files_left_out_is_allowed(
    nested_repository: Path, sandboxed: PolicyContext, command: str
) -> None:
    assert verdict(sandboxed, command) == "allow"
