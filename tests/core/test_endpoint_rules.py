"""What the model endpoint forwards from a session: the Messages API, nothing else."""

from __future__ import annotations

import json

import pytest

from agent.core.endpoint.endpoint_rules import closed, error_answer, refusal, shown, too_large


@pytest.mark.parametrize(
    "target",
    [
        "/v1/messages",
        "/v1/messages?beta=true",
        "/v1/messages/count_tokens",
        "/v1/messages/count_tokens?beta=true",
    ],
)
def test_the_paths_the_cli_uses_pass_with_post(target: str) -> None:
    assert refusal("POST", target) is None


@pytest.mark.parametrize(
    "target",
    [
        "/rt/x.sh",
        "/",
        "/v1/models",
        "/v1/complete",
        "/v1/messages/batches",
        "/v1/messages/",
        "/v1/messages/../../rt/x.sh",
        "/v1/messages/%2e%2e/rt",
        "/V1/messages",
        "//v1/messages",
        "/v1/messages?x=/../../rt",
        "/v1/messages?beta=true#frag",
        "/v1/messages?a=%0d%0a",
    ],
)
def test_every_other_target_is_refused_as_not_found(target: str) -> None:
    refused = refusal("POST", target)
    assert refused is not None
    assert (refused.status, refused.error_type) == (404, "not_found_error")
    assert "forwards only POST /v1/messages and /v1/messages/count_tokens" in refused.message


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "HEAD", "OPTIONS", "post"])
def test_another_method_on_the_messages_path_is_refused(method: str) -> None:
    refused = refusal(method, "/v1/messages")
    assert refused is not None
    assert refused.status == 405


def test_a_closed_endpoint_says_no_session_runs() -> None:
    refused = closed("POST", "/v1/messages")
    assert (refused.status, refused.error_type) == (403, "permission_error")
    assert "no session of this agent is running" in refused.message


def test_model_written_targets_are_shown_escaped_and_short() -> None:
    hostile = "/rt/\x1b]0;APPROVED\x07\u202ex" + "a" * 300
    text = shown(hostile)
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert "\\x1b" in text and "\\u202e" in text
    assert len(text) < 200 and text.endswith("…")
    message = refusal("GET", hostile)
    assert message is not None and "\x1b" not in message.message


def test_the_error_answer_is_whole_http_with_an_anthropic_error_body() -> None:
    raw = error_answer(too_large(10), keep_alive=False)
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 413 Too Large"
    assert f"content-length: {len(body)}" in lines
    assert "connection: close" in lines
    assert json.loads(body) == {
        "type": "error",
        "error": {
            "type": "request_too_large",
            "message": "request body over 10 bytes: refused by the harness",
        },
    }
