"""The TUI starts agents with its own environment's Claude credentials, or refuses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from common.credentials import API_KEY
from common.errors import CredentialsError
from tui.services.link import DaemonLink
from tui.services.startup import collect_specs


def spec_json(tmp_path: Path, model: str) -> str:
    project = tmp_path / "p"
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True)
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "init"], check=True)
    (tmp_path / "s.md").write_text("# s\n")
    entry = {"spec_file": str(tmp_path / "s.md"), "project_dir": str(project)}
    return json.dumps([{**entry, "target_branch": "main", "model": model}])


def test_specs_for_a_claude_model_need_credentials_before_the_ui_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = spec_json(tmp_path, "claude-x")
    with pytest.raises(CredentialsError, match=r"^s\.md: no Claude credentials"):
        collect_specs(text, demo=False, auto_accept=False)
    monkeypatch.setenv(API_KEY, "sk-tui")
    assert [spec.model for spec in collect_specs(text, demo=False, auto_accept=False)] == [
        "claude-x"
    ]
    assert collect_specs(spec_json(tmp_path / "l", "local"), demo=False, auto_accept=False)


async def test_the_wizard_start_is_refused_without_credentials_before_the_daemon_is_asked(
    tmp_path: Path,
) -> None:
    [spec] = collect_specs(spec_json(tmp_path, "local"), demo=False, auto_accept=False)
    claude = spec.model_copy(update={"model": "claude-x"})
    with pytest.raises(CredentialsError):  # no daemon runs: the refusal came first
        await DaemonLink(autostart=False).start(claude)
