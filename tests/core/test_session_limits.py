"""A session the harness ended at a limit: an end, told to the next attempt, never a failure."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

from agent.control.status_command import limit_lines
from agent.core.log import AgentLog
from agent.core.run.ledger import Ledger
from agent.core.run.run_state import StateStore
from agent.core.run.session_retries import Sessions
from agent.core.session import session_limits
from agent.core.session.result import SessionResult
from agent.core.session.session import SessionConfig
from agent.core.session.session_limits import SessionLimits
from agent.core.session.tools import SessionReports
from agent.sandbox.limits import REPORT_VARIABLE
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.budget import Budgets
from common.schemas.limits import MachineLimits

MEMORY = "the session went over its memory limit (256 MB): the harness ended it"
DISK = (
    "the session grew the work tree past its disk budget (8 MB beyond the project's size "
    "at the run's start): the harness ended it"
)


def test_each_session_gets_a_report_file_of_its_own_named_in_the_launchers_variable(
    tmp_path: Path,
) -> None:
    limits = SessionLimits(tmp_path)
    first, second = limits.report_file(), limits.report_file()

    assert first != second and first.parent == tmp_path and not first.exists()
    assert session_limits.launcher_env({"A": "1"}, first) == {"A": "1", REPORT_VARIABLE: str(first)}
    assert session_limits.launcher_env({"A": "1"}, None) == {"A": "1"}


async def test_a_limit_is_told_with_its_line_and_for_the_disk_what_takes_the_space(
    tmp_path: Path,
) -> None:
    tree = tmp_path / "tree"
    (tree / "data").mkdir(parents=True)
    old = tree / "old.bin"
    old.write_bytes(os.urandom(1 << 20))
    since = time.time_ns()
    (tree / "data" / "big\x1b[31m.bin").write_bytes(os.urandom(3 << 20))
    (tree / "small.txt").write_text("x")
    report = tmp_path / "limit-1"

    assert await session_limits.taken(report, tree, since) is None
    report.write_text(f"memory {MEMORY}\n")
    assert await session_limits.taken(report, tree, since) == MEMORY
    report.write_text(f"disk {DISK}\n")
    told = await session_limits.taken(report, tree, since)

    assert told is not None
    line, heading, *rows = told.splitlines()
    assert line == DISK
    assert heading.startswith("What takes the space (files changed since the run started")
    assert rows == ["- data/big\\x1b[31m.bin: 3.0 MB", "- small.txt: 4 KB"]
    assert not report.exists()


def test_the_next_session_hears_it_from_the_harness() -> None:
    assert session_limits.feedback(MEMORY) == (
        f"The harness ended the previous session at a limit: {MEMORY}"
    )


async def test_a_session_that_must_report_is_tried_again_and_told_the_limit(
    tmp_path: Path,
) -> None:
    prompts: list[str] = []

    async def runner(
        label: str,
        system: str,
        prompt: str,
        config: SessionConfig,
        reports: SessionReports,
        log: AgentLog,
    ) -> SessionResult:
        prompts.append(prompt)
        return SessionResult(
            turns=1, cost_usd=0.0, input_tokens=1, output_tokens=1, duration_ms=1, denials=0,
            touched=set(), limit=MEMORY if len(prompts) == 1 else None,
        )  # fmt: skip

    async def guard(where: str) -> None:
        return None

    text = io.StringIO()
    log = AgentLog(text)
    store = StateStore(WorkspaceFiles(tmp_path), AgentState(), log)
    sessions = Sessions(
        SessionConfig(project_dir=tmp_path, model=None),
        store,
        Ledger(store, log, Budgets()),
        log,
        runner=runner,
    )

    await sessions.run(
        "initializer",
        "initializer",
        work_tree=tmp_path,
        guard=guard,
        done=lambda _reports: len(prompts) == 2,
        spec="",
        section_list="",
        target_branch="",
    )

    first, second = prompts
    told = f"> The harness ended the previous session at a limit: {MEMORY}"
    assert told not in first and told in second
    assert "FEEDBACK ON THE PREVIOUS ATTEMPT (from the harness's own checks" in second
    assert "attempt 1 ended without its report" in text.getvalue()
    assert "again in" not in text.getvalue(), "no failure's wait: a limit is an end"
    assert store.state.spend.sessions == 2


def test_harness_status_says_what_holds_and_what_could_not_be_set() -> None:
    machine = MachineLimits(held=["memory 3072 MB (cgroup v1)"], not_set=["cpu: refused"])

    assert limit_lines(machine) == [
        "  limits:    memory 3072 MB (cgroup v1)",
        "  not set:   cpu: refused",
    ]
    assert limit_lines(None) == [
        "  limits:    not measured yet (the agent records them at its start)"
    ]
