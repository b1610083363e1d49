"""The Prometheus text exposition of the harness's agents, through prometheus-client.

Built fresh on each scrape from :mod:`agent.daemon.metrics_facts` (the agents' own
files), so ``harness metrics`` without a daemon and the daemon's ``/metrics`` say the
same. Imported only by the code paths that expose metrics: prometheus-client is never
loaded by the other commands.

Labels are agent names (``agent_3``: the daemon's) and fixed classes (a status, a
checkpoint type, a denial class, a failure kind); nothing the model wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import get_args

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from agent.daemon.agent_view import build_agent_info
from agent.daemon.metrics_facts import AgentFacts, FactsCache
from agent.daemon.procs import is_alive
from agent.daemon.registry import Registry
from agent.tracker.retry import FailureKind
from common.paths import daemon_state_path
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.policy_counts import DenialClass
from common.schemas.protocol import AgentInfo

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

SESSION_BUCKETS: tuple[float, ...] = (1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600)
"""Seconds: a demo session takes about one, a real one minutes to an hour."""
WAIT_BUCKETS: tuple[float, ...] = (1, 10, 60, 300, 900, 3600, 4 * 3600, 24 * 3600)
"""Seconds a checkpoint waited: auto-accept answers at once, a person in minutes to a day."""
_FAILURE_KINDS: frozenset[str] = frozenset(get_args(FailureKind))
_STATUS_EXITS: tuple[tuple[AgentStatus, ExitState], ...] = (
    (AgentStatus.RUNNING, ExitState.CONTINUING),
    (AgentStatus.WAITING, ExitState.CONTINUING),
    (AgentStatus.STOPPED, ExitState.CONTINUING),
    (AgentStatus.DONE, ExitState.COMPLETE),
    (AgentStatus.DONE, ExitState.PARTIAL),
    (AgentStatus.FAILED, ExitState.FAILED),
    (AgentStatus.FAILED, ExitState.BROKEN),
)
"""The status and exit state pairs an agent can be in (:func:`agent_view.exit_state`),
each shown at zero when no agent is: a series that vanishes reads as missing data."""


def exposition(agents: Sequence[AgentInfo], cache: FactsCache, refused: int | None = None) -> bytes:
    """The text exposition of ``agents``; ``refused``: the daemon's refused connections
    (``None`` when no daemon answers for them: the family is left out)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(HarnessCollector(lambda: [cache.facts(info) for info in agents], refused))
    return generate_latest(registry)


def exposition_from_home(home: Path) -> bytes:
    """The exposition of every agent registered in ``home``, read without a daemon."""
    registry = Registry.load(daemon_state_path(home))
    agents = [
        build_agent_info(record, alive=is_alive(record.pid, record.pid_start_ticks))
        for record in registry.records
    ]
    return exposition(agents, FactsCache())


class HarnessCollector(Collector):
    """Turns the agents' facts into metric families on each ``collect``."""

    def __init__(self, facts: Callable[[], list[AgentFacts]], refused: int | None) -> None:
        self._facts = facts
        self._refused = refused

    def collect(self) -> Iterator[Metric]:
        facts = self._facts()
        yield _agents(facts)
        yield _waiting(facts)
        yield _waits(facts)
        yield from _sessions(facts)
        yield from _spend(facts)
        yield from _gates(facts)
        yield from _policy(facts)
        yield from _tracker(facts)
        yield from _sandbox(facts)
        if self._refused is not None:
            refused = CounterMetricFamily(
                "harness_daemon_refused_connections",
                "Connections the daemon refused since it started (agent processes, other users).",
            )
            refused.add_metric([], self._refused)
            yield refused


def _agents(facts: list[AgentFacts]) -> Metric:
    family = GaugeMetricFamily(
        "harness_agents", "Agents by status and exit state.", labels=["status", "exit_state"]
    )
    counts = {(status.value, state.value): 0 for status, state in _STATUS_EXITS}
    for fact in facts:
        key = (fact.info.status.value, fact.info.exit_state.value)
        counts[key] = counts.get(key, 0) + 1
    for (status, state), count in sorted(counts.items()):
        family.add_metric([status, state], count)
    return family


def _waiting(facts: list[AgentFacts]) -> Metric:
    family = GaugeMetricFamily(
        "harness_checkpoints_waiting",
        "Checkpoints waiting for a decision, by agent and checkpoint type.",
        labels=["agent", "type"],
    )
    for fact in facts:
        waiting = fact.info.pending_checkpoint
        for kind in CheckpointType:
            family.add_metric([fact.info.name, kind.value], int(waiting is kind))
    return family


def _waits(facts: list[AgentFacts]) -> Metric:
    family = HistogramMetricFamily(
        "harness_checkpoint_wait_seconds",
        "Seconds from a checkpoint's opening to its decision, by checkpoint type.",
        labels=["agent", "type"],
    )
    for fact in facts:
        by_type: dict[str, list[float]] = {}
        for kind, seconds in fact.checkpoint_waits:
            by_type.setdefault(kind, []).append(seconds)
        for kind, values in sorted(by_type.items()):
            buckets, total = _histogram(values, WAIT_BUCKETS)
            family.add_metric([fact.info.name, kind], buckets, total)
    return family


