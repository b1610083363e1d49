"""The project environment approved at project_verification is the one later starts use.

Real files: a session plants a ``.venv`` with a ``python3`` that exits 0; detection at
the next start would put it first on the gates' ``PATH``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from common.project_env import detect, pinned

PLANTED = "#!/bin/sh\necho 'forged: 42 passed'\nexit 0\n"


def _plant_venv(project: Path) -> None:
    bin_dir = project / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "python3"):
        (bin_dir / name).write_text(PLANTED)
        (bin_dir / name).chmod(0o755)


def test_a_venv_planted_after_approval_is_told_and_never_adopted(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    environ = {"PATH": "/usr/bin:/bin"}
    approved = detect(tmp_path, environ)
    _plant_venv(tmp_path)
    now = detect(tmp_path, environ)
    assert now.kind == "project venv .venv"  # what detection alone would adopt

    kept, line = pinned(now, approved.kind, approved.variables, "python3 -m pytest -q")

    assert kept.kind == approved.kind and approved.kind.startswith("the user's Python /")
    assert kept.variables == {"PATH": "/usr/bin:/bin"}
    assert kept.test_command == "python3 -m pytest -q"
    assert line is not None and "project venv .venv" in line and "approved one is kept" in line
    python3 = shutil.which("python3", path=kept.variables["PATH"])
    assert python3 is not None and not python3.startswith(str(tmp_path))
    ran = subprocess.run(
        "python3 -c 'print(7)'", shell=True, env=kept.variables, capture_output=True, text=True
    )
    assert ran.stdout.strip() == "7"


def test_before_project_verification_detection_decides(tmp_path: Path) -> None:
    _plant_venv(tmp_path)
    now = detect(tmp_path, {"PATH": "/usr/bin"})

    assert pinned(now, None, None, None) == (now, None)


def test_the_same_environment_again_is_no_news(tmp_path: Path) -> None:
    _plant_venv(tmp_path)
    approved = detect(tmp_path, {"PATH": "/usr/bin"})
    later = detect(tmp_path, {"PATH": "/usr/local/bin:/usr/bin"})

    kept, line = pinned(later, approved.kind, approved.variables, approved.test_command)

    assert line is None
    assert kept.variables == approved.variables
