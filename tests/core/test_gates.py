"""Quality gates: the harness reads exit codes and test ids, never the model's word."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from agent.core.gates.gates import (
    Baseline,
    blocking_failures,
    classify_baseline,
    failing_checks,
    fewer_passing,
    newly_failing,
    passed_count,
    run_tests,
    summarize,
)
from common.schemas.gates import TestRun

PYTEST_OUTPUT = """\
============================= test session starts ==============================
collected 4 items

tests/test_calc.py .F                                                    [ 50%]
tests/test_io.py .E                                                      [100%]

=========================== short test summary info ============================
FAILED tests/test_calc.py::test_divide - ZeroDivisionError: division by zero
ERROR tests/test_io.py::test_read - FileNotFoundError: data.txt
FAILED tests/test_calc.py::test_divide - ZeroDivisionError: division by zero
==================== 1 failed, 2 passed, 1 error in 0.12s =====================
"""


def run(exit_code: int, failed: list[str], summary: str = "1 failed") -> TestRun:
    return TestRun(
        command="pytest", exit_code=exit_code, duration_s=0.1, summary=summary, failed_tests=failed
    )


# --- summarize --------------------------------------------------------------------------


def test_summarize_reads_the_closing_line_and_the_failed_ids() -> None:
    result = summarize("python -m pytest", 1, PYTEST_OUTPUT, 0.12345)

    assert result.summary == "1 failed, 2 passed, 1 error in 0.12s"
    assert result.failed_tests == ["tests/test_calc.py::test_divide", "tests/test_io.py::test_read"]
    assert (result.command, result.exit_code, result.duration_s) == ("python -m pytest", 1, 0.123)
    assert not result.passed
    assert result.output_tail.endswith("1 failed, 2 passed, 1 error in 0.12s =====================")


def test_summarize_a_quiet_passing_run() -> None:
    result = summarize("pytest -q", 0, "....\n\n4 passed in 0.01s\n\n", 0.01)

    assert (result.summary, result.failed_tests, result.passed) == ("4 passed in 0.01s", [], True)


def test_summarize_empty_output_falls_back_to_the_exit_status() -> None:
    assert summarize("make test", 2, "  \n", 0.0).summary == "exit status 2"


def test_summarize_marks_a_timeout() -> None:
    result = summarize("pytest", 124, "collected 3 items\ntests/test_slow.py .", 900.0)

    assert result.summary == "timed out: tests/test_slow.py ."
    assert not result.passed


def test_summarize_keeps_only_the_last_forty_lines() -> None:
    output = "\n".join(f"line {n}" for n in range(100))

    tail = summarize("x", 1, output, 0.0).output_tail.splitlines()

    assert tail == [f"line {n}" for n in range(60, 100)]


def test_summarize_ignores_failed_mentions_that_are_not_at_a_line_start() -> None:
    result = summarize("x", 1, "log: FAILED tests/a.py::x\n  FAILED tests/b.py::y\n", 0.0)

    assert result.failed_tests == []


# --- newly_failing and blocking_failures --------------------------------------------------


CLEAN = run(0, [], summary="3 passed")


def test_a_passing_run_has_no_regressions() -> None:
    assert newly_failing(run(1, ["t.py::a"]), run(0, []), set()) == []


def test_tests_that_failed_before_are_not_regressions() -> None:
    after = run(1, ["tests/test_a.py::x", "tests/test_b.py::y"])

    assert newly_failing(run(1, ["tests/test_a.py::x"]), after, set()) == ["tests/test_b.py::y"]


def test_failures_in_files_the_session_touched_are_unfinished_work() -> None:
    after = run(1, ["tests/test_new.py::x", "tests/test_old.py::y", "tests/test_new.py::z"])

    assert newly_failing(CLEAN, after, {"tests/test_new.py", "src/app.py"}) == [
        "tests/test_old.py::y"
    ]


def test_a_failed_run_naming_no_test_after_a_clean_baseline_is_a_regression() -> None:
    after = run(2, [], summary="ERROR collecting tests/test_a.py")

    assert newly_failing(CLEAN, after, set()) == [
        "(the test run failed: ERROR collecting tests/test_a.py)"
    ]


def test_a_failed_run_naming_no_test_after_a_baseline_naming_none_tells_nothing() -> None:
    assert newly_failing(run(2, []), run(2, []), set()) == []
    assert blocking_failures(run(1, []), run(3, [])) == []


def test_a_failed_run_naming_no_test_after_a_baseline_naming_its_failures_blocks() -> None:
    """The model's conftest exits 3 before any test ran: the old failure is no excuse."""
    baseline = run(1, ["tests/test_old.py::broken"], summary="1 failed, 41 passed")
    after = run(3, [], summary="INTERNALERROR> SystemExit: 3")

    assert blocking_failures(baseline, after) == [
        "(the test run failed: INTERNALERROR> SystemExit: 3)"
    ]
    assert newly_failing(baseline, after, set()) == [
        "(the test run failed: INTERNALERROR> SystemExit: 3)"
    ]


