"""Tool hooks: the model touches project files only, git is the harness's, errors deny."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from claude_agent_sdk import HookContext
from claude_agent_sdk.types import HookInput, HookJSONOutput

from agent.core.session.hooks import FileTracker, ToolPolicy, allow, build_hooks, deny, fail_closed

CONTEXT = cast(HookContext, {"signal": None})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".claude-agent").mkdir()
    (root / "src" / "app.py").write_text("x = 1\n")
    (tmp_path / "secret.txt").write_text("s")
    (root / "src" / "escape").symlink_to(tmp_path / "secret.txt")
    (root / "outside_dir").symlink_to(tmp_path, target_is_directory=True)
    return root


@pytest.fixture
def policy(project: Path) -> ToolPolicy:
    return ToolPolicy(project)


def pre_tool_use(name: str, tool_input: dict[str, Any]) -> HookInput:
    return cast(
        HookInput,
        {
            "hook_event_name": "PreToolUse",
            "session_id": "s",
            "transcript_path": "/dev/null",
            "cwd": "/",
            "tool_name": name,
            "tool_input": tool_input,
        },
    )


# --- files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "key", "path"),
    [
        ("Read", "file_path", "src/app.py"),
        ("Read", "file_path", "{project}/src/app.py"),
        ("Write", "file_path", "{project}/src/new.py"),
        ("Edit", "file_path", "src/app.py"),
        ("MultiEdit", "file_path", "src/../src/app.py"),
        ("NotebookEdit", "notebook_path", "{project}/nb.ipynb"),
        ("Glob", "path", "{project}"),
        ("Grep", "path", "src"),
        ("Read", "file_path", "{project}/.git/config"),
        ("Grep", "path", "{project}/.claude-agent"),
        ("Read", "file_path", ".claude-agent/ws/.agent_state.json"),
    ],
)
def test_file_tools_inside_the_project_are_allowed(
    policy: ToolPolicy, project: Path, tool: str, key: str, path: str
) -> None:
    assert policy.check(tool, {key: path.format(project=project)}) is None


@pytest.mark.parametrize(
    ("tool", "key", "path"),
    [
        ("Read", "file_path", "/etc/passwd"),
        ("Write", "file_path", "/tmp/elsewhere.py"),
        ("Edit", "file_path", "../secret.txt"),
        ("Read", "file_path", "src/../../secret.txt"),
        ("Read", "file_path", "src/escape"),
        ("Write", "file_path", "{project}/outside_dir/new.py"),
        ("Glob", "path", "/"),
        ("Grep", "path", ".."),
        ("NotebookEdit", "notebook_path", "~/nb.ipynb"),
    ],
)
def test_file_tools_outside_the_project_are_denied(
    policy: ToolPolicy, project: Path, tool: str, key: str, path: str
) -> None:
    reason = policy.check(tool, {key: path.format(project=project)})

    assert reason is not None
    assert "outside the project directory" in reason


@pytest.mark.parametrize(
    ("tool", "path", "owner"),
    [
        ("Write", "{project}/.git/hooks/pre-commit", ".git/"),
        ("Edit", ".git/config", ".git/"),
        ("MultiEdit", "src/../.git/HEAD", ".git/"),
        ("Write", "{project}/.claude-agent/ws/.hitl_checkpoint.json", ".claude-agent/"),
        ("Edit", ".claude-agent/ws/.agent_state.json", ".claude-agent/"),
    ],
)
def test_writes_into_the_harness_folders_are_denied(
    policy: ToolPolicy, project: Path, tool: str, path: str, owner: str
) -> None:
    reason = policy.check(tool, {"file_path": path.format(project=project)})

    assert reason is not None
    assert f"inside {owner}, which belongs to the harness" in reason


@pytest.mark.parametrize(
    ("tool", "key", "path", "kind"),
    [
        ("Write", "file_path", "vendor/lib/.git/config", ".git"),
        ("Edit", "file_path", "{project}/vendor/lib/.git/config", ".git"),
        ("Write", "file_path", "vendor/lib/.git/hooks/pre-commit", ".git"),
        ("Write", "file_path", "sub/.git", ".git"),
        ("MultiEdit", "file_path", "a/b/.GIT/config", ".git"),
        ("Write", "file_path", "gitlink/config", ".git"),
        ("NotebookEdit", "notebook_path", "vendor/lib/.git/x.ipynb", ".git"),
        ("Write", "file_path", ".venv/lib/python3.11/site-packages/evil.pth", ".pth"),
        ("Edit", "file_path", "{project}/.venv/pyvenv.cfg", ".pth"),
        ("Write", "file_path", "pyvenv.cfg", ".pth"),
        ("Write", "file_path", "src/X.PTH", ".pth"),
    ],
)
def test_file_tool_writes_into_files_the_harness_reads_are_denied(
    policy: ToolPolicy, project: Path, tool: str, key: str, path: str, kind: str
) -> None:
    (project / "vendor" / "lib" / ".git").mkdir(parents=True)
    (project / "gitlink").symlink_to(project / "vendor" / "lib" / ".git")

    reason = policy.check(tool, {key: path.format(project=project)})

    assert reason is not None
    assert "the harness's git and sandbox read these" in reason
    assert (".git file" if kind == ".git" else "*.pth or pyvenv.cfg") in reason


@pytest.mark.parametrize(
    ("tool", "key", "path"),
    [
        ("Read", "file_path", "vendor/lib/.git/config"),
        ("Read", "file_path", ".venv/pyvenv.cfg"),
        ("Grep", "path", "vendor/lib/.git"),
        ("Write", "file_path", "x.pth.txt"),
        ("Write", "file_path", "git/config"),
        ("Edit", "file_path", ".gitignore"),
        ("Write", "file_path", ".github/workflows/ci.yml"),
        ("Write", "file_path", "docs/pyvenv.cfg.example"),
    ],
)
def test_file_tools_read_them_and_write_look_alikes(
    policy: ToolPolicy, tool: str, key: str, path: str
) -> None:
    assert policy.check(tool, {key: path}) is None


def test_a_file_tool_without_a_path_is_allowed(policy: ToolPolicy) -> None:
    assert policy.check("Grep", {"pattern": "x"}) is None
    assert policy.check("TodoWrite", {"todos": []}) is None


# --- bash -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git log --oneline -5",
        "git diff HEAD~1",
        "git show HEAD:README.md",
        "python -m pytest -q",
        "ls -la && cat README.md",
        "echo 'git commit' > notes.txt",
        "grep -r checkout src",
        "",
    ],
)
def test_harmless_commands_are_allowed(policy: ToolPolicy, command: str) -> None:
    assert policy.check("Bash", {"command": command}) is None


@pytest.mark.parametrize(
    ("command", "sub"),
    [
        ("git commit -m 'done'", "commit"),
        ("git push origin main", "push"),
        ("cd src && git checkout main", "checkout"),
        ("git status; git reset --hard HEAD~1", "reset"),
        ("true || git rebase main", "rebase"),
        ("git log | git merge feature", "merge"),
        ("git switch -c other", "switch"),
        ("git branch -D main", "branch"),
        ("/usr/bin/git commit -am x", "commit"),
        ("git --no-pager commit", "commit"),
        ("ls\ngit push", "push"),
    ],
)
def test_git_commands_the_harness_owns_are_denied(
    policy: ToolPolicy, command: str, sub: str
) -> None:
    assert policy.check("Bash", {"command": command}) == (
        f"git {sub} is done by the harness, not the model"
    )


@pytest.mark.parametrize(
    "command",
    [
        "git -C . commit -m x",
        "git -c user.name=x commit -m x",
        "GIT_AUTHOR_NAME=x git commit -m x",
        "sleep 0 & git push",
        "(git checkout main)",
    ],
)
def test_owned_git_commands_in_disguise_are_denied(policy: ToolPolicy, command: str) -> None:
    assert policy.check("Bash", {"command": command}) is not None


# --- fail_closed ------------------------------------------------------------------------


def _decision(result: HookJSONOutput) -> tuple[str, str]:
    specific: Any = cast(dict[str, Any], result)["hookSpecificOutput"]
    return specific["permissionDecision"], specific.get("permissionDecisionReason", "")


async def _raises(data: HookInput, tool_use_id: str | None, context: HookContext) -> Any:
    raise RuntimeError("tracker exploded")


async def _returns_none(data: HookInput, tool_use_id: str | None, context: HookContext) -> Any:
    return None


async def _returns_empty(data: HookInput, tool_use_id: str | None, context: HookContext) -> Any:
    return {}


async def _returns_unknown(data: HookInput, tool_use_id: str | None, context: HookContext) -> Any:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "maybe"}}


async def _returns_string(data: HookInput, tool_use_id: str | None, context: HookContext) -> Any:
    return "allow"


@pytest.mark.parametrize(
    ("hook", "reason"),
    [
        (_raises, "harness hook failed (RuntimeError: tracker exploded)"),
        (_returns_none, "no valid decision (None)"),
        (_returns_empty, "no valid decision ({})"),
        (_returns_unknown, "no valid decision"),
        (_returns_string, "no valid decision ('allow')"),
    ],
    ids=["raises", "none", "empty", "unknown-decision", "not-a-dict"],
)
async def test_fail_closed_turns_a_broken_hook_into_a_deny(hook: Any, reason: str) -> None:
    result = await fail_closed(hook)(pre_tool_use("Bash", {"command": "ls"}), "t1", CONTEXT)

    decision, why = _decision(result)
    assert decision == "deny"
    assert reason in why
    assert why.endswith("tool call refused")


@pytest.mark.parametrize("answer", [allow(), deny("not here")], ids=["allow", "deny"])
async def test_fail_closed_passes_a_valid_answer_through(answer: HookJSONOutput) -> None:
    async def hook(
        data: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        return answer

    result = await fail_closed(hook)(pre_tool_use("Read", {"file_path": "x"}), "t1", CONTEXT)

    assert result == answer


# --- the file tracker and the hook configuration ----------------------------------------


def test_file_tracker_notes_project_relative_paths_of_writes_only(project: Path) -> None:
    tracker = FileTracker(project)

    tracker.note("Write", {"file_path": str(project / "src" / "new.py")})
    tracker.note("Edit", {"file_path": "src/app.py"})
    tracker.note("Edit", {"file_path": "src/../README.md"})
    tracker.note("Read", {"file_path": str(project / "src" / "read.py")})
    tracker.note("Bash", {"command": "touch made.py"})
    tracker.note("Write", {"file_path": "/tmp/outside.py"})
    tracker.note("Write", {"content": "no path"})

    assert tracker.touched == {"src/new.py", "src/app.py", "README.md"}


async def test_built_hooks_deny_by_policy_and_track_writes(project: Path) -> None:
    tracker = FileTracker(project)
    logged: list[str] = []
    hooks = build_hooks(ToolPolicy(project), tracker, logged.append)
    pre = hooks["PreToolUse"][0].hooks[0]
    post = hooks["PostToolUse"][0].hooks[0]

    denied = await pre(pre_tool_use("Bash", {"command": "git push"}), "t1", CONTEXT)
    allowed = await pre(pre_tool_use("Write", {"file_path": "src/b.py"}), "t2", CONTEXT)
    await post(pre_tool_use("Write", {"file_path": "src/b.py"}), "t2", CONTEXT)

    assert _decision(denied)[0] == "deny"
    assert _decision(allowed)[0] == "allow"
    assert logged == [
        '[policy] deny Bash "git push": git push is done by the harness, not the model',
        '[policy] allow Write "src/b.py"',
    ]
    assert tracker.touched == {"src/b.py"}


async def test_built_pre_hook_denies_a_malformed_call(project: Path) -> None:
    hooks = build_hooks(ToolPolicy(project), FileTracker(project), lambda _: None)
    pre = hooks["PreToolUse"][0].hooks[0]

    result = await pre(cast(HookInput, {"tool_input": {}}), "t1", CONTEXT)

    assert _decision(result) == (
        "deny",
        "harness hook failed (KeyError: 'tool_name'); tool call refused",
    )


def test_file_tracker_reads_a_home_relative_path_like_the_policy() -> None:
    project = Path.home() / "proj"
    project.mkdir()
    tool_input = {"file_path": "~/proj/a.py"}
    assert ToolPolicy(project).check("Write", tool_input) is None
    tracker = FileTracker(project)

    tracker.note("Write", tool_input)

    assert tracker.touched == {"a.py"}