def _sessions(facts: list[AgentFacts]) -> Iterator[Metric]:
    sessions = CounterMetricFamily(
        "harness_sessions",
        "Model sessions that ended, by agent and outcome (error: no result, failed, stopped).",
        labels=["agent", "outcome"],
    )
    durations = HistogramMetricFamily(
        "harness_session_duration_seconds",
        "Each session's own wall time (never a checkpoint's wait).",
        labels=["agent"],
    )
    for fact in facts:
        tally = fact.trace
        ended = len(tally.session_seconds)
        sessions.add_metric([fact.info.name, "ok"], ended - tally.session_errors)
        sessions.add_metric([fact.info.name, "error"], tally.session_errors)
        buckets, total = _histogram(tally.session_seconds, SESSION_BUCKETS)
        durations.add_metric([fact.info.name], buckets, total)
    yield sessions
    yield durations


def _spend(facts: list[AgentFacts]) -> Iterator[Metric]:
    tokens = CounterMetricFamily(
        "harness_tokens",
        "Tokens the agent's sessions used; input counts every billed kind, cache ones included.",
        labels=["agent", "kind"],
    )
    cost = CounterMetricFamily(
        "harness_cost_usd", "What the agent's sessions cost, in US dollars.", labels=["agent"]
    )
    for fact in facts:
        spend = fact.info.spend
        name = fact.info.name
        tokens.add_metric([name, "input"], spend.tokens_in)
        tokens.add_metric([name, "output"], spend.tokens_out)
        tokens.add_metric([name, "cache_read"], spend.cache_read)
        tokens.add_metric([name, "cache_creation"], spend.cache_creation)
        cost.add_metric([name], spend.cost_usd)
    yield tokens
    yield cost


def _gates(facts: list[AgentFacts]) -> Iterator[Metric]:
    runs = CounterMetricFamily(
        "harness_gate_runs",
        "Runs of the project's test suite at the harness's gates, by result.",
        labels=["agent", "result"],
    )
    reused = CounterMetricFamily(
        "harness_gate_reuses",
        "Gate results reused because the work tree had not changed since their run.",
        labels=["agent"],
    )
    for fact in facts:
        gates = fact.trace.gates
        runs.add_metric([fact.info.name, "passed"], gates.passed)
        runs.add_metric([fact.info.name, "failed"], gates.failed)
        reused.add_metric([fact.info.name], gates.reused)
    yield runs
    yield reused


def _policy(facts: list[AgentFacts]) -> Iterator[Metric]:
    allowed = CounterMetricFamily(
        "harness_policy_allowed", "Tool calls the policy allowed.", labels=["agent"]
    )
    denials = CounterMetricFamily(
        "harness_policy_denials",
        "Tool calls the policy refused, by reason class (unclassified: counted before classes).",
        labels=["agent", "reason_class"],
    )
    forgeries = CounterMetricFamily(
        "harness_forgeries_rejected",
        "Decisions or switches rejected because no client made them.",
        labels=["agent"],
    )
    for fact in facts:
        counts = fact.policy
        name = fact.info.name
        allowed.add_metric([name], counts.allowed)
        classified = 0
        for kind in DenialClass:
            count = counts.denied_by_class.get(kind, 0)
            classified += count
            denials.add_metric([name, kind.value], count)
        denials.add_metric([name, "unclassified"], max(counts.denied - classified, 0))
        forgeries.add_metric([name], counts.forgeries)
    yield allowed
    yield denials
    yield forgeries


def _tracker(facts: list[AgentFacts]) -> Iterator[Metric]:
    requests = CounterMetricFamily(
        "harness_tracker_requests",
        "Requests sent to the GitLab API, every attempt counted (0 for the file tracker).",
        labels=["agent"],
    )
    retries = CounterMetricFamily(
        "harness_tracker_retries",
        "GitLab requests sent again after a 429, a 5xx, a timeout or a dropped connection.",
        labels=["agent"],
    )
    faults = CounterMetricFamily(
        "harness_tracker_faults",
        "GitLab requests that failed, by kind of failure, retried or not.",
        labels=["agent", "kind"],
    )
    for fact in facts:
        name = fact.info.name
        stats = fact.tracker
        requests.add_metric([name], stats.requests if stats is not None else 0)
        retries.add_metric([name], stats.retries if stats is not None else 0)
        failed = stats.failed if stats is not None else {}
        for kind in sorted(_FAILURE_KINDS):
            faults.add_metric([name, kind], failed.get(kind, 0))
    yield requests
    yield retries
    yield faults


def _sandbox(facts: list[AgentFacts]) -> Iterator[Metric]:
    refusals = CounterMetricFamily(
        "harness_sandbox_refusals",
        "Requests from inside the sandbox the agent refused, by kind (model_endpoint: "
        "another path on the model host, or no session running; host: a host:port not in "
        "sandbox_hosts, refused by the filtering proxy).",
        labels=["agent", "kind"],
    )
    left_out = GaugeMetricFamily(
        "harness_sandbox_folders_left_out",
        "Folders the project's venv named that the sandbox layout keeps out (the home, "
        "HARNESS_HOME, the socket...).",
        labels=["agent"],
    )
    for fact in facts:
        refusals.add_metric([fact.info.name, "model_endpoint"], fact.policy.endpoint_refused)
        refusals.add_metric([fact.info.name, "host"], fact.policy.host_refused)
        left_out.add_metric([fact.info.name], fact.layout_left_out)
    yield refusals
    yield left_out


def _histogram(
    values: Iterable[float], bounds: Sequence[float]
) -> tuple[list[tuple[str, float]], float]:
    """Cumulative buckets (``le`` → count, ``+Inf`` last) and the sum of ``values``."""
    values = list(values)
    buckets = [
        (_go_float(bound), float(sum(value <= bound for value in values))) for bound in bounds
    ]
    buckets.append(("+Inf", float(len(values))))
    return buckets, float(sum(values))


def _go_float(bound: float) -> str:
    """A bucket bound as Prometheus writes it (``1.0``, ``14400.0``)."""
    return repr(float(bound))
