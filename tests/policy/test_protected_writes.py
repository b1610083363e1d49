"""Writes into the files the harness reads are denied at any depth (issue 14, item 8).

A nested ``.git`` (folder or ``gitdir:`` file) names programs the harness's git would
run; ``*.pth`` and ``pyvenv.cfg`` steer Python's path and steered the sandbox's mounts.
Reading them stays allowed, and so do look-alikes (``x.pth.txt``, ``git/``).
"""

from __future__ import annotations

from pathlib import Path, PurePath

import pytest

from agent.core.policy import PolicyContext, judge_command
from agent.core.policy.protected import (
    Protection,
    is_protected_name,
    protection,
    refusal_at,
    write_refusal,
)
from common.schemas.policy import PolicySettings

GIT_REASON = "is inside a .git folder or is a .git file"
PYTHON_REASON = "is a Python path file (*.pth or pyvenv.cfg)"
SHARED = "the harness's git and sandbox read these"


def verdict(context: PolicyContext, command: str) -> str:
    return judge_command(command, context) or "allow"


@pytest.fixture
def nested(project: Path) -> Path:
    """The project with a nested repository, a venv's site-packages and a link into it."""
    (project / "vendor" / "lib" / ".git" / "hooks").mkdir(parents=True)
    (project / "vendor" / "lib" / ".git" / "config").write_text("[core]\n")
    (project / "sub").mkdir()
    (project / ".venv" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / "gitlink").symlink_to(project / "vendor" / "lib" / ".git")
    return project


@pytest.mark.parametrize(
    "command",
    [
        "echo '[filter \"x\"]' > vendor/lib/.git/config",
        "echo x >> vendor/lib/.git/config",
        "cp scripts/check.sh sub/.git/hooks/pre-commit",
        "mkdir -p a/.git",
        "mkdir -p sub/.git/hooks",
        "tee sub/.git/config < README.md",
        "sed -i 's/a/b/' vendor/lib/.git/config",
        "mv README.md vendor/lib/.git/config",
        "ln -s README.md sub/.git",
        "ln vendor/lib/.git/config cfg",
        "echo 'gitdir: /tmp/x' > sub/.git",
        "touch sub/.git",
        "printf 'gitdir: ../x\\n' > src/.git",
        "dd if=README.md of=sub/.git/config",
        "sort -o sub/.git/config README.md",
        "git diff --output=sub/.git/config",
        "tar -xf a.tar -C sub/.git",
        "install -D README.md sub/.git/hooks/post-checkout",
        "truncate -s 0 vendor/lib/.git/config",
        "python src/app.py > vendor/lib/.git/config",
        "echo x > VENDOR/.GIT/config",
        "echo x > gitlink/config",
        "cd vendor/lib && echo x > .git/config",
        "cd vendor/lib/.git && echo x > config",
        "cd vendor/lib/.git && touch hooks/pre-commit",
    ],
)
def test_writes_into_any_git_path_are_denied(nested: Path, command: str) -> None:
    context = PolicyContext.for_project(nested)
    reason = verdict(context, command)

    assert GIT_REASON in reason or "belongs to the harness" in reason
    assert "\n" not in reason


@pytest.mark.parametrize(
    "command",
    [
        "echo /root > .venv/lib/python3.11/site-packages/evil.pth",
        "echo 'import os' >> .venv/lib/python3.11/site-packages/_virtualenv.pth",
        "printf '/\\n' > src/x.pth",
        "echo x > a.PTH",
        "cp README.md .venv/lib/python3.11/site-packages/zz.pth",
        "mv README.md .venv/pyvenv.cfg",
        "tee -a .venv/lib/python3.11/site-packages/x.pth < README.md",
        "echo 'home = /' > .venv/pyvenv.cfg",
        "echo 'home = /' >> pyvenv.cfg",
        "sed -i 's|/usr|/|' .venv/pyvenv.cfg",
        "ln -s README.md .venv/lib/python3.11/site-packages/x.pth",
        "touch .venv/lib/python3.11/site-packages/a.pth",
    ],
)
def test_writes_into_python_path_files_are_denied(nested: Path, command: str) -> None:
    context = PolicyContext.for_project(nested)

    assert PYTHON_REASON in verdict(context, command)


def test_the_reason_says_who_reads_these_and_what_to_do(nested: Path) -> None:
    context = PolicyContext.for_project(nested)

    git = verdict(context, "echo x > vendor/lib/.git/config")
    python = verdict(context, "echo / > .venv/pyvenv.cfg")

    assert git.startswith("the redirection target vendor/lib/.git/config " + GIT_REASON)
    assert SHARED in git and "write project files only" in git
    assert SHARED in python and "name a package the project needs in your handoff" in python


