"""The regression replay through the real browser server, against an app it serves itself."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from agent.core.browser import replay as replay_module
from agent.core.browser.install import BrowserInstall, BrowserUnavailable, ensure_installed
from agent.core.browser.replay import replay, replay_command
from agent.core.browser.server import BrowserSetup
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.limits import Entry, launcher_python
from agent.sandbox.unsandboxed import LimitsWrap
from common.schemas.browser_check import BrowserCall, BrowserCheck
from common.schemas.limits import Limits
from common.schemas.web import WebSettings

NONCE = "h2-replay-3b9c"


@pytest.fixture
def install() -> BrowserInstall:
    try:
        return ensure_installed()
    except BrowserUnavailable as e:
        pytest.skip(f"no browser here: {e}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def app(tmp_path: Path, install: BrowserInstall, serve: str | None = None) -> BrowserSetup:
    (tmp_path / "index.html").write_text(f"<h1>{NONCE}</h1><button>Go</button>")
    port = free_port()
    web = WebSettings(
        serve=serve or f"exec python3 -m http.server {port} --bind 127.0.0.1",
        url=f"http://127.0.0.1:{port}/",
    )
    return BrowserSetup(install, web, tmp_path / "out")


def check(issue: int, *calls: tuple[str, dict[str, object]]) -> BrowserCheck:
    return BrowserCheck(issue=issue, calls=[BrowserCall(tool=t, input=i) for t, i in calls])


async def test_a_check_the_app_still_passes_finds_nothing(
    tmp_path: Path, install: BrowserInstall
) -> None:
    setup = app(tmp_path, install)
    found = await replay(
        [check(1, ("browser_navigate", {"url": setup.web.url}), ("browser_snapshot", {}))],
        setup,
        tmp_path,
        os.environ,
        None,
    )
    assert found == []


async def test_a_call_that_fails_now_is_a_finding_and_ends_its_check(
    tmp_path: Path, install: BrowserInstall
) -> None:
    setup = app(tmp_path, install)
    gone: tuple[str, dict[str, object]] = (
        "browser_click",
        {"element": "the Save button", "target": "e999"},
    )
    found = await replay(
        [
            check(1, ("browser_navigate", {"url": setup.web.url})),
            check(2, ("browser_navigate", {"url": setup.web.url}), gone, ("browser_snapshot", {})),
        ],
        setup,
        tmp_path,
        os.environ,
        None,
    )
    assert len(found) == 1
    assert found[0].startswith('(browser check of issue #2: browser_click {"element": "the Save')


async def test_an_app_that_no_longer_serves_is_a_finding(
    tmp_path: Path, install: BrowserInstall, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay_module, "SERVE_WAIT_S", 1.0)
    setup = app(tmp_path, install, serve="exit 3")
    found = await replay(
        [check(4, ("browser_navigate", {"url": setup.web.url}))], setup, tmp_path, os.environ, None
    )
    assert len(found) == 1 and "issue #4: browser_navigate" in found[0]
    assert "ERR_CONNECTION_REFUSED" in found[0]


async def test_no_recorded_call_starts_nothing(tmp_path: Path) -> None:
    fake = BrowserInstall(tmp_path / "none", Path("/nonexistent/node"), Path("/nonexistent"))
    setup = BrowserSetup(fake, WebSettings(serve="x", url="http://127.0.0.1:1/"), tmp_path)
    assert await replay([check(1)], setup, tmp_path, os.environ, None) == []


def test_the_replay_serves_the_app_in_the_background_then_runs_the_server(
    tmp_path: Path, install: BrowserInstall
) -> None:
    setup = app(tmp_path, install, serve="python3 app.py 8123")
    shell, flag, script = replay_command(setup)
    assert (shell, flag) == ("/bin/sh", "-c")
    serve, server = script.splitlines()
    assert serve == "(python3 app.py 8123) >/dev/null 2>&1 </dev/null &"
    assert server.startswith(f"exec {install.node} ") and "/tmp/harness-replay" in server


SERVED = "h26-served-7c1e"


def served(project: Path) -> list[int]:
    """This test's served apps still running (their environment carries the nonce and
    the test's own folder)."""
    marker = f"HARNESS_SERVED={SERVED}-{project.name}\0".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if marker in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue  # not a process, gone, or not ours to read
    return found


def daemonizing_app(tmp_path: Path, install: BrowserInstall) -> BrowserSetup:
    """An app whose serve command leaves its shell's session (``setsid``), as a
    daemonizing server does: nothing but the replay's launcher can end it."""
    (tmp_path / "index.html").write_text(f"<h1>{NONCE}</h1>")
    port = free_port()
    marked = f"HARNESS_SERVED={SERVED}-{tmp_path.name}"
    serve = f"{marked} setsid python3 -m http.server {port} --bind 127.0.0.1"
    web = WebSettings(serve=serve, url=f"http://127.0.0.1:{port}/")
    return BrowserSetup(install, web, tmp_path / "out")


async def replay_and_wait_for_the_app(setup: BrowserSetup, project: Path, wrap: Any) -> None:
    found = await replay(
        [check(1, ("browser_navigate", {"url": setup.web.url}), ("browser_snapshot", {}))],
        setup,
        project,
        os.environ,
        wrap,
    )
    assert found == []


def no_app_within(project: Path, seconds: float) -> list[int]:
    """The served apps left after ``seconds`` (the replay is over: nothing else runs)."""
    deadline = time.monotonic() + seconds
    while served(project) and time.monotonic() < deadline:
        time.sleep(0.05)
    return served(project)


@pytest.mark.parametrize("wrap", ["none", "limits"])
async def test_the_served_app_is_gone_after_the_replay_unsandboxed(
    tmp_path: Path, install: BrowserInstall, wrap: str
) -> None:
    setup = daemonizing_app(tmp_path, install)
    limits = LimitsWrap(Entry(Limits(disk_mb=None), python=launcher_python()))

    await replay_and_wait_for_the_app(setup, tmp_path, limits if wrap == "limits" else None)

    assert no_app_within(tmp_path, 5) == []


async def test_the_served_app_is_gone_after_the_replay_in_the_sandbox(
    tmp_path: Path, install: BrowserInstall
) -> None:
    bwrap = find_bwrap()
    if probe(bwrap) is not None:
        pytest.skip(f"no bubblewrap here: {probe(bwrap)}")
    assert bwrap is not None
    setup = daemonizing_app(tmp_path, install)
    entry = Entry(Limits(disk_mb=None), python=launcher_python())
    async with session_sandbox(tmp_path, bwrap, {}, entry=entry) as sandbox:
        sandbox.show_browser(setup.read_only(), sandbox.browser_output())
        await replay_and_wait_for_the_app(setup, tmp_path, sandbox.wrap)

    assert no_app_within(tmp_path, 5) == []
