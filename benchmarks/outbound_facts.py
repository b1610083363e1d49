"""Time the outbound review's reading of a branch: every blob the branch changes.

Usage: ``.venv/bin/python -m benchmarks.outbound_facts [--files 200] [--rounds 3]``

A repository whose feature branch adds ``--files`` files (text files, a few links and a
few over the review's size limit) is read with :func:`agent.core.outbound.facts.from_branch`
(every git call hardened and, where bubblewrap runs, jailed); the median of ``--rounds``
reads and the number of git processes it started are printed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from unittest import mock

from agent.core.outbound import facts

MAX_BYTES = 1_000


def make_branch(folder: Path, files: int) -> Path:
    project = folder / "project"
    project.mkdir()

    def sh(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-C", str(project), *args],
            check=True,
            capture_output=True,
        )

    sh("init", "-q", "-b", "main")
    sh("commit", "-q", "--allow-empty", "-m", "base")
    sh("checkout", "-q", "-b", "feature")
    for index in range(files):
        path = project / "src" / f"f{index:04d}.py"
        path.parent.mkdir(exist_ok=True)
        if index % 40 == 1:
            path.symlink_to(f"f{index - 1:04d}.py")
        elif index % 40 == 2:
            path.write_text("x = 1\n" * (MAX_BYTES // 3))
        else:
            path.write_text(f"value_{index} = {index}\n")
    sh("add", "-A")
    sh("commit", "-q", "-m", "many files")
    return project


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        project = make_branch(Path(folder), options.files)
        samples: list[float] = []
        started = 0
        real_run = subprocess.run

        def counting(*args: object, **kwargs: object) -> object:
            nonlocal started
            started += 1
            return real_run(*args, **kwargs)  # type: ignore[call-overload]

        for _ in range(options.rounds):
            started = 0
            with mock.patch.object(subprocess, "run", counting):
                begin = time.perf_counter()
                seen = list(facts.from_branch(project, "main", "feature", MAX_BYTES))
                samples.append(time.perf_counter() - begin)
        print(
            f"outbound facts of {len(seen)} changed files: median "
            f"{statistics.median(samples) * 1000:.0f} ms over {options.rounds} reads, "
            f"{started} subprocesses per read"
        )


if __name__ == "__main__":
    main()
