"""Where the harness's code is, and what a child ``python -m agent...`` is given to find it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import agent
import common
import tui
from common.harness_code import (
    CODE_ROOT,
    is_installed,
    module_command,
    site_folders,
    with_code_importable,
)


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


#: Every module the harness starts as a child with ``python -m``.
CHILD_MODULES = ("agent.process", "agent.cli", "agent.daemon", "agent.model", "tui.web", "tui.main")


def plant_packages(project: Path, marker: Path) -> None:
    """A project whose top-level packages share the harness's names, each module of them
    writing ``marker`` when imported: what a session could leave in the model's tree."""
    for module in CHILD_MODULES:
        package, name = module.split(".")
        folder = project / package
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write('{package}\\n')\n")
        (folder / f"{name}.py").write_text(f"open({str(marker)!r}, 'a').write('{module}\\n')\n")


@pytest.mark.parametrize("module", CHILD_MODULES)
def test_a_child_in_a_project_with_the_harness_package_names_runs_the_harness(
    tmp_path: Path, module: str
) -> None:
    """The harness starts its agents in the project: ``python -m agent.cli`` (now
    ``agent.process``, the old name kept) there ran a planted ``agent/cli.py`` as the
    agent (outside the sandbox, with the decision key)."""
    project, marker = tmp_path / "project", tmp_path / "planted-code-ran"
    project.mkdir()
    plant_packages(project, marker)
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    done = subprocess.run(
        [*module_command(module), "--help"],
        cwd=project,
        env=with_code_importable(environ),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0 and "usage:" in done.stdout, done.stderr[-500:]
    unguarded = subprocess.run(  # the same child without -P: the check sees the planted code
        [sys.executable, "-m", module, "--help"],
        cwd=project,
        env=with_code_importable(environ),
        capture_output=True,
        timeout=60,
    )
    assert marker.read_text().split() == [module.split(".")[0], module], unguarded.stderr


def test_the_harness_starts_its_own_modules_only_through_module_command() -> None:
    """A new ``[sys.executable, "-m", ...]`` elsewhere would bring the hole back; any other
    ``python -m MODULE`` the harness runs (the demo's ``venv``, ``pip``) has ``-P`` first."""
    own = re.compile(r"""sys\.executable,\s*["']-m["']""")
    module = re.compile(r"""["']-m["'],\s*["'][a-z_][a-z0-9_.]*["']""")
    found = []
    for root in ("agent", "common", "tui"):
        for path in sorted((CODE_ROOT / root).rglob("*.py")):
            text = path.read_text()
            found += [f"{path.name}: {m.group(0)!r}" for m in own.finditer(text)]
            found += [
                f"{path.name}: {m.group(0)!r} without -P"
                for m in module.finditer(text)
                if not re.search(r"""["']-P["'],\s*$""", text[: m.start()])
            ]
    assert found == []
    for script in ("start.sh", "docker-entrypoint.sh"):
        text = (CODE_ROOT / script).read_text()
        assert not re.search(r"python3? -m (agent|tui)\.", text), script
