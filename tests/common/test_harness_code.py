"""Where the harness's code is, and what a child ``python -m agent...`` is given to find it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import agent
import common
import tui
from common.harness_code import CODE_ROOT, is_installed, site_folders, with_code_importable


def test_the_code_root_holds_the_three_packages() -> None:
    for package in (agent, common, tui):
        assert Path(package.__file__ or "").resolve().parent.parent == CODE_ROOT


def test_a_checkout_is_not_an_install() -> None:
    """These tests run from the checkout (an editable install maps it, it is no site folder)."""
    assert not is_installed()
    assert CODE_ROOT not in site_folders()


def test_an_install_is_code_in_a_site_folder(tmp_path: Path) -> None:
    sites = frozenset({tmp_path / "lib" / "site-packages"})
    assert is_installed(tmp_path / "lib" / "site-packages", sites)
    assert not is_installed(tmp_path / "checkout", sites)


def test_from_a_checkout_the_checkout_goes_first_on_pythonpath(tmp_path: Path) -> None:
    environ = {"PYTHONPATH": f"/elsewhere{os.pathsep}{os.pathsep}/more", "KEEP": "1"}
    result = with_code_importable(environ, tmp_path, installed=False)
    assert result["PYTHONPATH"].split(os.pathsep) == [str(tmp_path), "/elsewhere", "/more"]
    assert result["KEEP"] == "1"
    assert environ["PYTHONPATH"] == f"/elsewhere{os.pathsep}{os.pathsep}/more"  # not changed
    assert with_code_importable({}, tmp_path, installed=False)["PYTHONPATH"] == str(tmp_path)


def test_from_an_install_nothing_is_added(tmp_path: Path) -> None:
    assert with_code_importable({"A": "b"}, tmp_path, installed=True) == {"A": "b"}
    kept = with_code_importable({"PYTHONPATH": "/x"}, tmp_path, installed=True)
    assert kept == {"PYTHONPATH": "/x"}


def test_a_child_started_elsewhere_imports_the_harness(tmp_path: Path) -> None:
    """What the model launcher and the eval runner rely on: ``-m`` from any folder."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = "import agent.assets, sys; print(agent.assets.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=with_code_importable(environ),
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(done.stdout.strip()).resolve().is_relative_to(CODE_ROOT)
