"""Which peer may act as a client: the rules alone, on made-up namespaces and lineages."""

from __future__ import annotations

import pytest

from agent.daemon.peer_rules import (
    AgentProcess,
    Ancestor,
    Namespaces,
    PeerProcess,
    refusal_reason,
)

DAEMON = Namespaces(pid="pid:[4026531836]", mnt="mnt:[4026531832]")
SANDBOX_PID = "pid:[4026532999]"
SANDBOX_MNT = "mnt:[4026532998]"
AGENT = AgentProcess(name="agent_3", pid=500, start_ticks=7000)
SHELL = Ancestor(pid=300, start_ticks=100)
INIT = Ancestor(pid=1, start_ticks=1)


def peer(
    *lineage: Ancestor,
    namespaces: Namespaces = DAEMON,
    session: int = 300,
    group: int = 900,
) -> PeerProcess:
    """A peer whose lineage is ``lineage`` (itself first), in ``namespaces``."""
    return PeerProcess(
        pid=lineage[0].pid, namespaces=namespaces, session=session, group=group, lineage=lineage
    )


CLIENT = peer(Ancestor(pid=900, start_ticks=9000), SHELL, INIT)


def test_a_client_in_the_daemon_s_namespaces_outside_every_agent_is_served() -> None:
    assert refusal_reason(DAEMON, CLIENT, [AGENT]) is None
    assert refusal_reason(DAEMON, CLIENT, []) is None


def test_a_peer_that_could_not_be_read_is_refused() -> None:
    assert "could not be read" in (refusal_reason(DAEMON, None, []) or "")


@pytest.mark.parametrize(
    ("namespaces", "expected"),
    [
        (Namespaces(pid=SANDBOX_PID, mnt=SANDBOX_MNT), "another PID namespace"),
        (Namespaces(pid=SANDBOX_PID, mnt=DAEMON.mnt), "another PID namespace"),
        (Namespaces(pid=DAEMON.pid, mnt=SANDBOX_MNT), "another mount namespace"),
    ],
)
def test_a_peer_in_other_namespaces_is_refused_even_with_no_agent_running(
    namespaces: Namespaces, expected: str
) -> None:
    outsider = peer(Ancestor(pid=2, start_ticks=5), INIT, namespaces=namespaces)
    assert expected in (refusal_reason(DAEMON, outsider, []) or "")


@pytest.mark.parametrize(
    ("lineage", "expected"),
    [
        ((Ancestor(pid=500, start_ticks=7000), INIT), "it is agent_3's agent process"),
        ((Ancestor(pid=901, start_ticks=7100), Ancestor(500, 7000), INIT), "descends from agent_3"),
        (
            (Ancestor(902, 7200), Ancestor(901, 7100), Ancestor(500, 7000), SHELL, INIT),
            "descends from agent_3",
        ),
    ],
)
def test_a_peer_descending_from_an_agent_is_refused(
    lineage: tuple[Ancestor, ...], expected: str
) -> None:
    assert expected in (refusal_reason(DAEMON, peer(*lineage), [AGENT]) or "")


def test_an_ancestor_with_a_reused_agent_pid_is_not_the_agent() -> None:
    reused = peer(Ancestor(pid=901, start_ticks=9100), Ancestor(pid=500, start_ticks=8000), INIT)
    assert refusal_reason(DAEMON, reused, [AGENT]) is None
    unrecorded = AgentProcess(name="agent_3", pid=500, start_ticks=None)
    assert "descends from agent_3" in (refusal_reason(DAEMON, reused, [unrecorded]) or "")


@pytest.mark.parametrize(
    ("session", "group", "expected"),
    [(500, 901, "in the session of agent_3"), (300, 500, "in the process group of agent_3")],
)
def test_an_orphan_that_left_the_agent_s_lineage_is_refused_by_its_session_or_group(
    session: int, group: int, expected: str
) -> None:
    orphan = peer(Ancestor(pid=901, start_ticks=7100), INIT, session=session, group=group)
    assert expected in (refusal_reason(DAEMON, orphan, [AGENT]) or "")


def test_every_agent_is_checked_not_only_the_first() -> None:
    other = AgentProcess(name="agent_1", pid=400, start_ticks=4000)
    child = peer(Ancestor(pid=901, start_ticks=7100), Ancestor(500, 7000), INIT)
    assert "agent_3" in (refusal_reason(DAEMON, child, [other, AGENT]) or "")
