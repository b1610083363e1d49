"""Sessions in a given work tree: the session, its prompt and the guard see that tree."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from pathlib import Path

from agent.core.log import AgentLog
from agent.core.run.ledger import Ledger
from agent.core.run.run_state import StateStore
from agent.core.run.session_retries import Sessions
from agent.core.session.result import SessionResult
from agent.core.session.session import SessionConfig
from agent.core.session.tools import SessionReports
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.budget import Budgets


async def test_a_session_runs_in_the_work_tree_it_is_given(tmp_path: Path) -> None:
    main, slot = tmp_path / "main", tmp_path / "slot-2"
    seen: list[tuple[Path, str]] = []
    guarded: list[str] = []

    async def runner(
        label: str,
        system: str,
        prompt: str,
        config: SessionConfig,
        reports: SessionReports,
        log: AgentLog,
    ) -> SessionResult:
        seen.append((config.project_dir, prompt))
        return SessionResult(
            turns=1, cost_usd=0.5, input_tokens=1, output_tokens=1, duration_ms=1, denials=0,
            touched=set(),
        )  # fmt: skip

    async def guard(where: str) -> None:
        guarded.append(where)

    log = AgentLog(io.StringIO())
    store = StateStore(WorkspaceFiles(tmp_path), AgentState(), log)
    ledger = Ledger(store, log, Budgets(cost_usd=2.0))
    config = SessionConfig(project_dir=main, model=None)
    sessions = Sessions(config, store, ledger, log, runner=runner)

    await sessions.run(
        "coding #2",
        "initializer",
        work_tree=slot,
        guard=guard,
        spec="",
        section_list="",
        target_branch="",
    )
    await sessions.run(
        "coding #1",
        "initializer",
        work_tree=main,
        guard=guard,
        spec="",
        section_list="",
        target_branch="",
    )
    assert [where for where, _prompt in seen] == [slot, main]
    assert str(slot) in seen[0][1] and str(slot) not in seen[1][1]
    assert guarded == [
        "before session coding #2",
        "after session coding #2",
        "before session coding #1",
        "after session coding #1",
    ]
    assert sessions.config_for(main) is config and sessions.config_for(slot).project_dir == slot
    assert store.state.spend.sessions == 2 and store.state.spend.cost_usd == 1.0


async def test_a_session_runs_inside_its_kinds_host_scope(tmp_path: Path) -> None:
    """The hosts of a kind's MCP servers are reachable while its session runs, not after."""
    scopes: list[str] = []

    @contextlib.contextmanager
    def scope(kind: str) -> Iterator[None]:
        scopes.append(f"enter {kind}")
        yield
        scopes.append(f"leave {kind}")

    async def runner(
        label: str,
        system: str,
        prompt: str,
        config: SessionConfig,
        reports: SessionReports,
        log: AgentLog,
    ) -> SessionResult:
        scopes.append("session")
        return SessionResult(
            turns=1, cost_usd=0.0, input_tokens=1, output_tokens=1, duration_ms=1, denials=0,
            touched=set(),
        )  # fmt: skip

    async def guard(where: str) -> None:
        scopes.append("guard")

    log = AgentLog(io.StringIO())
    store = StateStore(WorkspaceFiles(tmp_path), AgentState(), log)
    ledger = Ledger(store, log, Budgets(cost_usd=2.0))
    config = SessionConfig(project_dir=tmp_path, model=None, host_scope=scope)
    sessions = Sessions(config, store, ledger, log, runner=runner)
    await sessions.run(
        "initializer", "initializer", work_tree=tmp_path, guard=guard, spec="", section_list="",
        target_branch="",
    )  # fmt: skip
    assert scopes == ["guard", "enter initializer", "session", "leave initializer", "guard"]


async def test_what_a_session_leaves_for_git_to_wait_on_is_removed_before_the_guard(
    tmp_path: Path,
) -> None:
    """A session that made ``.gitignore`` a FIFO: before the guard (and any git after the
    session) runs, it is gone, with a line; a FIFO of another name stays for the closure."""
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    seen_at_guard: list[bool] = []

    async def runner(
        label: str,
        system: str,
        prompt: str,
        config: SessionConfig,
        reports: SessionReports,
        log: AgentLog,
    ) -> SessionResult:
        os.mkfifo(tree / "sub" / ".gitignore")
        os.mkfifo(tree / "pipe")
        return SessionResult(
            turns=1, cost_usd=0.0, input_tokens=1, output_tokens=1, duration_ms=1, denials=0,
            touched=set(),
        )  # fmt: skip

    async def guard(where: str) -> None:
        seen_at_guard.append((tree / "sub" / ".gitignore").exists())

    stream = io.StringIO()
    log = AgentLog(stream)
    store = StateStore(WorkspaceFiles(tmp_path), AgentState(), log)
    sessions = Sessions(
        SessionConfig(project_dir=tree, model=None), store, Ledger(store, log, Budgets()), log,
        runner=runner,
    )  # fmt: skip

    await sessions.run(
        "coding #1", "initializer", work_tree=tree, guard=guard, spec="", section_list="",
        target_branch="",
    )  # fmt: skip

    assert seen_at_guard == [False, False]
    assert "removed sub/.gitignore (a FIFO): git reads a file of that name" in stream.getvalue()
    assert (tree / "pipe").exists()
