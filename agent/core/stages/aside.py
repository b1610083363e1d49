"""Setting an issue aside for a person, and the spend lines of notes and the MR.

Why: one issue the model cannot finish must not sink the run. After its session
budget the issue gets a note with the last gate output and the ``needs-human`` label,
its unaccepted ``wip`` commits are reverted (the branch keeps only accepted work; the
note names the commits so a person can take them back), and the run goes on.

The note is the harness's, but the feedback it repeats quotes the model's claim, and the
gate's output is what the model's code printed: both go into fenced blocks no line of
them can close, commands and summaries into code spans (:mod:`common.inert_markdown`),
so nothing in them mentions, links, loads an image or adds a section of its own.
"""

from __future__ import annotations

from pathlib import Path

from agent.core.git import agit
from agent.core.issue.seat import Seat
from agent.core.run.orchestrator import Run
from common.inert_markdown import fenced, quoted
from common.schemas.issues import SET_ASIDE_LABEL as SET_ASIDE_LABEL
from common.schemas.spend import Spend
from common.workspace import git

OUTPUT_LINES = 20


async def set_aside(run: Run, iid: int, why: str, seat: Seat | None = None) -> None:
    """Leave issue ``iid`` for a person and move on to the next issue.

    ``seat``: where it is worked (default: alone, in the project). In a slot its
    commits are on its own branch, never merged: that branch keeps them for a person."""
    state = run.state
    seat = seat or Seat(run)
    work = seat.work()
    project = seat.work_tree
    reverted = await agit.off_loop(_revert, project, iid, work.commits)
    if reverted:
        run.log(f"reverted issue #{iid}'s commits {', '.join(reverted)}")
    last = work.tests
    lines = [f"## Set aside for a person\n{why}."]
    if work.gate_refusals or work.feedback:
        lines.append(
            "\n### Why the harness did not accept it\nThe harness's feedback to the next "
            "session, as it was sent (it quotes the model's claim and its tests' output):\n"
            + fenced(work.feedback or "")
        )
    if last is not None:
        tail = "\n".join(last.output_tail.splitlines()[-OUTPUT_LINES:])
        lines.append(
            f"\n### Last gate run\n{quoted(last.command)} → {quoted(last.summary)}\n" + fenced(tail)
        )
    for name, check in state.last_checks.items():
        if not check.passed:
            lines.append(
                f"\n### Check {quoted(name)}\n{quoted(check.command)} → {quoted(check.summary)}"
            )
    if reverted:
        revert = await agit.head_commit(project)
        lines.append(
            f"\n### Work kept in history\nThe issue's commits {', '.join(reverted)} were "
            f"reverted by {revert[:12]}; `git cherry-pick` takes them back."
        )
    lines.append(f"\n### Spend\n{spend_of(run, iid).line()}")
    await run.tracker.add_note(iid, "comment", "\n".join(lines))
    await run.tracker.update_issue(
        iid, add_labels=(SET_ASIDE_LABEL,), remove_labels=("in-progress",)
    )
    run.log(f"issue #{iid} set aside ({SET_ASIDE_LABEL}): {why}")
    seat.leave(f"issue #{iid} set aside", set_aside=True)


def _revert(project: Path, iid: int, shas: list[str]) -> list[str]:
    """Revert the issue's commits (newest first) in one commit; return their short SHAs
    (git only: it runs off the event loop)."""
    if not shas:
        return []
    git.git(project, "revert", "--no-commit", *reversed(shas))
    short = [sha[:12] for sha in shas]
    identity: list[str] = []
    if not git.git(project, "config", "user.email", check=False):
        identity = ["-c", "user.name=coding-harness", "-c", "user.email=harness@localhost"]
    git.git(
        project,
        *identity,
        "commit",
        "--quiet",
        "--no-verify",
        "--allow-empty",
        "-m",
        f"revert(#{iid}): set aside, unaccepted work reverted\n\nReverts: {', '.join(short)}",
    )
    return short


def spend_of(run: Run, iid: int) -> Spend:
    """What issue ``iid``'s sessions have cost so far."""
    return run.state.issue_spend.get(iid, Spend())


def cost_section(run: Run) -> str:
    """The MR description's cost table: per issue and in total."""
    rows = [
        f"| #{iid} | {s.sessions} | {s.tokens_in} | {s.tokens_out} | "
        f"{s.cache_read} / {s.cache_creation} | ${s.cost_usd:.4f} |"
        for iid, s in sorted(run.state.issue_spend.items())
    ]
    total = run.state.spend
    rows.append(
        f"| total | {total.sessions} | {total.tokens_in} | {total.tokens_out} | "
        f"{total.cache_read} / {total.cache_creation} | ${total.cost_usd:.4f} |"
    )
    header = (
        "| issue | sessions | tokens in | tokens out | cache read / write | cost |\n"
        "|---|---|---|---|---|---|\n"
    )
    return "## Cost\n" + header + "\n".join(rows) + "\n"
