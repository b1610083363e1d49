"""Scoring and reporting, without running an agent: counts, figures, the report."""

from __future__ import annotations

import json
from pathlib import Path

from agent.core.trace import trace
from agent.eval.cases import CASES_DIR, load_case
from agent.eval.figures import SET_ASIDE_LABEL, add, case_figures
from agent.eval.layout import lay_out
from agent.eval.report import markdown, write_report
from agent.eval.score import count_tests, score
from common.atomic import write_model
from common.paths import WorkspaceFiles
from common.schemas.eval_report import CaseFigures, CaseResult, EvalReport
from common.schemas.issues import TrackedIssue
from common.schemas.milestone import FileMilestone
from common.schemas.spec import LOCAL_MODEL
from common.schemas.trace import ModelRequest, SessionEnd


def test_counts_from_each_runner() -> None:
    assert count_tests("..F\n1 failed, 2 passed in 0.03s\n") == (2, 1)
    assert count_tests("3 passed, 1 error in 0.1s") == (3, 1)
    assert count_tests("# tests 3\n# pass 2\n# fail 1\n") == (2, 1)
    cargo = (
        "test result: ok. 2 passed; 0 failed; 0 ignored\n"
        "test result: FAILED. 1 passed; 1 failed; 0 ignored\n"
    )
    assert count_tests(cargo) == (3, 1)
    assert count_tests("--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\n") == (1, 1)
    assert count_tests("Segmentation fault") == (None, None)


def test_figures_come_from_the_trace_and_the_milestone(tmp_path: Path) -> None:
    files = WorkspaceFiles(tmp_path)
    with trace.tracing(trace.trace_path(files)):
        for cost in (0.25, 0.5):
            trace.emit(SessionEnd(label="s", input_tokens=100, output_tokens=10, cost_usd=cost))
        trace.emit(
            ModelRequest(
                index=1,
                step=0,
                has_tools=True,
                request_bytes=1,
                system_bytes=1,
                messages_bytes=1,
                tools_bytes=1,
                message_count=1,
                status=200,
            )
        )
    issues = [
        TrackedIssue(iid=1, title="a", description="d", state="closed"),
        TrackedIssue(iid=2, title="b", description="d", labels=[SET_ASIDE_LABEL]),
        TrackedIssue(iid=3, title="c", description="d"),
    ]
    write_model(files.milestone, FileMilestone(title="m", issues=issues))
    figures = case_figures(files)
    assert figures == CaseFigures(
        issues_done=1,
        issues_set_aside=1,
        issues_open=1,
        sessions=2,
        requests=1,
        input_tokens=200,
        output_tokens=20,
        cost_usd=0.75,
    )
    assert add(figures, figures).sessions == 4


def test_the_report_in_markdown_and_json(tmp_path: Path) -> None:
    report = EvalReport(
        model="embedded",
        cases=[
            CaseResult(
                name="py-a",
                language="python",
                status="passed",
                hidden_passed=3,
                hidden_failed=0,
                figures=CaseFigures(sessions=3, requests=9, issues_done=1),
                wall_s=12.5,
            ),
            CaseResult(
                name="py-b", language="python", status="failed", reason="hidden tests: 1 failed"
            ),
            CaseResult(name="js-c", language="javascript", status="not_run", reason="no endpoint"),
            CaseResult(name="rs-d", language="rust", status="not_run", reason="no endpoint"),
        ],
        passed=1,
        run=2,
        total=CaseFigures(sessions=3, requests=9, issues_done=1),
    )
    text = markdown(report)
    assert "**1/2 (50%)** of the cases run; 2 not run" in text
    assert "| py-a | python | passed | 3 passed, 0 failed | 1 / 0 | 3 | 9 |" in text
    assert "- py-b: hidden tests: 1 failed" in text
    assert "- js-c, rs-d: no endpoint" in text
    md, js = write_report(report, tmp_path / "out" / "eval")
    assert md.read_text() == text
    assert json.loads(js.read_text())["cases"][0]["figures"]["requests"] == 9


async def test_scoring_runs_the_hidden_tests_on_a_copy(tmp_path: Path) -> None:
    case = load_case(CASES_DIR / "py-fizzbuzz")
    spec = lay_out(case, tmp_path, LOCAL_MODEL)
    assert spec.playbook == case.playbook and spec.auto_accept and spec.file_only_mode
    failing = await score(case, spec.project_dir)
    assert not failing.passed
    assert not (spec.project_dir / "hidden_tests").exists()  # the project never sees them