def test_without_a_baseline_every_foreign_failure_counts() -> None:
    assert newly_failing(None, run(1, ["t.py::a"]), set()) == ["t.py::a"]


def test_pre_existing_failures_never_block_an_issue() -> None:
    baseline = run(1, ["tests/test_old.py::broken"])
    after = run(1, ["tests/test_old.py::broken"])

    assert blocking_failures(baseline, after) == []


def test_the_sessions_own_failing_tests_block_the_issue() -> None:
    after = run(1, ["tests/test_new.py::x"])

    assert blocking_failures(CLEAN, after) == ["tests/test_new.py::x"]
    assert newly_failing(CLEAN, after, {"tests/test_new.py"}) == []


# --- classify_baseline ------------------------------------------------------------------


def made(command: str, exit_code: int, output: str) -> TestRun:
    return summarize(command, exit_code, output, 0.1)


@pytest.mark.parametrize(
    ("command", "exit_code", "output", "reason"),
    [
        ("python3 -m pytest -q", 1, "/usr/bin/python3: No module named pytest", "pytest"),
        ("npm test", 127, "sh: 1: npm: not found", "not found"),
        ("cargo test", 127, "/bin/sh: cargo: command not found", "not found"),
        ("python -m pytest -q", 5, "no tests ran in 0.01s", "no tests were collected"),
        ("python -m pytest -q", 4, "ERROR: file or directory not found: x", "called wrongly"),
        (
            "python -m pytest -q",
            2,
            "E   ModuleNotFoundError: No module named 'requests'\n"
            "ERROR tests/test_api.py\n1 error in 0.1s",
            "requests",
        ),
        ("npm test --silent", 1, 'npm error Missing script: "test"', "Missing script"),
    ],
)
def test_a_runner_that_cannot_run_is_told_apart(
    command: str, exit_code: int, output: str, reason: str
) -> None:
    verdict = classify_baseline(made(command, exit_code, output))

    assert verdict.outcome == "cannot_run"
    assert reason in verdict.reason


def test_a_suite_with_failing_tests_runs_and_fails() -> None:
    verdict = classify_baseline(made("python -m pytest -q", 1, PYTEST_OUTPUT))

    assert verdict == Baseline("fails")


def test_a_failing_test_that_mentions_a_missing_module_still_runs() -> None:
    output = "FAILED tests/t.py::x - AssertionError: No module named 'x' in message\n1 failed"

    assert classify_baseline(made("python -m pytest -q", 1, output)).outcome == "fails"


def test_a_passing_suite_passes() -> None:
    assert classify_baseline(made("pytest", 0, "3 passed")).outcome == "passes"


# --- run_tests --------------------------------------------------------------------------


@pytest.fixture
def tiny_project(tmp_path: Path) -> Path:
    project = tmp_path / "tiny"
    (project / "tests").mkdir(parents=True)
    (project / "pytest.ini").write_text("[pytest]\n")
    (project / "tests" / "test_good.py").write_text("def test_adds():\n    assert 1 + 1 == 2\n")
    (project / "tests" / "test_bad.py").write_text(
        "def test_ok():\n    assert True\n\n\ndef test_broken():\n    assert 1 == 2\n"
    )
    return project


PYTEST = f"{shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"


async def test_run_tests_reports_the_real_exit_code_and_failed_ids(tiny_project: Path) -> None:
    result = await run_tests(tiny_project, PYTEST, timeout_s=60)

    assert result.exit_code == 1
    assert result.failed_tests == ["tests/test_bad.py::test_broken"]
    assert result.summary.startswith("1 failed, 2 passed")
    assert result.duration_s > 0
    assert not result.passed


async def test_run_tests_passes_when_every_test_passes(tiny_project: Path) -> None:
    (tiny_project / "tests" / "test_bad.py").unlink()

    result = await run_tests(tiny_project, PYTEST, timeout_s=60)

    assert (result.exit_code, result.failed_tests, result.passed) == (0, [], True)
    assert result.summary.startswith("1 passed")


