"""The pending book: what waits, in which order, and what was set aside."""

from __future__ import annotations

from pathlib import Path

from common.schemas.checkpoint import Decision
from common.schemas.daemon_state import AgentStatus
from common.workspace.checkpoints import decided
from tests.tui import samples
from tests.tui.fakes import agent_info
from tui.services.pending import PendingBook

WS = Path("/srv/ws")


def test_only_live_agents_with_a_pending_checkpoint_wait() -> None:
    book = PendingBook()
    checkpoint = samples.issue_closure()
    book.update(agent_info("a", WS, status=AgentStatus.WAITING), checkpoint)
    book.update(agent_info("b", WS, status=AgentStatus.STOPPED), checkpoint)
    book.update(agent_info("c", WS), None)
    answered = decided(checkpoint, Decision(approved=True, decided_by="cli:x"))
    book.update(agent_info("d", WS), answered)
    assert [item.agent for item in book.waiting()] == ["a"]


def test_the_oldest_checkpoint_comes_first() -> None:
    book = PendingBook()
    book.update(agent_info("a", WS), samples.mr_review())  # created later
    book.update(agent_info("b", WS), samples.project_verification())
    assert [item.agent for item in book.waiting()] == ["b", "a"]
    next_item = book.next_to_show()
    assert next_item is not None and next_item.agent == "b"


def test_set_aside_is_skipped_until_taken_up() -> None:
    book = PendingBook()
    book.update(agent_info("a", WS), samples.issue_selection())
    first = book.next_to_show()
    assert first is not None
    book.set_aside(first)
    assert book.next_to_show() is None
    assert len(book.waiting()) == 1
    assert book.take_up("a") == first
    assert book.next_to_show() == first


def test_a_new_checkpoint_of_the_same_agent_is_not_set_aside() -> None:
    book = PendingBook()
    book.update(agent_info("a", WS), samples.issue_selection("one"))
    first = book.next_to_show()
    assert first is not None
    book.set_aside(first)
    book.update(agent_info("a", WS), samples.issue_selection("two"))
    shown = book.next_to_show()
    assert shown is not None and shown.checkpoint.id == "two"
    assert not book.is_waiting(first)


def test_deciding_here_stops_the_wait_at_once() -> None:
    book = PendingBook()
    book.update(agent_info("a", WS), samples.issue_selection())
    book.decided("a", "another-id")
    assert len(book.waiting()) == 1
    book.decided("a", "issue_selection-0")
    assert book.waiting() == []
