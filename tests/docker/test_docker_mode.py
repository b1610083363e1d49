"""Docker mode for real: ``./start.sh`` builds nothing here (the session fixture built the
image from the working tree) and runs the demo and the TUI in containers.

What must hold in a container as it holds natively: the demo reaches DONE; files it
writes in mounted folders belong to the user who ran ``./start.sh`` (a non-root uid too);
the host's ``~/.gitconfig`` is never written; ``.env`` is sourced as native mode sources it
while no process, PID 1 (docker-init, from ``--init``) first, holds the GitLab token in its
environment; containers run side by side; a TUI that quits, or one opened with
``./start.sh --connect``, finds the agent still there and can answer it.
"""

from __future__ import annotations

import asyncio
import grp
import hashlib
import os
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docker import engine
from tests.docker.engine import REPO_ROOT, docker

pytestmark = pytest.mark.slow

NON_ROOT_UID = 4242
"""The uid (and gid) a root test run also starts the demo as; it needs no passwd entry."""
DEMO_TIMEOUT = 240.0
WAIT = 120.0
POLL = 0.2
GITCONFIG = "[user]\n\tname = Docker Tester\n\temail = tester@localhost\n"


@dataclass
class User:
    """Who runs ``./start.sh``: ids, a HOME of their own, an env file with a token."""

    uid: int
    gid: int
    home: Path
    token: str
    prefix: list[str]
    """What runs ``./start.sh`` as this user (``setpriv`` for the non-root one)."""

    @property
    def env_file(self) -> Path:
        return self.home / "harness.env"

    @property
    def native_harness_home(self) -> Path:
        """What the env file names as HARNESS_HOME: a container must keep its own."""
        return self.home / "native-harness-home"

    @property
    def gitconfig(self) -> Path:
        return self.home / ".gitconfig"

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),
            "HARNESS_DOCKER_IMAGE": engine.TEST_IMAGE,
            "HARNESS_ENV_FILE": str(self.env_file),
        }


def make_user(home: Path, uid: int, gid: int, prefix: list[str]) -> User:
    """Give ``home`` a ``.gitconfig`` and an env file as the user would have them."""
    user = User(uid, gid, home, f"glpat-{secrets.token_hex(10)}", prefix)
    user.gitconfig.write_text(GITCONFIG)
    # Quotes and a comment: sourced by bash (as native start.sh does), not docker's --env-file.
    user.env_file.write_text(
        f"# GitLab\nGITLAB_PERSONAL_ACCESS_TOKEN={user.token}\n"
        'HARNESS_DOTENV_CHECK="two words"\n'
        f"HARNESS_HOME={user.native_harness_home}\n"
    )
    for path in (home, user.gitconfig, user.env_file):
        os.chown(path, uid, gid)
    return user


@pytest.fixture
def invoker() -> User:
    """Whoever runs the tests, with the HOME the suite's conftest gave them."""
    return make_user(Path(os.environ["HOME"]), os.getuid(), os.getgid(), [])


@pytest.fixture
def non_root() -> Iterator[User]:
    """A uid with no passwd entry and the docker group (root runs); else the invoker again."""
    home = Path(tempfile.mkdtemp(prefix="hd", dir="/tmp"))
    if os.getuid() != 0:
        yield make_user(home, os.getuid(), os.getgid(), [])
    else:
        try:
            docker_gid = grp.getgrnam("docker").gr_gid
        except KeyError:
            pytest.skip("no docker group: a non-root uid cannot reach the engine")
        ids = [f"--reuid={NON_ROOT_UID}", f"--regid={NON_ROOT_UID}", f"--groups={docker_gid}"]
        home.chmod(0o755)
        yield make_user(home, NON_ROOT_UID, NON_ROOT_UID, ["setpriv", *ids, "--"])
    shutil.rmtree(home, ignore_errors=True)


def demo_folder(output: str) -> Path:
    """The folder the demo was copied to, from its ``demo spec:`` line."""
    found = re.search(r"^demo spec:\s+(\S+)$", output, re.MULTILINE)
    assert found, f"no demo spec line in:\n{output}"
    return Path(found.group(1)).parent


