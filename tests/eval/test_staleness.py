"""The committed eval report is stale when a run decides otherwise: a case's status, its
hidden tests, issues, sessions or requests; never for its wall time, tokens or date."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agent.eval.staleness import differences
from common.atomic import read_model, write_model
from common.schemas.eval_report import CaseFigures, CaseResult, EvalReport

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "docs" / "eval-embedded.json"


def report(*cases: CaseResult) -> EvalReport:
    return EvalReport(model="embedded", cases=list(cases))


def case(name: str, **changes: object) -> CaseResult:
    base = CaseResult(
        name=name,
        language="python",
        status="passed",
        agent_outcome="done",
        hidden_passed=3,
        hidden_failed=0,
        figures=CaseFigures(issues_done=1, sessions=3, requests=9, input_tokens=31572),
        wall_s=7.3,
    )
    return base.model_copy(update=changes)


def test_what_varies_from_run_to_run_is_no_staleness() -> None:
    again = case(
        "py-fizzbuzz",
        wall_s=5.0,
        figures=CaseFigures(issues_done=1, sessions=3, requests=9, input_tokens=31000),
    )
    skipped = CaseResult(name="go-reverse", language="go", status="not_run", reason="no key")
    other_reason = skipped.model_copy(update={"reason": "--embedded-only"})

    assert differences(report(case("py-fizzbuzz"), skipped), report(again, other_reason)) == []


def test_what_a_run_decides_makes_it_stale() -> None:
    committed = report(case("py-fizzbuzz"), case("py-roman"))
    fresh = report(
        case("py-fizzbuzz", status="failed", hidden_passed=2, hidden_failed=1),
        case("py-stack"),
    )

    assert differences(committed, fresh) == [
        "py-stack: not in the committed report",
        "py-roman: no longer a case",
        "py-fizzbuzz: status passed in the committed report, failed now",
        "py-fizzbuzz: hidden passed 3 in the committed report, 2 now",
        "py-fizzbuzz: hidden failed 0 in the committed report, 1 now",
    ]


def test_the_command_says_stale_or_current_in_lines(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.json"
    write_model(fresh, read_model(COMMITTED, EvalReport))

    def compare() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agent.eval.staleness", str(COMMITTED), str(fresh)],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    current = compare()
    assert (current.returncode, current.stdout) == (0, f"{COMMITTED} is current\n")
    changed = read_model(COMMITTED, EvalReport)
    ran = next(i for i, c in enumerate(changed.cases) if c.status == "passed")
    changed.cases[ran] = changed.cases[ran].model_copy(update={"hidden_failed": 1})
    write_model(fresh, changed)
    stale = compare()
    assert stale.returncode == 1
    assert stale.stdout.splitlines()[-1].startswith(f"{COMMITTED} is stale (1 difference(s))")
