"""The demo project's own Python environment: a cached venv with its test runner.

Why: the harness never runs a project's commands with its own interpreter, so the
demo project needs an environment of its own, as any real project has. Building one
costs a few seconds and a download, so it is made once per Python version and
requirements, under ``HARNESS_ENV_CACHE`` (default ``HARNESS_HOME/envs``), and each demo
project gets a ``.venv`` symlink to it. It stands below both ``harness demo`` and the eval
suite, which lay out projects that need it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from agent.assets import asset_path
from common.errors import SpecError
from common.paths import harness_home

REQUIREMENTS = asset_path("demo", "requirements.txt")
CACHE_VARIABLE = "HARNESS_ENV_CACHE"
_READY = ".harness-env-ready"


def env_cache() -> Path:
    """Where cached project environments live."""
    configured = os.environ.get(CACHE_VARIABLE)
    return Path(configured) if configured else harness_home() / "envs"


def demo_env_dir(requirements: Path = REQUIREMENTS) -> Path:
    """The cached venv for these requirements and this Python version."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    digest = hashlib.sha256(requirements.read_bytes() + version.encode()).hexdigest()[:12]
    return env_cache() / f"demo-py{version}-{digest}"


def ensure_demo_env(requirements: Path = REQUIREMENTS) -> Path:
    """The demo's venv, built first if it is not there (one builder at a time).

    Raises:
        SpecError: the venv could not be built (for example no package index).
    """
    target = demo_env_dir(requirements)
    if _ready(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _locked(target.with_name(target.name + ".lock")):
        if _ready(target):  # another process built it while we waited
            return target
        shutil.rmtree(target, ignore_errors=True)  # a half-built one from a killed build
        print("preparing the demo project's own environment (once) ...", file=sys.stderr)
        base_python = getattr(sys, "_base_executable", sys.executable)
        # -P: the working folder (wherever ``harness demo`` was typed) is never searched
        # for the ``venv`` or ``pip`` module (see common.harness_code.module_command).
        _run([base_python, "-P", "-m", "venv", str(target)], "create the demo's venv")
        _run(
            [
                str(target / "bin" / "python"),
                "-P",
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
                str(requirements),
            ],
            "install the demo's test requirements",
        )
        (target / _READY).write_text("ok\n")
    return target


def link_demo_env(project: Path, env: Path) -> None:
    """Give the demo project its environment as ``PROJECT/.venv``."""
    (project / ".venv").symlink_to(env, target_is_directory=True)


def _ready(target: Path) -> bool:
    return (target / _READY).exists() and (target / "bin" / "python").exists()


@contextlib.contextmanager
def _locked(lock_file: Path) -> Iterator[None]:
    with lock_file.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        detail = lines[-1] if lines else f"exit status {done.returncode}"
        raise SpecError(f"cannot {what}: {detail}")
