"""What a session or gate keeps of the environment it starts in (red team, issue 26).

The harness starts from the person's shell, whose environment holds what their other
tools need: cloud keys, forge and registry tokens, database URLs. Inherited whole, a
session's ``env`` showed every one of them to the model (an ``AWS_SECRET_ACCESS_KEY`` of
the shell that started the daemon reached the CLI). The sandbox keeps an allowlist, the
spec's ``sandbox_env`` and the harness's own variables, never credentials in a URL.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.plan import bwrap_argv
from agent.sandbox.relay import kept_environment

BWRAP = find_bwrap()
SECRET = "rt-4f1c9e-secret"


@pytest.mark.parametrize(
    ("name", "value", "kept"),
    [
        ("PATH", "/usr/bin:/bin", True),
        ("LC_ALL", "C.UTF-8", True),
        ("CLAUDE_CODE_ENTRYPOINT", "sdk-py", True),
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:8080", True),
        ("VIRTUAL_ENV", "/p/.venv", True),
        ("AWS_SECRET_ACCESS_KEY", SECRET, False),
        ("GITHUB_TOKEN", SECRET, False),
        ("NPM_TOKEN", SECRET, False),
        ("DATABASE_URL", f"postgres://app:{SECRET}@db/app", False),
        ("HTTPS_PROXY", f"http://me:{SECRET}@proxy.example:3128", False),
        ("HTTPS_PROXY", "http://127.0.0.1:3128", True),
        ("SSH_AUTH_SOCK", "/run/user/1000/ssh", False),
    ],
)
def test_the_allowlist(name: str, value: str, kept: bool) -> None:
    assert (name in kept_environment({name: value}, frozenset())) is kept


def test_a_name_the_spec_lists_is_kept_but_never_credentials_in_a_url() -> None:
    environ = {"DJANGO_SETTINGS_MODULE": "app.settings", "STORE_URL": f"s3://k:{SECRET}@b"}
    also = frozenset({"DJANGO_SETTINGS_MODULE", "STORE_URL"})
    assert kept_environment(environ, also) == {"DJANGO_SETTINGS_MODULE": "app.settings"}


@pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
async def test_a_sessions_commands_see_only_what_the_sandbox_keeps(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert BWRAP is not None
    outside = {
        "PATH": "/usr/bin:/bin",
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "PROJECT_SETTING": "kept",
        "CLAUDE_CODE_ENTRYPOINT": "sdk-py",
    }
    async with session_sandbox(project, BWRAP, {}, env_keep=("PROJECT_SETTING",)) as box:
        command = ["/usr/bin/env"]
        done = await asyncio.create_subprocess_exec(
            *bwrap_argv(box.plan, BWRAP, command), env=outside, stdout=subprocess.PIPE
        )
        out, _ = await done.communicate()
        gate = await asyncio.create_subprocess_exec(
            *box.wrap(command), env=outside, stdout=subprocess.PIPE
        )
        gate_out, _ = await gate.communicate()
    for seen in (out.decode(), gate_out.decode()):
        names = {line.partition("=")[0] for line in seen.splitlines()}
        assert SECRET not in seen
        assert {"PATH", "HOME", "TMPDIR", "PROJECT_SETTING"} <= names
        assert "AWS_SECRET_ACCESS_KEY" not in names
    assert "CLAUDE_CODE_ENTRYPOINT=sdk-py" in out.decode()
