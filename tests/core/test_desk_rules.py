"""The desk under auto-accept rules: which checkpoints are decided at once, with which
rule, and which always wait for a person (a regression, a reached budget, a changed
sandbox plan, a flagged change) whatever the rules say.

A real run's desk on a workspace; the rules set by the client code (signed), the
waiting checkpoints answered by the real CLI code as a person would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.core.run.orchestrator import Run
from common.schemas.auto_accept import parse_rules
from common.schemas.checkpoint import Checkpoint, ProjectVerificationCheckpoint
from common.schemas.mcp_server import McpServer
from common.schemas.outbound import FlaggedFile
from common.workspace import answer, checkpoints
from common.workspace.decisions import waits_for_person
from common.workspace.render import render_checkpoint
from common.workspace.setup import set_auto_accept
from tests.core import checkpoint_samples as samples
from tests.core.runs import logged, make_run
from tests.core.test_desk import until

Sample = Callable[[str], Checkpoint]


def sandbox_plan_changed(checkpoint_id: str = "pv-2") -> Checkpoint:
    """The integrity guard's checkpoint for a venv that now asks for other folders."""
    found = samples.project_verification(checkpoint_id)
    assert isinstance(found, ProjectVerificationCheckpoint)
    changes = ["+ read-only /opt/elsewhere"]
    context = found.context.model_copy(update={"warnings": changes, "sandbox_changes": changes})
    return found.model_copy(update={"context": context})


def repository_widens_the_sandbox(checkpoint_id: str = "pv-3") -> Checkpoint:
    """project_verification of a repository whose ``.harness.json`` asks for a host and an
    MCP server (a file the model could have written in an earlier run)."""
    found = samples.project_verification(checkpoint_id)
    assert isinstance(found, ProjectVerificationCheckpoint)
    server = McpServer(name="notes", command=["python3", "notes.py"], hosts=("pypi.org:443",))
    context = found.context.model_copy(
        update={"sandbox_hosts": ["files.pythonhosted.org:443"], "mcp_servers": [server]}
    )
    return found.model_copy(update={"context": context})


def flagged_closure(checkpoint_id: str = "ic-2") -> Checkpoint:
    found = samples.closure(checkpoint_id)
    flagged = FlaggedFile(path=".gitlab-ci.yml", findings=[])
    context = found.context.model_copy(update={"flagged": [flagged]})
    return found.model_copy(update={"context": context})


def gate_changed_closure(checkpoint_id: str = "ic-3") -> Checkpoint:
    """A closure whose gates changed the tree they ran on (issue 26): never a rule's."""
    found = samples.closure(checkpoint_id)
    line = "the tests gate changed the tested tree (not committed): calc/core.py: modified"
    context = found.context.model_copy(update={"gate_findings": [line]})
    return found.model_copy(update={"context": context})


async def ask(run: Run, sample: Sample) -> asyncio.Task[Checkpoint]:
    probe = sample("probe")

    async def build(checkpoint_id: str) -> Checkpoint:
        return sample(checkpoint_id)

    return asyncio.create_task(run.desk.ask(probe.type, build))


@pytest.mark.parametrize(
    ("rules", "sample", "rule"),
    [
        ("on", samples.mr_transition, "auto-accept: default=approve"),
        ("on,issue_closure=ask", samples.mr_review, "auto-accept: default=approve"),
        ("mr_review=approve", samples.mr_review, "auto-accept: mr_review=approve"),
        ("on", samples.project_verification, "auto-accept: default=approve"),
    ],
)
async def test_a_type_the_rules_approve_is_decided_at_once_naming_the_rule(
    tmp_path: Path, rules: str, sample: Sample, rule: str
) -> None:
    run = make_run(tmp_path)
    set_auto_accept(run.files.root, parse_rules(rules))

    decided = await asyncio.wait_for(await ask(run, sample), 10)

    decision = decided.decision
    assert decision is not None and decision.approved
    assert (decision.decided_by, decision.rule) == ("auto-accept", rule)
    assert f"approved by auto-accept (rule {rule})" in logged(run)
    assert checkpoints.history(run.files)[-1].decision == decision  # the log keeps the rule
    assert f"DECISION: APPROVED by auto-accept ({rule})" in render_checkpoint(decided)