async def test_run_tests_kills_a_run_that_takes_too_long(tiny_project: Path) -> None:
    result = await run_tests(tiny_project, "exec sleep 30", timeout_s=0.3)

    assert result.exit_code == 124
    assert result.summary == "timed out: exit status 124"
    assert not result.passed
    assert result.duration_s < 5


async def test_a_timed_out_run_does_not_wait_for_the_shells_children(tiny_project: Path) -> None:
    result = await run_tests(tiny_project, "sleep 1.5; echo never", timeout_s=0.2)

    assert result.exit_code == 124
    assert result.duration_s < 1.0, "run_tests waited for the test command's child to finish"


async def test_a_timed_out_run_keeps_what_it_printed(tiny_project: Path) -> None:
    result = await run_tests(tiny_project, "echo collected 3 items; exec sleep 30", timeout_s=0.5)

    assert result.exit_code == 124
    assert result.summary == "timed out: collected 3 items"


def _check(exit_code: int) -> TestRun:
    return TestRun(command="ruff check .", exit_code=exit_code, duration_s=0.1, summary="x")


def test_a_check_is_blamed_only_when_it_did_not_fail_before() -> None:
    baseline = {"lint": _check(0), "types": _check(1)}
    now = {"lint": _check(1), "types": _check(1), "vet": _check(1), "fmt": _check(0)}

    assert list(failing_checks(baseline, now)) == ["lint", "vet"]


# --- fewer_passing: the baseline's tests must still run -----------------------------------


def test_the_passed_count_is_read_from_pytests_closing_line() -> None:
    assert passed_count(summarize("pytest", 1, PYTEST_OUTPUT, 0.1)) == 2
    assert passed_count(run(0, [], summary="41 passed, 3 deselected in 0.5s")) == 41
    assert passed_count(run(0, [], summary="Ran 3 tests in 0.001s")) is None


def test_passing_tests_that_vanished_are_told() -> None:
    baseline = run(0, [], summary="42 passed in 1.0s")

    assert fewer_passing(baseline, run(0, [], summary="3 passed, 39 skipped in 0.2s")) == [
        "(at least 39 test(s) that passed before no longer run: 42 passed then, 3 now)"
    ]
    assert fewer_passing(baseline, run(0, [], summary="45 passed in 1.1s")) == []
    broken = run(1, ["t.py::a", "t.py::b"], summary="2 failed, 40 passed in 1.0s")
    assert fewer_passing(baseline, broken) == [], "named failures explain the drop"
    interrupted = run(2, ["tests/test_new.py"], summary="1 error in 0.1s")
    assert fewer_passing(baseline, interrupted) == [], "refused on its own failure already"
    old_failure = run(1, ["t.py::old"], summary="1 failed, 41 passed")
    only_old = run(1, ["t.py::old"], summary="1 failed in 0.1s")
    assert fewer_passing(old_failure, only_old) == [
        "(at least 41 test(s) that passed before no longer run: 41 passed then, 0 now)"
    ]
    assert fewer_passing(None, run(0, [], summary="3 passed")) == []
    assert fewer_passing(run(0, [], summary="ok"), run(0, [], summary="ok")) == []
    assert fewer_passing(baseline, run(0, [], summary="42 tests collected in 0.01s")) == [
        "(at least 42 test(s) that passed before no longer run: 42 passed then, 0 now)"
    ]


SKIPPING_CONFTEST = """\
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "test_old" in item.nodeid:
            item.add_marker(pytest.mark.skip(reason="slow"))
"""


async def test_a_conftest_that_skips_the_baseline_tests_is_a_regression(tmp_path: Path) -> None:
    """Exit 0 and no failure named: only the count tells the old tests stopped running."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_old.py").write_text("def test_a():\n    pass\n\n\ndef test_b():\n    pass\n")
    command = f"{shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider"
    baseline = await run_tests(tmp_path, command)
    (tests / "conftest.py").write_text(SKIPPING_CONFTEST)
    (tests / "test_new.py").write_text("def test_c():\n    pass\n")

    after = await run_tests(tmp_path, command)

    assert (baseline.exit_code, after.exit_code) == (0, 0)
    assert blocking_failures(baseline, after) == []
    assert newly_failing(baseline, after, set()) == []
    assert fewer_passing(baseline, after) == [
        "(at least 1 test(s) that passed before no longer run: 2 passed then, 1 now)"
    ]
