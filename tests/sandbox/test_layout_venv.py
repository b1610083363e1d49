"""A real project venv whose ``.pth`` and ``pyvenv.cfg`` name protected places.

The venv is made with ``python -m venv`` in a temp folder; stand-ins for
``HARNESS_HOME`` (with a decision key and a socket) and the user's home sit next to
it. What the layout records, what a sandbox built from the record shows (real
bubblewrap, through the launcher), and what changes after "verification" do.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.sandbox import layout
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.plan import SYSTEM_DIRS
from agent.sandbox.protected import ProtectedPlaces
from agent.sandbox.session_plan import extra_read_only
from common.schemas.sandbox_layout import SandboxLayout

BWRAP = find_bwrap()
BASE = Path(getattr(sys, "_base_executable", sys.executable)).resolve().parent.parent
"""The interpreter the venvs here are made from (``pyvenv.cfg`` home's parent)."""
BASE_SHOWN = [] if any(BASE.is_relative_to(d) for d in SYSTEM_DIRS) else [BASE]
"""It is in the layout unless a system folder already shows it (pyenv: it is)."""


@dataclass
class Scene:
    project: Path
    site: Path
    """The venv's site-packages, where ``.pth`` files go."""
    sibling: Path
    """A sibling repository's source: a legitimate editable install."""
    places: ProtectedPlaces
    key: Path
    """The stand-in ``HARNESS_HOME``'s decision key."""


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    project = tmp_path / "proj"
    project.mkdir()
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(project / ".venv")], check=True)
    site = next((project / ".venv" / "lib").glob("python*/site-packages"))
    sibling = tmp_path / "sibling" / "src"
    sibling.mkdir(parents=True)
    harness_home = tmp_path / "hh"
    harness_home.mkdir()
    key = harness_home / "decision.key"
    key.write_text("k" * 64)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(harness_home / "daemon.sock"))
    user_home = tmp_path / "home"
    (user_home / ".ssh").mkdir(parents=True)
    places = ProtectedPlaces(
        harness_home=harness_home,
        socket=harness_home / "daemon.sock",
        env_cache=harness_home / "envs",
        homes=(user_home,),
        temp=Path("/tmp"),
    )
    try:
        yield Scene(project, site, sibling, places, key)
    finally:
        listener.close()


def hostile_pth(scene: Scene) -> None:
    """What the red team wrote: the daemon's home, the user's home, ``/``, a workspace."""
    other = scene.project.parent / "other-repo"
    (other / ".claude-agent" / "spec-1").mkdir(parents=True)
    lines = [
        scene.places.harness_home,
        scene.places.homes[0],
        scene.places.homes[0] / ".ssh",
        "/",
        "/proc",
        other,
    ]
    (scene.site / "zz_hostile.pth").write_text("".join(f"{line}\n" for line in lines))


def test_the_venv_s_own_folders_are_kept_and_protected_ones_left_out(scene: Scene) -> None:
    (scene.site / "sibling.pth").write_text(f"{scene.sibling}\nimport os\nrelative/dir\n")
    hostile_pth(scene)
    found = layout.resolve(scene.project, scene.places, network=False)
    assert found.read_only == [*BASE_SHOWN, scene.sibling]
    assert found.venv == scene.project / ".venv"
    left_out = "\n".join(found.left_out)
    for place in (scene.places.harness_home, scene.places.homes[0], "/ (", "/proc"):
        assert str(place) in left_out
    assert "other-repo" in left_out and "harness workspace" in left_out
    assert all("zz_hostile.pth" in note for note in found.left_out)


def test_a_venv_symlinked_into_the_cache_shows_that_environment_only(scene: Scene) -> None:
    cached = scene.places.env_cache / "demo-py3-abc"
    cached.parent.mkdir()
    (scene.project / ".venv").rename(cached)
    (scene.project / ".venv").symlink_to(cached)
    recorded = layout.resolve(scene.project, scene.places, network=False)
    assert recorded.venv_target == cached and cached in recorded.read_only
    # The model points .venv at the daemon's home: left out, and a difference to approve.
    (scene.project / ".venv").unlink()
    (scene.project / ".venv").symlink_to(scene.places.harness_home)
    (scene.places.harness_home / "bin").mkdir()
    (scene.places.harness_home / "bin" / "python").symlink_to(sys.executable)
    now = layout.resolve(scene.project, scene.places, network=False)
    assert now.read_only == [] and scene.places.harness_home not in now.read_only
    assert any("HARNESS_HOME" in note for note in now.left_out)
    assert layout.diff(recorded, now) == [
        f"venv target: {cached} → {scene.places.harness_home}",
        f"read-only folder gone: {cached}",
        *(f"read-only folder gone: {p}" for p in BASE_SHOWN),
    ]


def test_files_changed_after_verification_never_reach_the_sandbox(scene: Scene) -> None:
    recorded = layout.resolve(scene.project, scene.places, network=False)
    other_python = scene.project.parent / "other-python"
    (other_python / "bin").mkdir(parents=True)
    config = scene.project / ".venv" / "pyvenv.cfg"
    config.write_text(f"home = {other_python / 'bin'}\n")
    (scene.site / "late.pth").write_text(f"{scene.sibling}\n{scene.places.harness_home}\n")
    shown = extra_read_only(scene.project, recorded, scene.places, lambda _line: None)
    assert other_python not in shown and scene.sibling not in shown
    assert scene.places.harness_home not in shown
    now = layout.resolve(scene.project, scene.places, network=False)
    assert layout.diff(recorded, now) == [
        f"read-only folder added: {other_python}",
        f"read-only folder added: {scene.sibling}",
        *(f"read-only folder gone: {p}" for p in BASE_SHOWN),
    ]