@pytest.mark.parametrize(
    ("rules", "sample"),
    [
        ("on,issue_closure=ask", samples.closure),
        ("default=approve,mr_review=ask", samples.mr_review),
        ("off", samples.mr_transition),
        ("issue_closure=approve", samples.mr_transition),
    ],
)
async def test_a_type_the_rules_ask_waits_for_a_person(
    tmp_path: Path, rules: str, sample: Sample
) -> None:
    run = make_run(tmp_path)
    set_auto_accept(run.files.root, parse_rules(rules))
    asking = await ask(run, sample)
    await until(lambda: checkpoints.pending(run.files) is not None)
    await asyncio.sleep(0.2)
    assert not asking.done()

    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    decided = await asyncio.wait_for(asking, 10)
    assert decided.decision is not None and decided.decision.decided_by.startswith("cli:")
    assert decided.decision.rule is None


@pytest.mark.parametrize(
    ("sample", "why", "choice"),
    [
        (samples.regression, "a regression: 1 test(s) that passed before fail now", "defer"),
        (samples.budget, "a budget reached: cost: $1.2500 of $1.0000", "stop"),
        (sandbox_plan_changed, "a changed sandbox plan", None),
        (repository_widens_the_sandbox, ".harness.json asks for hosts the sandbox", None),
        (flagged_closure, "flagged: .gitlab-ci.yml", "approve=*"),
        (gate_changed_closure, "the gates' tree: the tests gate changed the tested tree", None),
    ],
)
async def test_some_checkpoints_always_ask_whatever_the_rules_say(
    tmp_path: Path, sample: Sample, why: str, choice: str | None
) -> None:
    run = make_run(tmp_path)
    set_auto_accept(run.files.root, True)
    asking = await ask(run, sample)
    await until(lambda: checkpoints.pending(run.files) is not None)
    assert why in waits_for_person(sample("x"))[0]
    shown = logged(run)
    assert "auto-accept never approves" in shown and "it waits for a person: " + why in shown
    assert not asking.done()

    await asyncio.to_thread(answer.approve, run.files.root, choice, None)
    decided = await asyncio.wait_for(asking, 10)
    assert decided.decision is not None and decided.decision.decided_by.startswith("cli:")


@pytest.mark.parametrize(
    "sample",
    [
        samples.project_verification,
        samples.mr_review,
        samples.closure,
        samples.selection,
        samples.enrichment,
        samples.mr_transition,
        samples.spec_to_issues,
        samples.scope,
    ],
)
def test_the_routine_checkpoints_may_be_answered_by_a_rule(sample: Sample) -> None:
    assert waits_for_person(sample("x")) == []


def test_what_the_repository_asks_of_the_sandbox_is_shown_to_the_person() -> None:
    shown = render_checkpoint(repository_widens_the_sandbox())
    assert (
        ".harness.json:  MCP server notes runs `python3 notes.py` in the sandbox, for coding "
        "sessions; while they run, the sandbox may reach pypi.org:443"
    ) in shown
    assert ".harness.json:  the sandbox may reach files.pythonhosted.org:443" in shown


def test_what_a_gate_changed_is_shown_to_the_person_escaped() -> None:
    found = samples.closure("ic-4")
    context = found.context.model_copy(
        update={
            "gate_findings": ["the tests gate changed the tested tree: n\x1b[2Jotes.txt: deleted"],
            "gate_ignored": ["build/: 3 file(s)"],
        }
    )

    shown = render_checkpoint(found.model_copy(update={"context": context}))

    assert (
        "⚠ The gates' tree (a person decides): the tests gate changed the tested tree: "
        "n\\x1b[2Jotes.txt: deleted"
    ) in shown
    assert "Written by a gate, ignored by the project: build/: 3 file(s)" in shown
