"""``mcp_servers`` and ``sandbox_hosts`` entries: what is accepted, and one line for the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from common.schemas.mcp_server import McpServer, combined, servers_of_kind
from common.schemas.quality import RepoSettings
from common.schemas.sandbox_hosts import split_host_port
from common.schemas.spec import AgentSpec


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("pypi.org:443", ("pypi.org", 443)),
        ("PyPI.Org.:443", ("pypi.org", 443)),
        ("files.pythonhosted.org:443", ("files.pythonhosted.org", 443)),
        ("localhost:8080", ("localhost", 8080)),
        ("10.0.0.5:3141", ("10.0.0.5", 3141)),
        ("[::1]:80", ("::1", 80)),
        ("registry-1.example:1", ("registry-1.example", 1)),
    ],
)
def test_a_host_port_pair_is_split_and_normalised(entry: str, expected: tuple[str, int]) -> None:
    assert split_host_port(entry) == expected


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("pypi.org", "is not host:port"),
        (":443", "is not host:port"),
        ("pypi.org:0", "port must be a number"),
        ("pypi.org:65536", "port must be a number"),
        ("pypi.org:https", "port must be a number"),
        ("::1:80", "IPv6 address in brackets"),
        ("[nothost]:80", "is not an IPv6 address"),
        ("pypi_org:443", "is not a host name"),
        ("-pypi.org:443", "is not a host name"),
        ("*.pypi.org:443", "is not a host name"),
        ("http://pypi.org:443", "is a URL"),
    ],
)
def test_a_bad_host_entry_is_one_line_naming_it(entry: str, says: str) -> None:
    with pytest.raises(ValueError, match=says) as caught:
        split_host_port(entry)
    assert "\n" not in str(caught.value)


def test_a_stdio_server_defaults_to_coding_sessions_and_normalises_its_hosts() -> None:
    server = McpServer(name="notes", command=["python3", "tools/notes.py"], hosts=["PyPI.org:443"])
    assert server.sessions == ("coding",)
    assert server.hosts == ("pypi.org:443",)
    assert server.tool_prefix() == "mcp__notes__"


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"name": "harness", "url": "http://x"}, "is the harness's own"),
        ({"name": "Harness", "url": "http://x"}, "is the harness's own"),
        ({"name": "a__b", "url": "http://x"}, "single '_'"),
        ({"name": "1st", "url": "http://x"}, "starting with a letter"),
        ({"name": "a b", "url": "http://x"}, "letters, digits"),
        ({"name": "a" * 41, "url": "http://x"}, "at most 40"),
        ({"name": "a"}, "needs either command or url"),
        ({"name": "a", "url": "http://x", "command": ["x"]}, "needs either command or url"),
        ({"name": "a", "command": []}, "non-empty list"),
        ({"name": "a", "command": ["python", ""]}, "non-empty list"),
        ({"name": "a", "url": "file:///etc/passwd"}, "must be http"),
        ({"name": "a", "url": "http://x", "env": {"K": "v"}}, "env is for a command"),
        ({"name": "a", "url": "http://x", "sessions": []}, "at least one session kind"),
        ({"name": "a", "url": "http://x", "sessions": ["deploy"]}, "sessions"),
        ({"name": "a", "url": "http://x", "hosts": ["pypi.org"]}, "is not host:port"),
        ({"name": "a", "url": "http://x", "shell": True}, "shell"),
    ],
)
def test_a_bad_server_entry_names_what_is_wrong(entry: dict[str, Any], says: str) -> None:
    with pytest.raises(ValidationError) as caught:
        McpServer.model_validate(entry)
    assert says in str(caught.value)
    assert all("\n" not in error["msg"] for error in caught.value.errors())


def spec(tmp_path: Path, **fields: Any) -> dict[str, Any]:
    return {"spec_file": tmp_path / "s.md", "project_dir": tmp_path, "target_branch": "main"} | (
        fields
    )


def test_the_spec_reads_servers_and_hosts(tmp_path: Path) -> None:
    parsed = AgentSpec.model_validate(
        spec(
            tmp_path,
            sandbox_hosts=["pypi.org:443"],
            mcp_servers=[{"name": "docs", "url": "https://mcp.example/mcp", "sessions": ["mr"]}],
        )
    )
    assert parsed.sandbox_hosts == ["pypi.org:443"]
    assert parsed.mcp_servers[0].sessions == ("mr",)


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"sandbox_hosts": ["pypi.org:443"], "sandbox_network": True}, "sandbox_network is true"),
        ({"sandbox_hosts": ["pypi.org:443"], "sandbox": False}, "sandbox is false"),
        (
            {"mcp_servers": [{"name": "a", "url": "http://x"}, {"name": "a", "command": ["y"]}]},
            "named twice",
        ),
        (
            {"mcp_servers": [{"name": "Browser", "url": "http://x"}]},
            "is the harness's built-in browser's",
        ),
    ],
)
def test_a_spec_that_cannot_hold_refuses_in_one_line(
    tmp_path: Path, fields: dict[str, Any], says: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        AgentSpec.model_validate(spec(tmp_path, **fields))
    assert says in str(caught.value)
    assert all("\n" not in error["msg"] for error in caught.value.errors())


def test_the_repository_file_takes_the_same_entries() -> None:
    repo = RepoSettings.model_validate(
        {"sandbox_hosts": ["pypi.org:443"], "mcp_servers": [{"name": "n", "command": ["x"]}]}
    )
    assert repo.sandbox_hosts == ["pypi.org:443"]
    with pytest.raises(ValidationError, match="named twice"):
        RepoSettings.model_validate(
            {"mcp_servers": [{"name": "n", "command": ["x"]}, {"name": "n", "command": ["y"]}]}
        )
    with pytest.raises(ValidationError, match="built-in browser's"):
        RepoSettings.model_validate({"mcp_servers": [{"name": "browser", "command": ["x"]}]})


def test_servers_of_a_kind_and_the_first_of_a_name_wins() -> None:
    browser = McpServer(name="browser", command=["npx", "playwright"])
    docs = McpServer(name="docs", url="https://d.example/mcp", sessions=("enrichment", "coding"))
    their_browser = McpServer(name="browser", url="https://evil.example/mcp")
    every = combined((browser,), [docs], [their_browser])
    assert every == (browser, docs)
    assert servers_of_kind(every, "coding") == (browser, docs)
    assert servers_of_kind(every, "enrichment") == (docs,)
    assert servers_of_kind(every, "mr") == ()