async def test_demos_reach_done_side_by_side_as_their_users(
    docker_image: str, invoker: User, non_root: User
) -> None:
    users = [invoker, non_root]
    before = [(user.gitconfig.read_bytes(), user.gitconfig.stat().st_mtime_ns) for user in users]
    started = time.monotonic()
    runs = [
        await asyncio.create_subprocess_exec(
            *user.prefix,
            str(REPO_ROOT / "start.sh"),
            "--docker",
            "--demo",
            "--auto-accept",
            "--wait",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=user.environment(),
        )
        for user in users
    ]
    outputs = asyncio.gather(*(run.communicate() for run in runs))
    most = 0
    while not outputs.done():
        most = max(most, len(engine.running_containers()))
        await asyncio.sleep(POLL)
    texts = [out.decode() for out, _ in await asyncio.wait_for(outputs, DEMO_TIMEOUT)]
    print(f"two demos side by side took {time.monotonic() - started:.1f} s")

    assert most == 2, "the two containers never ran at the same time"
    for user, run, text, (content, mtime) in zip(users, runs, texts, before, strict=True):
        assert run.returncode == 0, text
        assert "agent_1: done\n" in text, text
        assert "issues: 3 of 3 closed" in text, text
        assert "tests on the branch: 17 passed" in text, text
        folder = demo_folder(text)
        try:
            assert list(engine.foreign_owners(folder, user.uid, user.gid)) == []
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        assert user.gitconfig.read_bytes() == content
        assert user.gitconfig.stat().st_mtime_ns == mtime
    names = {
        line.split()[1]
        for text in texts
        for line in text.splitlines()
        if line.startswith("container ")
    }
    assert names == {engine.TEST_IMAGE, f"{engine.TEST_IMAGE}-2"}
    for _ in range(50):  # --rm: the engine removes them once they end
        if not engine.harness_containers():
            break
        await asyncio.sleep(POLL)
    assert engine.harness_containers() == []


class Tmux:
    """A private tmux server (its own socket), so no one else's sessions are touched."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def start(self, session: str, user: User, command: str) -> None:
        """``command`` in a new 120x36 terminal; the pane stays to show how it ended."""
        env = [
            f"{name}={value}"
            for name, value in user.environment().items()
            if name in ("HOME", "HARNESS_DOCKER_IMAGE", "HARNESS_ENV_FILE")
        ]
        flags = [part for pair in env for part in ("-e", pair)]
        shell = f"{command}; echo {session.upper()}-EXITED-$?; sleep 600"
        self.run("new-session", "-d", "-s", session, "-x", "120", "-y", "36",
                 "-c", str(REPO_ROOT), *flags, shell)  # fmt: skip

    def keys(self, session: str, *keys: str) -> None:
        self.run("send-keys", "-t", session, *keys)

    async def wait_for(self, session: str, condition: Callable[[str], bool], what: str) -> str:
        """Poll the pane (a terminal has no events to wait on) until ``condition`` holds."""
        screen = ""
        for _ in range(int(WAIT / POLL)):
            screen = self.run("capture-pane", "-p", "-t", session)
            if condition(screen):
                return screen
            await asyncio.sleep(POLL)
        raise AssertionError(f"timed out waiting for {what}; {session} shows:\n{screen}")


@pytest.fixture
async def tmux(docker_image: str) -> AsyncIterator[Tmux]:
    """A tmux server; afterwards it is killed and the test's containers removed."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    folder = Path(tempfile.mkdtemp(prefix="tm", dir="/tmp"))
    server = Tmux(folder / "tmux.sock")
    try:
        yield server
    finally:
        subprocess.run(["tmux", "-S", str(server.socket), "kill-server"], check=False)
        engine.remove_test_containers()
        shutil.rmtree(folder, ignore_errors=True)


def exec_in(name: str, command: str) -> str:
    """``command`` (sh) run in container ``name`` as its user, with its environment."""
    return docker("exec", name, "sh", "-c", command)


async def open_checkpoint(tmux: Tmux, session: str, dialog: str, what: str) -> None:
    """A waiting checkpoint is announced (⚑) and opens when asked (``c``), never by itself."""
    await tmux.wait_for(session, lambda s: "⚑ waits" in s, f"{what}: its announcement")
    tmux.keys(session, "c")
    await tmux.wait_for(session, lambda s: dialog in s, what)


