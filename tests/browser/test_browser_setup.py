"""The rule that gives coding sessions a browser, and the server they are given."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from agent.core.browser import install
from agent.core.browser.install import BrowserInstall, BrowserUnavailable, tools_cache
from agent.core.browser.launch import browser_servers, prepare_browser
from agent.core.browser.server import SERVER, BrowserSetup, tool_name
from common.schemas.spec import AgentSpec
from common.schemas.web import WebSettings

WEB = WebSettings(serve="python3 app.py 8123", url="http://127.0.0.1:8123/")


def spec(tmp_path: Path, **extra: object) -> AgentSpec:
    return AgentSpec.model_validate(
        {"spec_file": tmp_path / "s.md", "project_dir": tmp_path, "target_branch": "main", **extra}
    )


def setup(tmp_path: Path) -> BrowserSetup:
    found = BrowserInstall(tmp_path / "pw", Path("/usr/bin/node"), Path("/usr/bin/chromium"))
    return BrowserSetup(found, WEB, tmp_path / "out")


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org:8123/",
        "http://10.0.0.1:80/",
        "file:///etc/passwd",
        "http://127.0.0.1/",
        "http://127.0.0.1:99999/",
        "javascript:alert(1)",
    ],
)
def test_the_app_url_must_be_on_the_sandboxs_loopback_with_a_port(url: str) -> None:
    with pytest.raises(ValidationError, match=r"web\.url"):
        WebSettings(serve="python3 -m http.server", url=url)


def test_the_origin_is_what_the_browser_may_request() -> None:
    assert WebSettings(serve="x", url="http://localhost:3000/app?x=1").origin == (
        "http://localhost:3000"
    )


def test_a_spec_without_web_never_gets_a_browser_nor_installs_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_install(cache: Path | None = None) -> BrowserInstall:
        raise AssertionError("installed")

    monkeypatch.setattr("agent.core.browser.launch.ensure_installed", no_install)
    lines: list[str] = []
    assert prepare_browser(spec(tmp_path), None, lines.append) is None
    assert not spec(tmp_path).wants_browser and lines == []
    skipped = spec(tmp_path, web=WEB.model_dump(), skip_puppeteer=True)
    assert prepare_browser(skipped, None, lines.append) is None
    assert not skipped.wants_browser and lines == ["browser: off (skip_puppeteer is true)"]


def test_no_chromium_is_one_line_and_no_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(install.CHROMIUM_VARIABLE, str(tmp_path / "no-chromium"))
    lines: list[str] = []
    wanted = spec(tmp_path, web=WEB.model_dump())
    assert wanted.wants_browser and prepare_browser(wanted, None, lines.append) is None
    assert lines == [
        "browser: not offered to the sessions: no Chromium (install Debian's chromium "
        "package, or set HARNESS_CHROMIUM)"
    ]
    with pytest.raises(BrowserUnavailable):
        install.ensure_installed(tmp_path / "cache")


def test_the_cache_is_the_harnesss_own(tmp_path: Path) -> None:
    assert tools_cache({"HARNESS_TOOLS_CACHE": str(tmp_path)}) == tmp_path
    assert tools_cache({"XDG_CACHE_HOME": "/x"}) == Path("/x/coding-harness")


def test_the_server_runs_chromium_headless_on_the_apps_origin_for_coding_only(
    tmp_path: Path,
) -> None:
    browser = setup(tmp_path)
    server = browser.server()
    assert server.name == SERVER and server.sessions == ("coding",) and server.hosts == ()
    argv = server.command or []
    assert argv[:2] == ["/usr/bin/node", str(tmp_path / "pw/node_modules/@playwright/mcp/cli.js")]
    for option in ("--headless", "--isolated", "--no-sandbox"):
        assert option in argv
    assert argv[argv.index("--executable-path") + 1] == "/usr/bin/chromium"
    assert argv[argv.index("--output-dir") + 1] == str(tmp_path / "out")
    assert argv[argv.index("--allowed-origins") + 1] == "http://127.0.0.1:8123"
    assert browser_servers(browser) == (server,) and browser_servers(None) == ()
    assert browser.read_only() == (tmp_path / "pw",)


def test_the_prompt_names_the_serve_command_the_url_and_the_tools(tmp_path: Path) -> None:
    block = setup(tmp_path).prompt_block()
    assert "`python3 app.py 8123`" in block and "http://127.0.0.1:8123/" in block
    for tool in ("browser_navigate", "browser_snapshot", "browser_take_screenshot"):
        assert tool_name(tool) in block
