"""The checkpoint desk: how the run asks a person and gets a decision it can trust.

Apart from the phases so that the protocol (open or find the checkpoint, auto-accept
only when a client signed the switch, wait for a decision signed with the key, count
a forgery, pause on "stop here") is one piece, and so that it is serialised: several
slots may each ask, and an :class:`asyncio.Lock` keeps one checkpoint pending at a
time (the workspace has one checkpoint file, the person one question before them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from agent.core.log import AgentLog
from agent.core.policy import audit
from agent.core.run import patience, slot_plan
from agent.core.run.decision_record import DecisionRecorder
from agent.core.run.run_state import StateStore
from agent.core.run.webhook import Event, Webhook, body
from agent.core.trace import trace
from agent.core.words.secrecy import Secrecy
from common import decision_mac
from common.errors import HarnessError
from common.paths import WorkspaceFiles
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.schemas.notify import CheckpointTimeout
from common.schemas.workspace import WorkspaceInfo
from common.workspace import checkpoints
from common.workspace.decisions import default_decision, waits_for_person
from common.workspace.rejecting import model_reads_reason
from common.workspace.render import render_checkpoint
from common.workspace.setup import load_info

CheckpointBuilder = Callable[[str], Awaitable[Checkpoint]]
"""Builds the checkpoint to ask, given its id."""


class StopRun(HarnessError):
    """The human paused the run (a reject that means "not now"); a restart resumes."""


@dataclass
class Desk:
    """Opens checkpoints one at a time and hands back their signed decisions."""

    files: WorkspaceFiles
    store: StateStore
    log: AgentLog
    decision_key: bytes = field(repr=False)
    """Read once at agent start and held in memory: only client-signed decisions count."""
    secrecy: Secrecy | None = None
    """Redacts checkpoints before they are written (``None``: nothing to hide)."""
    auto_accept_floor: int = 0
    """The newest auto-accept setting seen; an older one put back is a forgery."""
    timeout: CheckpointTimeout | None = None
    """Reminders and what a checkpoint nobody answers comes to (``None``: it waits)."""
    webhook: Webhook | None = None
    """Told of each waiting checkpoint, reminder and timeout (``None``: the log only)."""
    recorder: DecisionRecorder | None = None
    """Writes each decision on the tracker once it is logged (``None``: the log only)."""
    feedback_note: str | None = None
    """Said after a rejection whose reason a session reads, when the model will not act
    on it (the embedded model plays a fixed playbook); ``None``: the model reads it."""
    _turn: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    async def ask(
        self,
        kind: CheckpointType,
        build: CheckpointBuilder,
        *,
        issue: int | None = None,
        pick: int | None = None,
    ) -> Checkpoint:
        """Open a checkpoint (or find the one a killed agent left) and return it decided.

        The id is derived from the state, so a resumed agent recognises its own
        pending or decided-but-unapplied checkpoint instead of building a new one.
        Auto-accept is read from the workspace at every checkpoint. Asks wait their
        turn: only one checkpoint is open at a time. ``issue``: the checkpoint is about
        that issue's slot (parallel work), and its id says so; ``pick``: the choice of
        an issue for the ``pick``-th slot opened (:func:`agent.core.run.slot_plan.checkpoint_id`).
        """
        async with self._turn:
            return await self._ask(kind, build, issue, pick)

    async def _ask(
        self, kind: CheckpointType, build: CheckpointBuilder, issue: int | None, pick: int | None
    ) -> Checkpoint:
        state = self.store.state
        slot = state.work(issue).slot if issue is not None else None
        moves = slot.moves if slot is not None else 0
        checkpoint_id = slot_plan.checkpoint_id(kind.value, len(state.history), issue, moves, pick)
        found = checkpoints.current(self.files)
        if (issue, pick) != (None, None) and (found is None or found.id != checkpoint_id):
            found = self._logged(checkpoint_id) or found
        if (
            found is not None
            and found.id == checkpoint_id
            and checkpoint_id not in state.dismissed_checkpoints
        ):
            checkpoint = self._resumed(found)
        else:
            checkpoint = await self._opened(await build(checkpoint_id))
        if checkpoint.status == "pending":
            self.log(f"waiting for a decision on {checkpoint.id}")
            checkpoint = await self._waited(checkpoint)
        checkpoints.record(self.files, checkpoint)
        if self.recorder is not None:
            await self.recorder.catch_up()
        trace.decision(checkpoint)
        decision = checkpoint.decision
        assert decision is not None
        verdict = "approved" if decision.approved else "rejected"
        why = f": {decision.reason}" if decision.reason else ""
        rule = f" (rule {decision.rule})" if decision.rule else ""
        self.log(f"checkpoint {checkpoint.id} {verdict} by {decision.decided_by}{rule}{why}")
        read = model_reads_reason(checkpoint.type)
        if self.feedback_note and read and not decision.approved and decision.reason:
            self.log(self.feedback_note)
        return checkpoint

    async def _waited(self, shown: Checkpoint) -> Checkpoint:
        """``shown`` decided by a client, or by its timeout (``checkpoint_timeout``).

        Raises:
            StopRun: nobody answered in time and the timeout stops the agent (``then:
                stop``, or a checkpoint that always asks a person); it stays pending, so
                ``harness resume`` asks it again and its clock starts again.
        """
        self._announce("checkpoint_waiting", shown, 0.0)
        decided = asyncio.ensure_future(
            checkpoints.wait_for_signed_decision(self.files, shown, self.decision_key, self.forgery)
        )
        try:
            if self.timeout is None:
                return await decided
            found = await patience.wait_patiently(
                decided, self.timeout, lambda waited: self._remind(shown, waited)
            )
            return found if found is not None else await self._timed_out(shown, decided)
        finally:
            decided.cancel()

    def _remind(self, shown: Checkpoint, waited_s: float) -> None:
        """Announce ``shown`` again: the log line the TUI marks ⚑, and the webhook."""
        self.log(f"waiting for a decision on {shown.id} for {waited_s / 60:.1f} min (reminder)")
        self._announce("checkpoint_reminder", shown, waited_s)

    async def _timed_out(
        self, shown: Checkpoint, decided: asyncio.Future[Checkpoint]
    ) -> Checkpoint:
        """Nobody answered in time: decide with the default, signed like auto-accept's,
        unless a person's answer got there first (one decision either way), or stop."""
        timeout = self.timeout
        assert timeout is not None
        waited = timeout.minutes * 60
        self._announce("checkpoint_timeout", shown, waited)
        for_person = waits_for_person(shown)
        if patience.outcome(timeout, for_person) == "stop":
            reason = patience.stop_reason(timeout, shown, for_person)
            self.log(reason)
            raise StopRun(reason)
        decision = default_decision(shown, "timeout").model_copy(
            update={"rule": patience.rule(timeout)}
        )
        if not checkpoints.decide_pending(self.files, shown, decision, self.decision_key):
            self.log(f"{shown.id} was answered as its timeout fell: the answer stands")
        return await decided

    def _announce(self, event: Event, shown: Checkpoint, waited_s: float) -> None:
        if self.webhook is not None:
            link = self.webhook.link()
            self.webhook.send(body(event, self.webhook.agent, shown, waited_s=waited_s, link=link))

    def _logged(self, checkpoint_id: str) -> Checkpoint | None:
        """A slot's checkpoint decided before a kill, its effect not yet applied, whose
        file another slot's checkpoint has taken since: its decision is in the log.

        Only a slot's (or a free slot's choice): its ids never repeat (each applied
        decision moves the slot or ends it; each choice counts a slot opened), so a
        logged one with the id asked is this very question.
        """
        logged = checkpoints.history(self.files)
        return next((entry for entry in reversed(logged) if entry.id == checkpoint_id), None)

    def _resumed(self, found: Checkpoint) -> Checkpoint:
        """The checkpoint a killed agent left; a decision no client signed is undone."""
        self.log(f"resuming checkpoint {found.id} ({found.status})")
        if found.status != "decided":
            return found
        shown = found.model_copy(update={"status": "pending", "decision": None})
        problem = decision_mac.decision_problem(self.decision_key, self.files.root, shown, found)
        if problem is None:
            return found
        self.forgery(problem)
        checkpoints.write(self.files, shown)
        return shown

    async def _opened(self, checkpoint: Checkpoint) -> Checkpoint:
        """Write a new checkpoint, decided at once when the rules a client signed approve
        its type and nothing in it waits for a person (the decision names the rule)."""
        if self.secrecy is not None:
            checkpoint = self.secrecy.checkpoint(checkpoint)
        answer, rule = self.rules_in_force(load_info(self.files.root)).for_type(checkpoint.type)
        for_person = waits_for_person(checkpoint) if answer == "approve" else []
        if for_person:
            self.log(
                f"auto-accept never approves {checkpoint.id} ({rule} aside): it waits for "
                f"a person: {'; '.join(for_person)}"
            )
        elif answer == "approve":
            decision = default_decision(checkpoint, "auto-accept").model_copy(update={"rule": rule})
            checkpoint = checkpoints.signed(
                self.decision_key, self.files, checkpoints.decided(checkpoint, decision)
            )
        checkpoints.write(self.files, checkpoint)
        self.log.block(render_checkpoint(checkpoint))
        trace.checkpoint(checkpoint)
        return checkpoint

    def forgery(self, detail: str) -> None:
        """Log and count a decision or switch that no client made; it is ignored."""
        self.log(f"forgery attempt: {detail}; ignored")
        audit.record_forgery(self.files, detail, log=lambda _line: None)  # logged above

    def rules_in_force(self, info: WorkspaceInfo) -> AutoAcceptRules:
        """The auto-accept rules a client set in ``info`` (the workspace's, as read now);
        rules without a valid MAC, or an older setting put back, ask for everything."""
        rules = info.auto_accept
        valid = decision_mac.auto_accept_valid(
            self.decision_key,
            self.files.root,
            rules,
            info.auto_accept_serial,
            info.auto_accept_mac,
        )
        if not valid:
            if rules.approves_any or info.auto_accept_mac is not None:
                self.forgery(f"auto-accept set to {rules.compact()} without a valid MAC")
            return AutoAcceptRules.off()
        if info.auto_accept_serial < self.auto_accept_floor:
            self.forgery(
                f"an older auto-accept setting (#{info.auto_accept_serial}) was put back "
                f"over #{self.auto_accept_floor}"
            )
            return AutoAcceptRules.off()
        self.auto_accept_floor = info.auto_accept_serial
        return rules

    def pause(self, checkpoint: Checkpoint) -> StopRun:
        """Remember that ``checkpoint`` was answered "stop here" and build the stop."""
        with self.store.editing() as state:
            state.dismissed_checkpoints.append(checkpoint.id)
        decision = checkpoint.decision
        who = decision.decided_by if decision is not None else "?"
        why = f": {decision.reason}" if decision is not None and decision.reason else ""
        return StopRun(
            f"paused at {checkpoint.type.value} by {who}{why}; `harness resume` continues"
        )