def test_a_recorded_folder_is_checked_again_at_every_sandbox(scene: Scene) -> None:
    """A record from an older harness (or one edited by hand) still meets the deny list."""
    link = scene.project.parent / "was-a-folder"
    link.symlink_to(scene.places.harness_home)
    forged = SandboxLayout(read_only=[Path("/"), scene.places.harness_home, link, scene.sibling])
    lines: list[str] = []
    shown = extra_read_only(scene.project, forged, scene.places, lines.append)
    assert scene.sibling in shown
    assert Path("/") not in shown and scene.places.harness_home not in shown
    assert len(lines) == 3 and all(line.startswith("sandbox: left out ") for line in lines)


@pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
async def test_bwrap_starts_and_hides_the_daemon_s_home_whatever_the_pth_says(
    scene: Scene,
) -> None:
    (scene.site / "sibling.pth").write_text(f"{scene.sibling}\n")
    recorded = layout.resolve(scene.project, scene.places, network=False)
    hostile_pth(scene)  # after verification, as a session would
    forged = recorded.model_copy(
        update={"read_only": [*recorded.read_only, Path("/"), scene.places.harness_home]}
    )
    assert BWRAP is not None
    lines: list[str] = []
    async with session_sandbox(
        scene.project, BWRAP, {}, layout=forged, places=scene.places, log=lines.append
    ) as box:
        script = (
            f"test -d {scene.sibling} && echo sibling; "
            f"test -e {scene.key} && echo key; "
            f"test -e {scene.places.socket} && echo socket; "
            f"ls {scene.places.homes[0]} >/dev/null 2>&1 && echo home; "
            f"{scene.project}/.venv/bin/python -c 'print(\"venv runs\")'"
        )
        proc = await asyncio.create_subprocess_exec(
            *box.wrap(["/bin/sh", "-c", script]),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        true = await asyncio.create_subprocess_exec(*box.wrap(["true"]))
        assert await asyncio.wait_for(true.wait(), 30) == 0
    assert proc.returncode == 0, err.decode()
    assert out.decode().split("\n")[:2] == ["sibling", "venv runs"], out.decode()
    assert len(lines) == 2, lines


def test_an_editable_finder_names_its_packages_read_as_data(scene: Scene) -> None:
    """setuptools' ``pip install -e`` writes a finder module; its MAPPING is read, never run."""
    package = scene.sibling / "lib_pkg"
    package.mkdir()
    module = scene.sibling / "lonely.py"
    module.write_text("")
    marker = scene.project.parent / "finder-ran"
    finder = scene.site / "__editable___lib_pkg_1_0_finder.py"
    finder.write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).touch()\n"
        f"MAPPING: dict[str, str] = {{'lib_pkg': {str(package)!r}, 'lonely': {str(module)!r}}}\n"
        f"NAMESPACES: dict[str, list[str]] = {{}}\n"
    )
    (scene.site / "__editable__.lib_pkg-1.0.pth").write_text(
        "import __editable___lib_pkg_1_0_finder; __editable___lib_pkg_1_0_finder.install()\n"
    )
    found = layout.resolve(scene.project, scene.places, network=False)
    assert package in found.read_only and scene.sibling in found.read_only
    assert not marker.exists()
    finder.write_text(f"MAPPING = {{'x': {str(scene.places.harness_home)!r}}}\n")
    now = layout.resolve(scene.project, scene.places, network=False)
    assert scene.places.harness_home not in now.read_only
    assert any("_finder.py" in note and "HARNESS_HOME" in note for note in now.left_out)


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "link outside", "not python"])
def test_a_venv_file_that_is_not_a_plain_file_is_ignored(scene: Scene, kind: str) -> None:
    """The model may leave a FIFO or a link where a ``.pth`` is read: never a hang or a crash."""
    pth = scene.site / "zz.pth"
    finder = scene.site / "__editable___zz_finder.py"
    if kind == "fifo":
        os.mkfifo(pth)
        os.mkfifo(finder)
    elif kind == "link to /dev/zero":
        pth.symlink_to("/dev/zero")
        finder.symlink_to("/dev/zero")
    elif kind == "link outside":
        outside = scene.project.parent / "named.txt"
        outside.write_text(f"{scene.sibling}\n")
        pth.symlink_to(outside)
        finder.symlink_to(outside)
    else:
        pth.write_bytes(b"\xff\xfe\x00garbage\n")
        finder.write_text("MAPPING = {'a': (lambda: 1)()}\ndef broken(:\n")
    found = layout.resolve(scene.project, scene.places, network=False)
    assert found.read_only == BASE_SHOWN


def test_a_folder_visible_anyway_needs_no_mount_and_no_note(scene: Scene) -> None:
    inside = scene.project / "vendored"
    inside.mkdir()
    (scene.site / "visible.pth").write_text(f"{inside}\n/usr/lib\n/etc\n")
    found = layout.resolve(scene.project, scene.places, network=False)
    assert found.read_only == BASE_SHOWN and found.left_out == []
