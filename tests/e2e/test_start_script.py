"""``./start.sh --native``, as the README has a new user run it: the key and ``--fresh``.

With ``ANTHROPIC_API_KEY`` exported and ``cp .env.example .env`` (HARNESS_ENV_FILE names
the copy, so the test leaves the checkout's own .env alone), the key still reaches a local
stand-in for the model endpoint. The same spec started again is refused (it already has
a run) until ``--fresh``, which runs it in a new workspace and reaches the endpoint again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from common.credentials import API_KEY, BASE_URL
from tests.core.model_upstream import Upstream
from tests.docker.engine import REPO_ROOT

pytestmark = pytest.mark.slow
KEY = "sk-ant-api03-start-" + "s" * 40


def spec_on_new_repository(tmp_path: Path) -> str:
    """A file-only spec for a Claude model name on a one-commit repository."""
    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True)
    (project / "README.md").write_text("# p\n")
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], check=True)
    spec = tmp_path / "spec.md"
    spec.write_text("# Add a greeting\n")
    return json.dumps(
        [
            {
                "spec_file": str(spec),
                "project_dir": str(project),
                "target_branch": "main",
                "file_only_mode": True,
                "skip_test_suite": True,
                "model": "claude-test-model",
                "sandbox": False,
            }
        ]
    )


def start(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REPO_ROOT / "start.sh"), "--native", *args],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, **env},
        check=False,
    )


def test_an_exported_key_survives_the_template_and_fresh_runs_a_spec_again(
    tmp_path: Path, isolated_home: Path
) -> None:
    env_file = tmp_path / ".env"
    shutil.copy(REPO_ROOT / ".env.example", env_file)
    specs = spec_on_new_repository(tmp_path)
    try:
        with Upstream() as endpoint:
            env = {API_KEY: KEY, BASE_URL: endpoint.url, "HARNESS_ENV_FILE": str(env_file)}
            first = start("--specs", specs, "--auto-accept", "--wait", env=env)
            assert endpoint.seen, first.stdout + first.stderr
            assert {request.headers.get("x-api-key") for request in endpoint.seen} == {KEY}

            again = start("--specs", specs, "--auto-accept", "--wait", env=env)
            assert again.returncode != 0
            assert "--fresh" in again.stderr, again.stderr

            before = len(endpoint.seen)
            fresh = start("--specs", specs, "--auto-accept", "--wait", "--fresh", env=env)
            assert len(endpoint.seen) > before, fresh.stdout + fresh.stderr
            assert {request.headers.get("x-api-key") for request in endpoint.seen} == {KEY}
    finally:
        subprocess.run(
            [str(REPO_ROOT / ".venv" / "bin" / "harness"), "daemon", "stop"],
            capture_output=True,
            timeout=60,
            check=False,
        )
    # The stand-in answers without doing the work, so the runs end failed, not refused.
    assert "started" in first.stdout and "started" in fresh.stdout, first.stdout + fresh.stdout
    workspaces = sorted(path.name for path in (tmp_path / "project" / ".claude-agent").iterdir())
    assert len(workspaces) == 2 and workspaces[1] == workspaces[0] + "-2", workspaces
