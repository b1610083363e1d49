"""``./scripts/test.sh`` as CI runs it: it says what it installs before it installs
anything, ``--no-provision`` installs nothing beyond the venv, the eval report goes to
``build/`` (no tracked file changes), and the last line is how long it took.

The script runs for real, in a copy of the checkout's scripts, requirements and docs
committed to a git repository of its own. What it calls is stood in for by small
programs that append their command line to the script's own stderr file, so the order
of what it said and what it ran is the order of that file: the venv's tools (a venv
already up to date, as ``scripts/bootstrap.sh`` checks it), ``apt-get``, ``id`` (root,
here), ``docker-base-image.sh``. Nothing is installed and no test is run.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.e2e.agents import REPO

COPIED = [
    "scripts/test.sh",
    "scripts/bootstrap.sh",
    "requirements.txt",
    "requirements-dev.txt",
    "pyproject.toml",
    ".gitignore",
    "docs/eval-embedded.md",
    "docs/eval-embedded.json",
]
LOGGING = '#!/bin/sh\necho "RAN $(basename "$0") $*" >>"$STUB_LOG"\n'
STUBS = {
    # the venv's programs: each logs; harness eval writes its report where it is told
    ".venv/bin/python": LOGGING,
    ".venv/bin/ruff": LOGGING,
    ".venv/bin/mypy": LOGGING,
    ".venv/bin/harness": LOGGING + 'shift 3; touch "$1.md" "$1.json"\n',
    "scripts/docker-base-image.sh": LOGGING,
}
SYSTEM_STUBS = {"apt-get": LOGGING, "id": "#!/bin/sh\necho 0\n"}
WORKERS = f"-n {min(len(os.sched_getaffinity(0)) + 1, 8)} --dist loadgroup"
"""How test.sh runs pytest: a worker more than the cores (``nproc``), at most 8."""
TOOLS = ("bash", "sh", "cat", "sha256sum", "cut", "basename", "dirname", "mkdir", "touch", "nproc")


def checkout_copy(tmp_path: Path, pytest_exit: int = 0) -> Path:
    """The files test.sh reads, committed, with stand-ins for the venv and the installers
    (the stand-in pytest exits ``pytest_exit``)."""
    copy = tmp_path / "checkout"
    for name in COPIED:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, copy / name)
    for name, text in STUBS.items():
        write_program(copy / name, text)
    write_program(copy / ".venv/bin/pytest", LOGGING + f"exit {pytest_exit}\n")
    git = ["git", "-C", str(copy), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)  # .venv/ and build/ are ignored
    subprocess.run([*git, "commit", "-q", "-m", "copy"], check=True)
    requirements = b"".join(
        (copy / name).read_bytes()
        for name in ("requirements.txt", "requirements-dev.txt", "pyproject.toml")
    )
    stamp = hashlib.sha256(requirements).hexdigest()[:16]
    (copy / ".venv" / ".installed-requirements-dev.txt").write_text(f"{stamp}\n")
    return copy


def write_program(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def system_path(tmp_path: Path) -> str:
    """``apt-get`` and ``id`` stand-ins, the few tools test.sh uses, and nothing else (no
    ``go``, ``promtool``, ``chromium`` or ``npm``: as on a fresh machine)."""
    stubs, tools = tmp_path / "stubs", tmp_path / "tools"
    for name, text in SYSTEM_STUBS.items():
        write_program(stubs / name, text)
    tools.mkdir()
    for name in TOOLS:
        found = shutil.which(name)
        assert found is not None, name
        (tools / name).symlink_to(found)
    return f"{stubs}:{tools}"


def run_test_sh(tmp_path: Path, *args: str, pytest_exit: int = 0) -> tuple[int, list[str], Path]:
    """test.sh ARGS in the copy: its exit status, the lines of its stderr with the
    stand-ins' in the order they happened, and the copy."""
    copy = checkout_copy(tmp_path, pytest_exit)
    log = tmp_path / "stderr.log"
    env = {
        "PATH": system_path(tmp_path),
        "STUB_LOG": str(log),
        "TMPDIR": str(tmp_path),
        "PYTHON": sys.executable,  # bootstrap.sh checks its version (the venv is there)
        "HOME": os.environ["HOME"],
    }
    with log.open("ab") as stderr:
        done = subprocess.run(
            [str(copy / "scripts" / "test.sh"), *args],
            cwd=copy,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            timeout=120,
            check=False,
        )
    return done.returncode, log.read_text().splitlines(), copy


def test_it_says_what_it_installs_as_root_before_installing_it(tmp_path: Path) -> None:
    status, lines, _ = run_test_sh(tmp_path, "-m", "not slow")

    assert status == 0, "\n".join(lines)
    first_install = next(i for i, line in enumerate(lines) if line.startswith("RAN "))
    said = lines[:first_install]
    assert "test.sh: as root, installs with apt-get: golang-go prometheus chromium npm" in said
    assert any("scripts/docker-base-image.sh" in line for line in said)
    assert any("Playwright's MCP server" in line for line in said)
    assert any("--no-provision skips" in line for line in said)
    ran = [line for line in lines if line.startswith("RAN ")]
    assert "RAN docker-base-image.sh " in ran
    assert [line for line in ran if line.startswith("RAN apt-get")] == [
        f"RAN apt-get install -y -q {package}"
        for package in ("golang-go", "prometheus", "chromium", "npm")
    ]
    assert f"RAN pytest {WORKERS} -m not slow" in ran


def test_no_provision_installs_nothing_beyond_the_venv(tmp_path: Path) -> None:
    status, lines, _ = run_test_sh(tmp_path, "--no-provision")

    assert status == 0, "\n".join(lines)
    ran = [line for line in lines if line.startswith("RAN ")]
    assert not [line for line in ran if "apt-get" in line or "docker-base-image" in line]
    assert not [line for line in ran if "agent.core.browser.install" in line]
    assert f"RAN pytest {WORKERS}" in ran, "--no-provision is not an argument for pytest"
    assert any("installs nothing else (--no-provision)" in line for line in lines)


def test_the_report_goes_to_build_no_tracked_file_changes_and_it_ends_with_its_duration(
    tmp_path: Path,
) -> None:
    status, lines, copy = run_test_sh(tmp_path, "--no-provision")

    assert status == 0, "\n".join(lines)
    assert "RAN harness eval --embedded-only --report build/eval-embedded" in lines
    assert (copy / "build" / "eval-embedded.md").exists()
    changed = subprocess.run(
        ["git", "-C", str(copy), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert changed == "", "test.sh changed files the repository tracks (or leaves untracked)"
    assert re.fullmatch(r"test\.sh: passed after \d+m \d\ds", lines[-1]), lines[-1]


def test_a_failure_ends_with_its_duration_too(tmp_path: Path) -> None:
    status, lines, _ = run_test_sh(tmp_path, "--no-provision", pytest_exit=3)

    assert status == 3
    assert re.fullmatch(r"test\.sh: failed \(exit 3\) after \d+m \d\ds", lines[-1]), lines[-1]
