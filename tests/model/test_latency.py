"""The embedded model's latency: each answer waits its own, concurrent answers wait side by side.

Measured through real sockets: the ``python -m agent.model`` process started by
:class:`LocalModel`, alone and behind the agent's model proxy (the path every
session's requests take), with requests sent from threads at the same moment.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agent.core.endpoint.model_proxy import ModelProxy, Upstream
from agent.model import LocalModel, PlaybookServer
from agent.model.playbook import Playbook
from agent.model.server import parse_latency
from tests.model.test_server import PLAYBOOK, body, post, run_module, write_playbook

LATENCY_S = 1.0


async def timed_post(url: str, path: str, data: dict[str, Any]) -> tuple[int, float]:
    """The status of one POST and the seconds it took, sent from a thread of its own."""
    started = time.monotonic()
    answer = await asyncio.to_thread(post, url, path, data)
    return answer.status, time.monotonic() - started


async def two_at_once(url: str) -> tuple[list[tuple[int, float]], float]:
    """A streamed and a plain request sent together: each one's status and time, and the wall."""
    started = time.monotonic()
    answers = await asyncio.gather(
        timed_post(url, "/v1/messages?beta=true", body(stream=True)),
        timed_post(url, "/v1/messages", body(stream=False)),
    )
    return list(answers), time.monotonic() - started


@pytest.mark.parametrize(("text", "seconds"), [("0", 0.0), ("1.5", 1.5), (" 2 ", 2.0)])
def test_parse_latency_takes_seconds(text: str, seconds: float) -> None:
    assert parse_latency(text) == seconds


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("soon", "latency 'soon' is not a number of seconds"),
        ("", "latency '' is not a number of seconds"),
        ("-0.1", "latency -0.1 must be a finite number of seconds ≥ 0"),
        ("nan", "latency nan must be a finite number of seconds ≥ 0"),
        ("inf", "latency inf must be a finite number of seconds ≥ 0"),
    ],
)
def test_parse_latency_refuses_in_one_line(text: str, says: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_latency(text)
    assert str(caught.value) == says


def test_the_server_refuses_a_negative_latency() -> None:
    with pytest.raises(ValueError, match="finite number of seconds"):
        PlaybookServer(Playbook.model_validate(PLAYBOOK), latency_s=-1.0)


def test_module_with_a_bad_latency_exits_2_with_one_line(tmp_path: Path) -> None:
    done = run_module("--playbook", str(write_playbook(tmp_path)), "--latency", "-3")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: latency -3.0 must be a finite number of seconds ≥ 0\n"


async def test_each_answer_waits_the_latency_and_concurrent_answers_wait_side_by_side(
    tmp_path: Path,
) -> None:
    async with LocalModel(write_playbook(tmp_path), latency_s=LATENCY_S) as url:
        status, alone = await timed_post(url, "/v1/messages", body(stream=False))
        assert status == 200
        assert alone >= LATENCY_S

        answers, wall = await two_at_once(url)

    assert [status for status, _ in answers] == [200, 200]
    assert all(seconds >= LATENCY_S for _, seconds in answers), answers
    assert wall < 2 * LATENCY_S, f"two concurrent answers took {wall:.2f} s: served one by one"


async def test_count_tokens_does_not_wait(tmp_path: Path) -> None:
    """Counting tokens is not an answer: a real endpoint answers it at once too."""
    async with LocalModel(write_playbook(tmp_path), latency_s=LATENCY_S) as url:
        status, seconds = await timed_post(url, "/v1/messages/count_tokens", body(stream=False))
    assert status == 200
    assert seconds < LATENCY_S


async def test_an_injected_error_answers_at_once_and_the_retry_waits(tmp_path: Path) -> None:
    """A refusal (429) comes before any thinking; the answer after it takes the latency."""
    async with LocalModel(write_playbook(tmp_path), ["429"], latency_s=LATENCY_S) as url:
        refused = await timed_post(url, "/v1/messages", body(stream=False))
        answered = await timed_post(url, "/v1/messages", body(stream=False))
    assert refused[0] == 429 and refused[1] < LATENCY_S
    assert answered[0] == 200 and answered[1] >= LATENCY_S


async def test_concurrent_answers_wait_side_by_side_through_the_agents_model_proxy(
    tmp_path: Path,
) -> None:
    """The path parallel sessions take: CLI → the agent's proxy → the embedded model."""
    async with (
        LocalModel(write_playbook(tmp_path), latency_s=LATENCY_S) as model_url,
        ModelProxy(Upstream(model_url, "none")) as proxy_url,
    ):
        answers, wall = await two_at_once(proxy_url)

    assert [status for status, _ in answers] == [200, 200]
    assert all(seconds >= LATENCY_S for _, seconds in answers), answers
    assert wall < 2 * LATENCY_S, f"two concurrent answers took {wall:.2f} s through the proxy"


async def test_a_burst_of_sessions_connecting_at_once_is_served_side_by_side(
    tmp_path: Path,
) -> None:
    """32 requests connecting at the same moment, through the proxy: none refused or queued.

    With socketserver's listen backlog of 5, such a burst had half its requests answered
    502 by the proxy (the model's socket reset the connection) or delayed by a second.
    """
    count = 32
    loop = asyncio.get_running_loop()
    async with (
        LocalModel(write_playbook(tmp_path), latency_s=LATENCY_S) as model_url,
        ModelProxy(Upstream(model_url, "none")) as proxy_url,
    ):
        started = time.monotonic()
        with ThreadPoolExecutor(count) as pool:  # a thread per request: all at once
            answers = await asyncio.gather(
                *(
                    loop.run_in_executor(pool, post, proxy_url, "/v1/messages", body(stream=True))
                    for _ in range(count)
                )
            )
        wall = time.monotonic() - started

    assert [answer.status for answer in answers] == [200] * count
    assert wall < 2 * LATENCY_S, f"{count} concurrent answers took {wall:.2f} s"
