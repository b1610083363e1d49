"""The repository's git configuration as the sandbox shows it (red team, issue 26).

People's tools keep credentials in ``.git/config``: a remote cloned with a token in its
URL, actions/checkout's ``extraheader``, an ``insteadOf`` rewrite, an ``include``. The
sandbox shows ``.git`` read-only, and ``git remote -v`` printed the token to the model.
A copy with what git needs (core, extensions, remotes without user information, branch
upstreams) now covers it.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.git_config import entries, kept, render, without_credentials
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.plan import bwrap_argv

BWRAP = find_bwrap()
TOKEN = "glpat-rt0c4f-secret"


def sh_git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    sh_git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("a\n")
    sh_git(repo, "add", "a.txt")
    sh_git(repo, "commit", "-qm", "first")
    sh_git(repo, "remote", "add", "origin", f"https://oauth2:{TOKEN}@gitlab.example.com/g/p.git")
    sh_git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    sh_git(repo, "config", "branch.main.remote", "origin")
    sh_git(repo, "config", "branch.main.merge", "refs/heads/main")
    sh_git(repo, "config", "http.https://github.com/.extraheader", f"AUTHORIZATION: basic {TOKEN}")
    sh_git(repo, "config", f"url.https://x:{TOKEN}@github.com/.insteadOf", "https://github.com/")
    sh_git(repo, "config", "include.path", str(tmp_path / "elsewhere.cfg"))
    sh_git(repo, "config", "core.weird", 'a "quoted" \\ value\twith tab')
    return repo


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            f"https://oauth2:{TOKEN}@gitlab.example.com/g/p.git",
            "https://gitlab.example.com/g/p.git",
        ),
        ("https://gitlab.example.com/g/p.git", "https://gitlab.example.com/g/p.git"),
        ("git@github.com:o/r.git", "git@github.com:o/r.git"),
        (f"ssh://git:{TOKEN}@host:2222/r.git", "ssh://host:2222/r.git"),
    ],
)
def test_a_url_loses_its_user_information(url: str, shown: str) -> None:
    assert without_credentials(url) == shown


def test_only_what_git_needs_is_kept_and_reads_back_the_same(project: Path) -> None:
    config = project / ".git" / "config"
    shown = kept(entries(project, config))
    keys = [key for key, _value in shown]
    assert "remote.origin.url" in keys and "branch.main.merge" in keys
    assert "core.repositoryformatversion" in keys and "core.weird" in keys
    assert not [key for key in keys if key.startswith(("http.", "url.", "include."))]
    assert TOKEN not in repr(shown)
    copy = project / "copy.cfg"  # where the harness's jailed git can read it
    copy.write_text(render(shown))
    assert entries(project, copy) == shown  # quoting survives git's own reading


@pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
async def test_the_models_git_sees_no_token_and_still_works(project: Path) -> None:
    assert BWRAP is not None
    script = "cat .git/config; git remote -v; git status -sb; git log -1 --format=%s origin/main"
    async with session_sandbox(project, BWRAP, {}) as box:
        done = await asyncio.create_subprocess_exec(
            *bwrap_argv(box.plan, BWRAP, ["/bin/sh", "-c", script]),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        out = (await done.communicate())[0].decode()
    assert TOKEN not in out, out
    assert "origin\thttps://gitlab.example.com/g/p.git (fetch)" in out
    assert "## main...origin/main" in out
    assert out.rstrip().endswith("first")
    assert TOKEN in (project / ".git" / "config").read_text()  # the real file is untouched
