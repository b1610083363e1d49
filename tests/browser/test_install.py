"""The browser server is installed from the lockfile the harness ships: the pinned
version, every package checked against its checksum, no install script run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.core.browser import install


def test_the_lockfile_pins_the_servers_version_and_every_checksum() -> None:
    lock = json.loads((install.LOCK_FOLDER / "package-lock.json").read_text())
    wanted = json.loads((install.LOCK_FOLDER / "package.json").read_text())
    assert install.locked_version() == install.VERSION
    assert wanted["dependencies"] == {install.PACKAGE: install.VERSION}
    packages = {name: entry for name, entry in lock["packages"].items() if name}
    assert f"node_modules/{install.PACKAGE}" in packages
    for name, entry in packages.items():
        assert entry["integrity"].startswith("sha512-"), name
        # npm ci runs none (--ignore-scripts); one appearing in a new lockfile is reviewed
        assert not entry.get("hasInstallScript"), f"{name} has an install script"


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_an_install_is_exactly_the_lockfiles_packages(tmp_path: Path) -> None:
    """Through the registry (or npm's cache), into a fresh cache: the server's entry is
    there, and the installed packages are those of the lockfile at its versions."""
    if install.find_chromium() is None:
        pytest.skip("no Chromium: the install is not attempted without one")
    found = install.ensure_installed(tmp_path / "cache")
    assert found.entry.is_file()
    lock = json.loads((install.LOCK_FOLDER / "package-lock.json").read_text())
    for name, entry in lock["packages"].items():
        if not name or entry.get("optional"):
            continue
        manifest = json.loads((found.folder / name / "package.json").read_text())
        assert manifest["version"] == entry["version"], name
    assert install.ensure_installed(tmp_path / "cache") == found  # installed once