async def test_tui_quits_and_reconnects_to_its_agent(tmux: Tmux, invoker: User) -> None:
    started = time.monotonic()
    tmux.start("main", invoker, "./start.sh --docker --demo")
    dialog = "HITL CHECKPOINT: PROJECT VERIFICATION"
    await open_checkpoint(tmux, "main", dialog, "the first checkpoint in the TUI")
    print(f"./start.sh --demo to the first dialog: {time.monotonic() - started:.1f} s")
    [name] = engine.running_containers()

    assert exec_in(name, "tr '\\0' ' ' < /proc/1/cmdline").startswith("/sbin/docker-init")
    assert exec_in(name, "id -u; id -g").split() == [str(invoker.uid), str(invoker.gid)]
    holders = f"grep -l -a -F {shlex.quote(invoker.token)} /proc/[0-9]*/environ || true"
    assert exec_in(name, holders).strip() == "", "a process holds the token in its environment"
    sourced = "grep -l -a -F 'HARNESS_DOTENV_CHECK=two words' /proc/[0-9]*/environ || true"
    assert exec_in(name, sourced).strip() != "", ".env did not reach the daemon as bash reads it"
    assert exec_in(name, "git config --get user.name").strip() == "Docker Tester"
    exec_in(name, "git config --global harness.probe written-in-the-container")
    assert invoker.gitconfig.read_text() == GITCONFIG
    assert "agent_1" in exec_in(name, "harness list")
    assert not invoker.native_harness_home.exists()
    with socket.create_server(("127.0.0.1", 0)) as server:  # the host's loopback
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), 5).close()"
        exec_in(name, f'python -c "{connect}"')

    tmux.keys("main", "q")
    await tmux.wait_for("main", lambda s: "TUI closed; agents keep running" in s, "the TUI to quit")
    tmux.keys("main", "Enter")
    await open_checkpoint(tmux, "main", dialog, "the reopened TUI to show the checkpoint")

    tmux.start("connect", invoker, f"./start.sh --connect {name}")
    await open_checkpoint(tmux, "connect", dialog, "--connect to show the checkpoint")
    tmux.keys("connect", "y")
    await tmux.wait_for("connect", lambda s: "phase: spec to issues" in s, "the agent to move on")
    tmux.keys("connect", "q")
    await tmux.wait_for("connect", lambda s: "CONNECT-EXITED-0" in s, "--connect to end")
    assert "agent_1" in exec_in(name, "harness list")


def test_the_image_holds_neither_the_build_ca_nor_dotenv(docker_image: str) -> None:
    ca = Path(os.environ.get("PIP_CERT") or "/etc/ssl/certs/ca-certificates.crt")
    if not ca.is_file():
        pytest.skip(f"no CA bundle at {ca} on this machine: the build used none")
    digest = hashlib.sha256(ca.read_bytes()).hexdigest()
    size = ca.stat().st_size
    same_size = f"find / -xdev -type f -size {size}c -exec sha256sum {{}} + || true"
    if digest in docker("run", "--rm", engine.BASE_IMAGE, "sh", "-c", same_size):
        pytest.skip("the host's CA bundle is the base image's own: nothing to tell apart")
    found = docker("run", "--rm", "--entrypoint", "sh", docker_image, "-c", same_size)
    assert digest not in found, f"the host's CA bundle is in the image:\n{found}"
    listing = docker("run", "--rm", "--entrypoint", "ls", docker_image, "-a", "/app")
    assert ".build-ca.pem" not in listing.split()
    assert ".env" not in listing.split()
    assert not (REPO_ROOT / ".build-ca.pem").exists(), "the build left the CA in the context"


def test_a_refused_spec_is_one_line_and_a_failing_status(docker_image: str, invoker: User) -> None:
    spec = '[{"spec_file": "/nonexistent.md", "project_dir": "/tmp", "target_branch": "main"}]'
    done = subprocess.run(
        [str(REPO_ROOT / "start.sh"), "--specs", spec, "--wait"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        env=invoker.environment(),
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"container {engine.TEST_IMAGE}",
        "error: spec_file /nonexistent.md does not exist",
    ]


async def test_without_a_terminal_the_container_starts_in_the_background(
    docker_image: str, invoker: User
) -> None:
    done = subprocess.run(
        [str(REPO_ROOT / "start.sh"), "--demo", "--auto-accept"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        env=invoker.environment(),
    )
    name = engine.TEST_IMAGE
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"container {name} started in the background; ./start.sh --connect {name} opens its TUI\n"
    )
    try:
        listing = ""
        for _ in range(int(DEMO_TIMEOUT / POLL)):  # its TUI runs on a pty of its own
            listing = docker("exec", name, "harness", "list", check=False)  # "" until it runs
            if re.search(r"(?m)^agent_1 +done ", listing):  # the status column, not the phase
                break
            await asyncio.sleep(POLL)
        assert re.search(r"(?m)^agent_1 +done ", listing), listing
        assert engine.running_containers() == [name]
    finally:
        engine.remove_test_containers()
