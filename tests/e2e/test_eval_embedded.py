"""``harness eval --embedded-only``: the embedded subset, end to end through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from agent.eval.staleness import REFRESH, differences
from common.atomic import read_model
from common.schemas.eval_report import EvalReport
from tests.e2e.agents import REPO

pytestmark = pytest.mark.slow

#: The report the repository commits (the test command writes a fresh one to build/).
COMMITTED = REPO / "docs" / "eval-embedded.json"


def test_the_embedded_subset_passes_and_the_rest_is_reported_not_run() -> None:
    out = Path(tempfile.mkdtemp(prefix="eval-e2e-", dir="/tmp"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent.control",
            "eval",
            "--embedded-only",
            "--report",
            str(out / "report"),
            "--work",
            str(out / "work"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "ANTHROPIC_API_KEY": "sk-ant-not-used"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((out / "report.json").read_text())
    ran = [c for c in report["cases"] if c["status"] != "not_run"]
    assert len(ran) >= 6 and report["passed"] == report["run"] == len(ran)
    assert {c["language"] for c in ran} == {"python", "javascript"}
    for case in ran:
        figures = case["figures"]
        assert figures["issues_done"] == 1 and figures["issues_set_aside"] == 0
        assert figures["sessions"] >= 3 and figures["requests"] >= figures["sessions"]
        assert case["hidden_passed"] > 0 and case["hidden_failed"] == 0
    skipped = [c for c in report["cases"] if c["status"] == "not_run"]
    assert len(skipped) >= 14 and all("--embedded-only" in c["reason"] for c in skipped)
    rate = f"Pass rate: **{len(ran)}/{len(ran)} (100%)**"
    assert rate in (out / "report.md").read_text()
    stale = differences(
        read_model(COMMITTED, EvalReport), read_model(out / "report.json", EvalReport)
    )
    assert not stale, f"{COMMITTED} is stale: {'; '.join(stale)}; {REFRESH}"
    shown = subprocess.run(
        [sys.executable, "-m", "agent.control", "trace", ran[0]["workspace"]],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0 and "total: 3 session(s)" in shown.stdout
