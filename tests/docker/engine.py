"""The Docker engine and the image the Docker-mode tests run, driven through the docker CLI.

The base image comes from ``scripts/docker-base-image.sh`` (Docker Hub is out of reach on
the machines these tests run on); the test image is built from the working tree by
``scripts/docker-build.sh``, as ``./start.sh --build`` builds it, under a name of its own
so that a user's ``coding-harness`` image and containers are never touched.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
BASE_IMAGE = "coding-harness-base:bookworm"
"""The fixed name ``scripts/docker-base-image.sh`` gives the local base image."""
TEST_IMAGE = "coding-harness-test"
"""The image (and container name prefix) of these tests."""


def docker(*args: str, check: bool = True, timeout: float = 60) -> str:
    """Run ``docker ARGS``; its stdout. A failure shows docker's stderr."""
    done = subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def engine_answers() -> bool:
    """Whether a Docker engine answers the CLI."""
    try:
        info = subprocess.run(["docker", "info"], capture_output=True, timeout=20, check=False)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return False
    return info.returncode == 0


def prepare_engine() -> str | None:
    """Install, start and seed the engine (the base-image script); why not, or ``None``."""
    done = subprocess.run(
        [str(REPO_ROOT / "scripts" / "docker-base-image.sh")],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "unknown error"
    return None


def build_test_image() -> None:
    """Build :data:`TEST_IMAGE` from the working tree on the local base image."""
    env = {**os.environ, "HARNESS_DOCKER_BASE": BASE_IMAGE}
    done = subprocess.run(
        [str(REPO_ROOT / "scripts" / "docker-build.sh"), TEST_IMAGE],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
        env=env,
    )
    if done.returncode != 0:
        raise AssertionError(f"the image build failed:\n{done.stdout[-3000:]}\n{done.stderr}")


def harness_containers() -> list[str]:
    """Names of the containers (running or not) of :data:`TEST_IMAGE`."""
    out = docker("ps", "-a", "--filter", f"name=^{TEST_IMAGE}", "--format", "{{.Names}}")
    return sorted(out.split())


def running_containers() -> list[str]:
    """Names of the running containers of :data:`TEST_IMAGE`."""
    out = docker("ps", "--filter", f"name=^{TEST_IMAGE}", "--format", "{{.Names}}")
    return sorted(out.split())


def remove_test_containers() -> None:
    """Remove every container and data volume these tests may have left."""
    names = harness_containers()
    if names:
        # A container started with --rm may be removing itself already: that is gone too.
        docker("rm", "-f", *names, check=False)
        for _ in range(50):
            if not harness_containers():
                break
            time.sleep(0.2)
    volumes = docker("volume", "ls", "-q", "--filter", f"name=^{TEST_IMAGE}").split()
    if volumes:
        docker("volume", "rm", "-f", *volumes)


def foreign_owners(root: Path, uid: int, gid: int) -> Iterator[str]:
    """Each path under ``root`` (itself included) not owned by ``uid``:``gid``."""
    for path in [root, *root.rglob("*")]:
        st = path.lstat()
        if (st.st_uid, st.st_gid) != (uid, gid):
            yield f"{path} ({st.st_uid}:{st.st_gid})"


def docker_has_base_image() -> bool:
    """Whether :data:`BASE_IMAGE` exists on the engine."""
    return docker("image", "inspect", BASE_IMAGE, check=False) != ""
