"""Scoring a finished case: its hidden tests, run on a copy of the project as the agent left it.

The copy keeps the agent's work tree (committed or not) and never the agent's
workspace; the hidden tests are copied in and run with the project's own
environment. Exit status 0 is the only pass; the counts are read from the test
runner's summary (pytest, ``node --test``, cargo, go) where it gives them.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agent.assets import BYTE_CODE
from agent.eval.cases import Case
from common.paths import WORKSPACE_ROOT_NAME
from common.project_env import detect

SCORE_TIMEOUT_S = 600
_PYTEST = re.compile(r"(\d+) (passed|failed|error|errors)\b")
_NODE = re.compile(r"^# (pass|fail) (\d+)\s*$", re.MULTILINE)
_CARGO = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed")
_GO = re.compile(r"^--- (PASS|FAIL): ", re.MULTILINE)


@dataclass(frozen=True)
class Score:
    """The hidden tests' verdict."""

    passed: bool
    tests_passed: int | None
    tests_failed: int | None
    summary: str


def count_tests(output: str) -> tuple[int | None, int | None]:
    """Passed and failed tests in a runner's output; ``None`` when it does not say (pure)."""
    cargo = _CARGO.findall(output)
    if cargo:
        return sum(int(p) for p, _ in cargo), sum(int(f) for _, f in cargo)
    node = dict((kind, int(n)) for kind, n in _NODE.findall(output))
    if node:
        return node.get("pass", 0), node.get("fail", 0)
    go = _GO.findall(output)
    if go:
        return go.count("PASS"), go.count("FAIL")
    found = _PYTEST.findall(output)
    if found:
        passed = sum(int(n) for n, kind in found if kind == "passed")
        return passed, sum(int(n) for n, kind in found if kind != "passed")
    return None, None


def _copy_project(project: Path, into: Path) -> Path:
    target = into / project.name
    shutil.copytree(
        project,
        target,
        symlinks=True,
        ignore=shutil.ignore_patterns(WORKSPACE_ROOT_NAME, ".git", "target", "node_modules"),
    )
    return target


async def score(case: Case, project: Path) -> Score:
    """Run ``case``'s hidden tests on a copy of ``project``."""
    scratch = Path(tempfile.mkdtemp(prefix="score-", dir="/tmp"))
    try:
        copy = await asyncio.to_thread(_copy_project, project, scratch)
        destination = copy / case.spec.hidden_dest
        await asyncio.to_thread(
            shutil.copytree, case.hidden_tests, destination, ignore=BYTE_CODE, dirs_exist_ok=True
        )
        environ = detect(copy, os.environ).environ(os.environ)
        process = await asyncio.create_subprocess_shell(
            case.spec.hidden_command,
            cwd=copy,
            env=environ,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            output, _ = await asyncio.wait_for(process.communicate(), SCORE_TIMEOUT_S)
        except TimeoutError:
            process.kill()
            await process.wait()
            return Score(False, None, None, f"hidden tests timed out after {SCORE_TIMEOUT_S} s")
        text = output.decode(errors="replace")
        passed, failed = count_tests(text)
        lines = [line for line in text.strip().splitlines() if line.strip()]
        last = lines[-1].strip() if lines else f"exit status {process.returncode}"
        return Score(process.returncode == 0, passed, failed, last[:200])
    finally:
        await asyncio.to_thread(shutil.rmtree, scratch, True)
