"""A file the model made unreadable never fails the harness's commit or fingerprint.

As root the harness reads everything, so the child runs in a user namespace as uid
1000 without capabilities, where ``chmod 000`` holds, the way a person's own uid runs
the harness.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from common import bwrap
from common.workspace.git_guard import safe_environ
from tests.core.runs import sh_git

REPO = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("unreadable_child.py")


def as_uid_1000(command: list[str], scratch: Path) -> subprocess.CompletedProcess[str]:
    runner = bwrap.find_bwrap()
    if runner is None or bwrap.probe(runner) is not None:
        pytest.skip("bubblewrap cannot run here")
    argv = [str(runner), "--unshare-user", "--uid", "1000", "--gid", "1000", "--cap-drop", "ALL"]
    # /tmp stays the host's (writable): the checkout itself may live there, as CI's does.
    argv += ["--ro-bind", "/", "/", "--bind", "/tmp", "/tmp", "--bind", str(scratch), str(scratch)]
    argv += ["--dev", "/dev", "--proc", "/proc", "--chdir", str(REPO), "--", *command]
    env = {**safe_environ(None), "PYTHONPATH": str(REPO)}
    return subprocess.run(argv, capture_output=True, text=True, check=False, env=env)


def test_an_unreadable_file_is_kept_out_and_the_rest_is_committed(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    sh_git(project, "commit", "-q", "--allow-empty", "-m", "start")
    (project / "ok.py").write_text("x = 1\n")
    secret = project / "secret.txt"
    secret.write_text("s\n")
    secret.chmod(0)

    done = as_uid_1000([sys.executable, str(CHILD), str(project)], tmp_path)

    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert (found["uid"], found["readable"]) == (1000, False)
    assert found["files"] == ["ok.py"]
    assert found["kept_out"] == [
        [
            "secret.txt",
            "the harness cannot read it (its permissions); make it readable to commit it",
        ]
    ]
    assert found["committed"] == ["ok.py"]
    assert len(found["fingerprint"]) == 40
