"""The sandbox's host allowlist, the proxy's reading of a request head and the plan's
proxy forward and variables (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sandbox.allowlist import NOT_IN_LIST, HostAllowlist
from agent.sandbox.host_access import proxy_env, proxy_port, with_hosts
from agent.sandbox.host_proxy import HostProxy, Refused, parse_head
from agent.sandbox.plan import Forward, SandboxPlan

LISTED = HostAllowlist.of(["pypi.org:443", "localhost:8080", "10.1.2.3:3141", "[::1]:9000"])


@pytest.mark.parametrize(
    ("host", "port"),
    [("pypi.org", 443), ("PyPI.org.", 443), ("localhost", 8080), ("10.1.2.3", 3141), ("::1", 9000)],
)
def test_a_listed_pair_passes_by_name(host: str, port: int) -> None:
    assert LISTED.refusal(host, port) is None


@pytest.mark.parametrize(
    ("host", "port"),
    [
        ("pypi.org", 80),  # another port of a listed host
        ("files.pypi.org", 443),  # a subdomain
        ("evil-pypi.org", 443),
        ("151.101.0.223", 443),  # an address of a listed name, not itself listed
        ("127.0.0.1", 8080),  # what localhost resolves to, not listed as such
        ("10.1.2.4", 3141),
        ("", 443),
    ],
)
def test_anything_else_is_refused(host: str, port: int) -> None:
    assert LISTED.refusal(host, port) == NOT_IN_LIST


def test_an_empty_list_refuses_everything_and_is_false() -> None:
    empty = HostAllowlist.of([])
    assert not empty
    assert empty.refusal("pypi.org", 443) == NOT_IN_LIST
    assert LISTED.entries() == ["10.1.2.3:3141", "[::1]:9000", "localhost:8080", "pypi.org:443"]


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("pypi.org", "127.0.0.1"),
        ("pypi.org", "127.8.9.10"),
        ("pypi.org", "::1"),
        ("pypi.org", "::ffff:127.0.0.1"),
        ("pypi.org", "169.254.169.254"),  # cloud metadata
        ("pypi.org", "fe80::1"),
        ("pypi.org", "0.0.0.0"),
        ("pypi.org", "224.0.0.1"),
    ],
)
def test_a_listed_name_that_resolves_to_this_machine_is_refused(host: str, address: str) -> None:
    reason = LISTED.address_refusal(host, address)
    assert reason is not None and "resolves to" in reason


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("pypi.org", "151.101.0.223"),
        ("pypi.org", "10.0.0.7"),  # a private registry the person listed by name
        ("localhost", "127.0.0.1"),  # listed as this machine: what was asked
        ("localhost", "::1"),
        ("127.0.0.1", "127.0.0.1"),  # listed literally
    ],
)
def test_other_answers_are_reached(host: str, address: str) -> None:
    assert LISTED.address_refusal(host, address) is None


def test_connect_names_its_destination() -> None:
    method, where = parse_head(b"CONNECT PyPI.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n")
    assert (method, where.host, where.port, where.tunnel) == ("CONNECT", "pypi.org", 443, True)


def test_an_absolute_get_is_rewritten_to_its_path_without_proxy_headers() -> None:
    head = (
        b"GET http://example.test:8080/simple/x/?a=1 HTTP/1.1\r\nHost: example.test:8080\r\n"
        b"Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\nAccept: */*\r\n\r\n"
    )
    method, where = parse_head(head)
    assert (method, where.host, where.port, where.tunnel) == ("GET", "example.test", 8080, False)
    assert where.head == (
        b"GET /simple/x/?a=1 HTTP/1.1\r\nHost: example.test:8080\r\nAccept: */*\r\n\r\n"
    )
    assert parse_head(b"HEAD http://example.test HTTP/1.0\r\n\r\n")[1].port == 80


@pytest.mark.parametrize(
    ("head", "says"),
    [
        (b"GET / HTTP/1.1\r\n\r\n", "not an absolute http URL"),
        (b"GET https://pypi.org/ HTTP/1.1\r\n\r\n", "use CONNECT for https"),
        (b"CONNECT pypi.org HTTP/1.1\r\n\r\n", "is not host:port"),
        (b"CONNECT pypi.org:99999 HTTP/1.1\r\n\r\n", "port must be a number"),
        (b"GET http://x:port/ HTTP/1.1\r\n\r\n", "port is not a number"),
        (b"\x16\x03\x01\x02\x00\r\n\r\n", "not an HTTP request line"),
        (b"GET  http://x/ HTTP/1.1\r\n\r\n", "not an HTTP request line"),
    ],
)
def test_a_request_the_proxy_does_not_carry_is_a_400_with_one_line(head: bytes, says: str) -> None:
    with pytest.raises(Refused) as caught:
        parse_head(head)
    assert caught.value.status == 400
    assert says in caught.value.reason and "\n" not in caught.value.reason


def test_the_plan_gets_the_proxy_while_some_host_is_allowed(tmp_path: Path) -> None:
    model = Forward(41000, tmp_path / "model.sock")
    proxy = Forward(proxy_port({41000}), tmp_path / "hosts.sock")
    plan = SandboxPlan(
        project_dir=tmp_path,
        scratch_home=tmp_path / "home",
        cli=tmp_path / "claude",
        relay=tmp_path / "relay.py",
        python=tmp_path / "python",
        forwards=(model,),
        env={"KEEP": "1"},
    )
    opened = with_hosts(plan, proxy, allowed=True)
    assert opened.forwards == (model, proxy)
    assert opened.env == {"KEEP": "1", **proxy_env(3128)}
    assert opened.env["HTTPS_PROXY"] == "http://127.0.0.1:3128"
    assert "127.0.0.1" in opened.env["NO_PROXY"].split(",")
    assert with_hosts(opened, proxy, allowed=True) == opened
    assert with_hosts(opened, proxy, allowed=False) == plan


def test_a_kinds_hosts_are_allowed_only_while_its_sessions_run(tmp_path: Path) -> None:
    proxy = HostProxy(tmp_path / "hosts.sock", lambda _line: None)
    proxy.allow(["pypi.org:443"], {"coding": ["notes.example:443"], "mr": []})
    assert proxy.any_host()
    assert proxy.allowlist.entries() == ["pypi.org:443"]
    with proxy.during("coding"):
        with proxy.during("coding"):  # two slots' coding sessions at once
            assert proxy.allowlist.entries() == ["notes.example:443", "pypi.org:443"]
        assert proxy.allowlist.refusal("notes.example", 443) is None  # one still runs
        with proxy.during("mr"):
            assert proxy.allowlist.entries() == ["notes.example:443", "pypi.org:443"]
    assert proxy.allowlist.entries() == ["pypi.org:443"]
    with proxy.during("enrichment"):
        assert proxy.allowlist.refusal("notes.example", 443) == NOT_IN_LIST
    assert proxy.shown() == "pypi.org:443; during coding sessions also notes.example:443"
    proxy.allow([], {})
    assert not proxy.any_host() and proxy.shown() == "none"


def test_the_proxy_port_steps_past_a_taken_one() -> None:
    assert proxy_port(set()) == 3128
    assert proxy_port({3128, 3129}) == 3130
