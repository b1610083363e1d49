"""Programs read from an open file are one-liners (issue 14, item 8).

``bash /dev/stdin <<< '…'``, ``python3 /dev/fd/0``, ``sh <(…)``, ``node -``: the program
is text written in the command, not a project file. Denied unless the project allows
one-liners; then a shell's literal here-string or here-document is judged like ``-c``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.policy import PolicyContext, judge_command
from agent.core.policy.inputs import descriptor_of, standard_input_text
from agent.core.policy.syntax import parse
from common.schemas.policy import PolicySettings


def verdict(context: PolicyContext, command: str) -> str:
    return judge_command(command, context) or "allow"


@pytest.fixture
def one_liners(project: Path) -> PolicyContext:
    return PolicyContext.for_project(project, PolicySettings(allow_one_liners=True))


SHELL_FORMS = [
    "bash /dev/stdin <<< 'id'",
    "sh /dev/stdin <<E\nid\nE",
    "bash /dev/fd/0 <<< id",
    "bash /proc/self/fd/0 <<< id",
    "bash /proc/thread-self/fd/0 <<< id",
    "bash /proc/1/task/1/fd/0 <<< id",
    "bash //dev/./stdin <<< id",
    "bash ../../../../../../../../../../dev/stdin <<< id",
    'bash "/dev/stdin" <<< id',
    "bash <(echo id)",
    "bash <<< id",
    "bash 0<<< id",
    "bash - <<'E'\nid\nE",
    "bash -s <<< id",
    "bash -e -- /dev/stdin <<< id",
    "timeout 5 dash /dev/stdin <<< id",
    "env sh /dev/stdin <<< id",
    "bash -c 'bash /dev/stdin' <<< id",
    "echo id | ksh /dev/fd/0",
    "sh /dev/stdout",
]
INTERPRETER_FORMS = [
    "python3 /dev/stdin <<< 'import os'",
    "env python3 /dev/stdin <<< 'import os'",
    "python3 -u /dev/fd/0 <<< x",
    "python3 /proc/self/fd/0 <<< x",
    "python3 /dev/fd/3 3< src/app.py",
    "python3 <(echo 'import os')",
    "python3 - <<'EOF'\nimport os\nEOF",
    "python3 0<<< 'import os'",
    "uv run python /dev/stdin <<< x",
    "coverage run /dev/stdin <<< x",
    "node /dev/stdin <<< x",
    "node -- /dev/fd/0",
    "perl -w /dev/stdin",
    "ruby <(echo x)",
    "php /dev/stdin",
    "make -f /dev/stdin <<< x",
    "make -f - <<< x",
    "make -kf /dev/fd/0",
    "make --file=<(echo x)",
    "make --makefile=/proc/self/fd/0",
]


@pytest.mark.parametrize("command", SHELL_FORMS)
def test_a_shell_reading_its_commands_from_an_open_file_is_a_one_liner(
    context: PolicyContext, command: str
) -> None:
    reason = verdict(context, command)

    assert "reading its commands from" in reason
    assert "run the commands directly" in reason


@pytest.mark.parametrize("command", INTERPRETER_FORMS)
def test_an_interpreter_reading_its_program_from_an_open_file_is_a_one_liner(
    context: PolicyContext, command: str
) -> None:
    reason = verdict(context, command)

    assert "reading its" in reason
    assert "write it to a file in the project and run that file" in reason


def test_the_reason_names_where_the_program_came_from(context: PolicyContext) -> None:
    assert verdict(context, "python3 /proc/self/fd/0").startswith(
        "python3 reading its program from /proc/self/fd/0 runs a program the harness cannot check"
    )
    assert verdict(context, "bash <(echo id)").startswith(
        "bash reading its commands from the process substitution <(echo id)"
    )


@pytest.mark.parametrize(
    "command",
    [
        "bash /dev/stdin <<< 'ls src'",
        "sh /dev/stdin <<'E'\ncd src && ls\nE",
        "bash <<E\nls\nE",
        "bash 0<<< 'git status'",
        "bash -s <<< 'python -m pytest -q'",
    ],
)
def test_with_one_liners_a_literal_here_text_is_judged_and_allowed(
    one_liners: PolicyContext, command: str
) -> None:
    assert verdict(one_liners, command) == "allow"


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("bash /dev/stdin <<< 'curl x'", "curl is a network client"),
        ("sh /dev/stdin <<'E'\nls\nrm -rf /\nE", "the path / is outside the project"),
        ("bash <<< 'cat /etc/passwd'", "outside the project"),
        ("bash 0<<< 'curl x'", "curl is a network client"),
        ("bash /dev/stdin <<< 'echo x > sub/.git/config'", "inside a .git folder"),
    ],
)
def test_with_one_liners_a_literal_here_text_is_judged_like_dash_c(
    one_liners: PolicyContext, command: str, reason: str
) -> None:
    assert reason in verdict(one_liners, command)


@pytest.mark.parametrize(
    "command",
    [
        "echo ls | bash /dev/stdin",
        "bash <(echo ls)",
        'bash /dev/stdin <<< "$CMD"',
        "bash <<E\n$CMD\nE",
        "bash /dev/fd/3 3<<'E'\nls\nE",
        "bash /dev/stdin < src/app.py",
        "bash <<< ls <<< id",
        "bash /dev/stdin",
    ],
)
def test_with_one_liners_text_the_judge_cannot_see_is_still_denied(
    one_liners: PolicyContext, command: str
) -> None:
    assert "runs text the harness cannot see" in verdict(one_liners, command)


def test_with_one_liners_an_interpreter_from_an_open_file_runs_with_checked_paths(
    one_liners: PolicyContext,
) -> None:
    assert verdict(one_liners, "python3 /dev/stdin <<< 'print(1)'") == "allow"
    assert verdict(one_liners, "env python3 /dev/stdin src/app.py <<< x") == "allow"
    assert verdict(one_liners, "node /dev/stdin") == "allow"
    assert verdict(one_liners, "make -f /dev/stdin <<< x") == "allow"
    assert "outside the project" in verdict(one_liners, "python3 /dev/stdin /etc/passwd")
    assert "outside the project" in verdict(one_liners, "bash /dev/stdin /etc/x <<< ls")


@pytest.mark.parametrize(
    "command",
    [
        "cat /dev/stdin > src/out.txt",
        "python3 src/app.py < /dev/null",
        "python3 src/app.py /dev/stdin",
        "diff <(ls src) <(ls tests)",
        'grep -c foo <<< "$LINE"',
        "grep x <<< /etc/passwd",
        "wc -l <<< 'a b c'",
        "bash scripts/check.sh < /dev/null",
        "make -f Makefile test",
        "make -C src -f Makefile",
        "sh scripts/check.sh 2>/dev/null",
    ],
)
def test_ordinary_input_and_device_forms_stay_allowed(context: PolicyContext, command: str) -> None:
    assert verdict(context, command) == "allow"


def test_a_link_to_an_open_file_is_not_a_way_around(context: PolicyContext) -> None:
    reason = verdict(context, "ln -s /dev/stdin src/run.sh && bash src/run.sh <<< id")

    assert reason.startswith("a link to /dev/stdin would let a program read its input")
    assert "a link to /dev/fd/0" in verdict(context, "ln -sf /dev/fd/0 run.sh")


def test_a_link_planted_earlier_that_leads_to_an_open_file_is_one_too(
    context: PolicyContext, project: Path
) -> None:
    (project / "src" / "in").symlink_to("/dev/stdin")
    (project / "src" / "fd").symlink_to("/dev/fd", target_is_directory=True)
    (project / "src" / "in2").symlink_to("in")

    assert "bash reading its commands from src/in " in verdict(context, "bash src/in <<< id")
    assert "reading its commands from src/fd/0" in verdict(context, "sh src/fd/0 <<< id")
    assert "python3 reading its program from src/in2" in verdict(context, "python3 src/in2")
    assert verdict(context, "python3 src/app.py") == "allow"


def test_a_redirection_tree_sitter_puts_on_a_list_is_checked_where_the_cd_went(
    context: PolicyContext,
) -> None:
    # `src/escape` leads outside the project; from the root `escape/y` would be inside.
    assert "outside the project" in verdict(context, "cd src && echo x > escape/y")
    assert "outside the project" in verdict(context, "cd src && cat <<'E' > escape/y\nx\nE")
    assert verdict(context, "cd src && echo x > out.txt") == "allow"


@pytest.mark.parametrize(
    ("text", "descriptor"),
    [
        ("/dev/stdin", 0),
        ("/dev/stdout", 1),
        ("/dev/fd/0", 0),
        ("/dev/fd/12", 12),
        ("/proc/self/fd/0", 0),
        ("/proc/thread-self/fd/3", 3),
        ("/proc/4242/fd/0", 0),
        ("/proc/self/task/7/fd/0", 0),
        ("//dev//stdin", 0),
        ("/dev/./../dev/stdin", 0),
        ("../../dev/stdin", 0),
        ("/dev/null", None),
        ("/dev/fd", None),
        ("/proc/self/fdinfo/0", None),
        ("src/dev/stdin", None),
        ("stdin", None),
    ],
)
def test_descriptor_paths_are_recognised(text: str, descriptor: int | None) -> None:
    assert descriptor_of(text, [Path("/a/b")]) == descriptor


@pytest.mark.parametrize(
    ("command", "text"),
    [
        ("bash <<< 'ls -l'", "ls -l\n"),
        ("bash <<'E'\n$x `id`\nE", "$x `id`\n"),
        ("bash <<E\nls\nE", "ls\n"),
        ("bash <<-E\n\tls\n\tE", "ls\n"),
        ("bash <<E\n$x\nE", None),
        ('bash <<< "$x"', None),
        ("bash <<< a <<< b", None),
        ("bash 3<<E\nls\nE", None),
    ],
)
def test_the_standard_input_text_of_a_command(command: str, text: str | None) -> None:
    redirects, stack = [], [parse(command)]
    while stack:
        node = stack.pop()
        if node.type.endswith("_redirect"):
            redirects.append(node)
        stack.extend(node.named_children)

    assert standard_input_text(redirects, command.encode()) == text
