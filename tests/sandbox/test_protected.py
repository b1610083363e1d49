"""The deny list and the layout diff, on made-up paths: no disk, no process."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sandbox.layout import diff
from agent.sandbox.protected import ProtectedPlaces, why_denied
from common.harness_code import CODE_ROOT
from common.schemas.sandbox_layout import SandboxLayout

PLACES = ProtectedPlaces(
    harness_home=Path("/h/hh"),
    socket=Path("/h/hh/daemon.sock"),
    env_cache=Path("/h/hh/envs"),
    homes=(Path("/home/u"), Path("/root")),
    temp=Path("/tmp"),
    checkout=Path("/work/harness"),
)


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/", "root folder"),
        ("/proc/1", "/proc"),
        ("/sys", "/sys"),
        ("/dev/shm", "/dev"),
        ("/run/docker", "/run"),
        ("/h/hh", "HARNESS_HOME"),
        ("/h/hh/daemon-stuff", "HARNESS_HOME"),
        ("/h", "holds HARNESS_HOME"),
        ("/h/hh/envs", "HARNESS_HOME"),
        ("/home", "the user's home"),
        ("/home/u", "the user's home"),
        ("/root", "the user's home"),
        ("/home/u/.ssh", "credentials"),
        ("/home/u/.claude/projects", "credentials"),
        ("/home/u/.config", "credentials"),
        ("/tmp", "temp folder"),
        ("/tmp/hsbx-1234/home", "private sandbox folder"),
        ("/srv/other/.claude-agent/spec-1", "workspace"),
        ("/srv/other/.claude-agent", "workspace"),
        ("/work/harness/.venv", "checkout"),
        ("/work", "checkout"),
    ],
)
def test_a_protected_place_is_denied_with_its_reason(path: str, reason: str) -> None:
    found = why_denied(Path(path), PLACES)
    assert found is not None and reason in found


@pytest.mark.parametrize(
    "path",
    [
        "/h/hh/envs/demo-py3.12-abc",  # the demo's venv: docs/security.md shows that one folder
        "/h/hh/envs/demo-py3.12-abc/lib",
        "/home/u/.pyenv/versions/3.12.1",  # an interpreter the home holds
        "/home/u/src/sibling",  # an editable install of a sibling repository
        "/tmp/pytest-of-u/x",
        "/srv/shared-site",
    ],
)
def test_an_ordinary_folder_is_allowed(path: str) -> None:
    assert why_denied(Path(path), PLACES) is None


def test_the_cache_exception_never_opens_a_cache_that_is_harness_home() -> None:
    same = ProtectedPlaces(
        harness_home=Path("/h/hh"),
        socket=Path("/h/hh/daemon.sock"),
        env_cache=Path("/h/hh"),
        homes=(Path("/home/u"),),
        temp=Path("/tmp"),
        checkout=Path("/work/harness"),
    )
    assert why_denied(Path("/h/hh/demo-env"), same) is not None
    outside = ProtectedPlaces(
        harness_home=Path("/h/hh"),
        socket=Path("/h/hh/daemon.sock"),
        env_cache=Path("/var/cache/envs"),
        homes=(Path("/home/u"),),
        temp=Path("/tmp"),
        checkout=Path("/work/harness"),
    )
    assert why_denied(Path("/var/cache/envs/demo"), outside) is None
    assert why_denied(Path("/var/cache/envs"), outside) is not None
    assert why_denied(Path("/h/hh/envs/demo"), outside) is not None  # no longer the cache


def test_the_places_come_from_the_start_environment(tmp_path: Path) -> None:
    places = ProtectedPlaces.of_this_process(
        {"HARNESS_HOME": str(tmp_path / "hh"), "HARNESS_ENV_CACHE": str(tmp_path / "c")}
    )
    assert places.harness_home == tmp_path / "hh"
    assert places.socket == tmp_path / "hh" / "daemon.sock"
    assert places.env_cache == tmp_path / "c"
    assert Path.home() in places.homes
    default = ProtectedPlaces.of_this_process({"HARNESS_HOME": str(tmp_path / "hh")})
    assert default.env_cache == tmp_path / "hh" / "envs"


@pytest.mark.parametrize(
    ("path", "denied"),
    [
        ("/srv/hv/lib/python3.11/site-packages/agent/assets", True),  # the demo's playbook
        ("/srv/hv/lib/python3.11/site-packages/claude_agent_sdk/_bundled", True),
        ("/srv/hv/lib/python3.11/site-packages", True),
        ("/srv/hv", True),  # the install's venv holds its code
        ("/srv/hv/bin", False),  # its interpreter links and entry points, no code of ours
    ],
)
def test_an_installed_harness_is_hidden_like_a_checkout(path: str, denied: bool) -> None:
    """From ``pip install`` the harness's code is the site-packages it went into."""
    installed = ProtectedPlaces(
        harness_home=Path("/h/hh"),
        socket=Path("/h/hh/daemon.sock"),
        env_cache=Path("/h/hh/envs"),
        homes=(Path("/home/u"),),
        temp=Path("/tmp"),
        checkout=Path("/srv/hv/lib/python3.11/site-packages"),
    )
    found = why_denied(Path(path), installed)
    assert (found is not None and "own code, its checkout or install" in found) == denied


def test_the_code_protected_by_default_is_this_harness_s_own() -> None:
    assert ProtectedPlaces.of_this_process({}).checkout == CODE_ROOT
    assert (CODE_ROOT / "agent" / "sandbox" / "protected.py").is_file()


RECORDED = SandboxLayout(
    read_only=[Path("/srv/a"), Path("/srv/b")],
    venv=Path("/p/.venv"),
    venv_target=Path("/h/hh/envs/demo"),
    left_out=["/x (y): z"],
)


def test_the_same_layout_has_no_difference_and_left_out_folders_never_count() -> None:
    assert diff(RECORDED, RECORDED) == []
    assert diff(RECORDED, RECORDED.model_copy(update={"left_out": []})) == []


def test_every_difference_is_one_line() -> None:
    now = SandboxLayout(
        read_only=[Path("/srv/a"), Path("/srv/c")],
        venv=Path("/p/.venv"),
        venv_target=Path("/elsewhere"),
        network=True,
    )
    assert diff(RECORDED, now) == [
        "venv target: /h/hh/envs/demo → /elsewhere",
        "read-only folder added: /srv/c",
        "read-only folder gone: /srv/b",
        "host network: off → on",
    ]
    assert diff(RECORDED, SandboxLayout()) == [
        "project venv: /p/.venv → none",
        "venv target: /h/hh/envs/demo → none",
        "read-only folder gone: /srv/a",
        "read-only folder gone: /srv/b",
    ]
