"""The coding stage's browser: what the prompt says, and the screenshots taken after a session.

Only when the agent's sessions have the browser (:attr:`SessionConfig.browser`: a spec
with ``web`` and without ``skip_puppeteer``, and a browser that could be installed).
The screenshots are the harness's evidence for the person at issue_closure; whether an
issue is done stays the gates' and the person's judgement, never the pictures'.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent.core.browser.replay import replay
from agent.core.browser.screenshots import collect, empty, png_size
from agent.core.git import agit
from agent.core.run.orchestrator import Run
from agent.core.trace import trace
from common.schemas.browser_check import BrowserCheck
from common.schemas.issue_work import IssueWork
from common.workspace import git

SCREENSHOTS_DIR = "screenshots"
"""The workspace folder the screenshots are taken into (one file per screenshot)."""


def prompt_block(run: Run) -> str:
    """The coding prompt's browser paragraph, or nothing when the session has no browser."""
    browser = run.sessions.config.browser
    return browser.prompt_block() if browser is not None else ""


async def clear_output(run: Run, work_tree: Path) -> None:
    """Empty the browser's output folder of a session in ``work_tree`` before it starts:
    what a session that failed left there is never taken as the next one's screenshots."""
    browser = run.sessions.config.browser
    if browser is not None:
        await agit.off_loop(empty, browser.output_in(work_tree))


async def take_screenshots(run: Run, iid: int, session: int, work_tree: Path) -> list[str]:
    """Take the session's screenshots into the workspace (``issue-IID-sN-K.png``), trace
    each and log what was left out; returns their paths (none without a browser)."""
    browser = run.sessions.config.browser
    if browser is None:
        return []
    destination = run.files.root / SCREENSHOTS_DIR
    output = browser.output_in(work_tree)
    found = await agit.off_loop(collect, output, destination, f"issue-{iid}-s{session}")
    for why in found.skipped:
        run.log(f"browser output of issue #{iid}: left out {why}")
    paths: list[str] = []
    for path in found.saved:
        size = png_size(path.read_bytes()[:24]) or (0, 0)
        trace.screenshot(iid, str(path), *size)
        paths.append(str(path))
    if paths:
        run.log(f"issue #{iid}: {len(paths)} browser screenshot(s) taken into {destination}")
    return paths


def keep_check(run: Run, work: IssueWork) -> None:
    """Keep the closed issue's browser check for the replay before the merge request
    (once per issue: a resumed closure does not add it twice)."""
    if not work.browser_calls or any(c.issue == work.iid for c in run.state.browser_checks):
        return
    with run.store.editing() as state:
        check = BrowserCheck(issue=work.iid, calls=work.browser_calls)
        state.browser_checks = [*state.browser_checks, check]


async def regressions(run: Run) -> list[str]:
    """The earlier issues' browser checks run again (:mod:`agent.core.browser.replay`):
    each failure is a regression finding; none without a browser or a recorded check."""
    browser = run.sessions.config.browser
    checks = run.state.browser_checks
    if browser is None or not checks:
        return []
    project = run.work_tree
    env = run.gates.project_env.gate_environ(os.environ)
    tree = await agit.off_loop(git.worktree_fingerprint, project)

    async def gate(folder: Path | None) -> list[str]:
        return await replay(checks, browser, project, env, run.gates.command_wrap, folder)

    found, writes = await run.gates.guarded(project, tree, gate, "browser checks")
    if writes.changed:  # the replay's app changed the tree it was judging: a person sees it
        found.append(f"(browser checks: the replay changed the work tree: {writes.changed[0]})")
    calls = sum(len(check.calls) for check in checks)
    if found:
        run.log(f"browser checks: {len(found)} of {len(checks)} issue(s) fail again")
    else:
        run.log(f"browser checks: {calls} call(s) of {len(checks)} issue(s) pass again")
    return found