@pytest.mark.parametrize(
    "command",
    [
        "cat vendor/lib/.git/config",
        "cat .venv/pyvenv.cfg",
        "ls -la vendor/lib/.git sub",
        "grep -r url vendor/lib/.git",
        "head .venv/lib/python3.11/site-packages/x.pth",
        "echo x > x.pth.txt",
        "echo x > src/pth.py",
        "mkdir -p git/hooks && echo x > git/hooks/readme.md",
        "echo x > docs/pyvenv.cfg.example",
        "echo '*.pyc' >> .gitignore",
        "echo '* text=auto' > .gitattributes",
        "mkdir -p .github/workflows && touch .github/workflows/ci.yml",
        "touch src/.gitkeep",
        "echo x > my.git/notes.txt",
        "rm -rf vendor/lib/.git",
        "rm vendor/lib/.git/config",
        "rm -f .venv/lib/python3.11/site-packages/evil.pth",
    ],
)
def test_reading_them_removing_them_and_look_alikes_stay_allowed(
    nested: Path, command: str
) -> None:
    assert verdict(PolicyContext.for_project(nested), command) == "allow"


def test_the_top_git_folder_stays_the_harness_s_even_to_rm(nested: Path) -> None:
    context = PolicyContext.for_project(nested)

    assert "belongs to the harness" in verdict(context, "rm -rf .git")
    assert "belongs to the harness" in verdict(context, "rm .git/config")


def test_one_liners_allowed_do_not_open_these_writes(project: Path) -> None:
    opened = PolicyContext.for_project(project, PolicySettings(allow_one_liners=True))

    assert GIT_REASON in verdict(opened, "python -c 'x' > sub/.git/config")
    assert PYTHON_REASON in verdict(opened, "bash /dev/stdin <<< 'echo / > a.pth'")


#: One table of paths (relative to the project) and what keeps writes off them: the rule
#: the hooks, the Bash path rules and find's walk all take from :mod:`.protected`.
PROTECTION_TABLE = [
    (".git", Protection.HARNESS_FOLDER),
    (".git/config", Protection.HARNESS_FOLDER),
    (".claude-agent/ws/.agent_state.json", Protection.HARNESS_FOLDER),
    (".claude-agent", Protection.HARNESS_FOLDER),
    ("sub/.git/config", Protection.GIT_ENTRY),
    ("sub/.git", Protection.GIT_ENTRY),
    (".GIT/config", Protection.GIT_ENTRY),
    ("a/b/.GiT/hooks/x", Protection.GIT_ENTRY),
    (".venv/lib/python3.11/site-packages/x.pth", Protection.PYTHON_PATH),
    ("X.PTH", Protection.PYTHON_PATH),
    (".venv/pyvenv.cfg", Protection.PYTHON_PATH),
    ("PyVenv.cfg", Protection.PYTHON_PATH),
    ("x.pth.txt", None),
    ("x.pth/inner.py", None),
    ("git/config", None),
    (".gitignore", None),
    (".github/x.yml", None),
    ("pyvenv.cfg.bak", None),
    ("src/pth", None),
    ("src/.claude-agent/x", None),
    ("src/app.py", None),
]


@pytest.mark.parametrize(("relative", "kind"), PROTECTION_TABLE)
def test_protection_by_name(relative: str, kind: Protection | None) -> None:
    assert protection(PurePath(relative)) is kind
    # find's walk asks about one entry at a time: under an ordinary folder, an entry is
    # protected exactly when its name is.
    name = PurePath(relative).name
    assert is_protected_name(name) == (protection(PurePath("sub", name)) is not None)


@pytest.mark.parametrize(("relative", "kind"), PROTECTION_TABLE)
def test_write_refusal_by_name(relative: str, kind: Protection | None) -> None:
    reason = write_refusal(PurePath(relative), relative)

    expected = (
        {
            Protection.HARNESS_FOLDER: "which belongs to the harness",
            Protection.GIT_ENTRY: GIT_REASON,
            Protection.PYTHON_PATH: PYTHON_REASON,
        }.get(kind)
        if kind
        else None
    )
    assert (reason is None) if expected is None else (expected in (reason or ""))


@pytest.mark.parametrize(("relative", "kind"), PROTECTION_TABLE)
def test_refusal_at_a_link_judges_where_it_leads(
    tmp_path: Path, relative: str, kind: Protection | None
) -> None:
    """A harmless name that leads to a protected place is refused as that place; removing
    it spares all but the harness's own folders."""
    root = tmp_path
    written = root / "innocent"
    reason = refusal_at(root, written, root / relative, "innocent")
    removal = refusal_at(root, written, root / relative, "innocent", removing=True)

    assert (reason is None) == (kind is None)
    assert (removal is None) == (kind is not Protection.HARNESS_FOLDER)
