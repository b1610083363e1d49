"""A request's framing, read strictly: one reading, or a refusal naming why."""

from __future__ import annotations

import pytest

from agent.core.endpoint.request_framing import (
    CHUNKED,
    BadFraming,
    Framing,
    body_framing,
    chunk_end,
    chunk_size,
    parse_head,
    trailer_line,
)


def head(*headers: str, line: str = "POST /v1/messages HTTP/1.1") -> bytes:
    return "\r\n".join([line, *headers]).encode("latin-1") + b"\r\n\r\n"


@pytest.mark.parametrize(
    ("headers", "framing"),
    [
        ((), 0),
        (("content-length: 12",), 12),
        (("Content-Length:12",), 12),
        (("content-length: 12 \t",), 12),
        (("content-length: 12", "Content-Length: 12"), 12),
        (("content-length: 12, 12",), 12),
        (("content-length: 0",), 0),
        (("transfer-encoding: chunked",), CHUNKED),
        (("Transfer-Encoding: Chunked",), CHUNKED),
        (("x-note: a: b", "transfer-encoding: chunked"), CHUNKED),
    ],
)
def test_a_single_reading_gives_the_framing(headers: tuple[str, ...], framing: Framing) -> None:
    assert body_framing(parse_head(head(*headers))) == framing


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        (("content-length: 5", "transfer-encoding: chunked"), "both Transfer-Encoding and"),
        (("transfer-encoding: chunked", "content-length: 0"), "both Transfer-Encoding and"),
        (("transfer-encoding: chunked, identity",), "is not exactly chunked"),
        (("transfer-encoding: gzip, chunked",), "is not exactly chunked"),
        (("transfer-encoding: identity",), "is not exactly chunked"),
        (("transfer-encoding: chunked", "transfer-encoding: chunked"), "is not exactly chunked"),
        (("transfer-encoding: chunked,",), "is not exactly chunked"),
        (("transfer-encoding: \xa0chunked",), "is not exactly chunked"),
        (('transfer-encoding: "chunked"',), "is not exactly chunked"),
        (("content-length: 5", "content-length: 6"), "Content-Length values disagree"),
        (("content-length: 5, 0",), "Content-Length values disagree"),
        (("content-length: +5",), "is not a number"),
        (("content-length: -1",), "is not a number"),
        (("content-length: 1_0",), "is not a number"),
        (("content-length: 0x10",), "is not a number"),
        (("content-length: five",), "is not a number"),
        (("content-length:",), "is not a number"),
        (("content-length: 5 5",), "is not a number"),
        (("content-length: \xa05",), "is not a number"),
        (("content-length: " + "9" * 20,), "more than 19 digits"),
        (("content_length: 5", "content-length: 0"), "look-alike header"),
        (("Transfer_Encoding: chunked",), "look-alike header"),
    ],
)
def test_an_ambiguous_framing_is_refused(headers: tuple[str, ...], reason: str) -> None:
    with pytest.raises(BadFraming, match=reason):
        body_framing(parse_head(head(*headers)))


def test_a_transfer_coding_on_an_http_1_0_request_is_refused() -> None:
    request = parse_head(head("transfer-encoding: chunked", line="POST /v1/messages HTTP/1.0"))
    with pytest.raises(BadFraming, match=r"on an HTTP/1\.0 request"):
        body_framing(request)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (head("transfer-encoding : chunked"), "malformed header line"),
        (head("transfer-encoding\t: chunked"), "malformed header line"),
        (head(" transfer-encoding: chunked"), "folded header line"),
        (head("x-note: a", " transfer-encoding: chunked"), "folded header line"),
        (head("x-note: a", "\tcontent-length: 5"), "folded header line"),
        (head("x-note: a\ntransfer-encoding: chunked"), "bare CR or LF"),
        (head("x-note: a\rtransfer-encoding: chunked"), "bare CR or LF"),
        (head("transfer-encoding: \x0bchunked"), "malformed header line"),
        (head("x-note: a\x00b"), "malformed header line"),
        (head("content length: 5"), "malformed header line"),
        (head("content-length"), "malformed header line"),
        (head(line="POST  /v1/messages HTTP/1.1"), "malformed request line"),
        (head(line="POST /v1/messages HTTP/1.1 extra"), "malformed request line"),
        (head(line="POST /v1/messages HTTP/2.0"), "malformed request line"),
        (head(line="POST /v1/messages\tHTTP/1.1"), "malformed request line"),
        (head(line="POST /v1/m\xe9ssages HTTP/1.1"), "malformed request line"),
    ],
)
def test_a_head_open_to_two_readings_is_refused(raw: bytes, reason: str) -> None:
    with pytest.raises(BadFraming, match=reason):
        parse_head(raw)


def test_a_head_keeps_its_names_values_and_target() -> None:
    request = parse_head(
        head("Host: x", "X-Api-Key:  dummy \t", line="POST /v1/messages?beta=true HTTP/1.1")
    )
    assert (request.method, request.target, request.version) == (
        "POST",
        "/v1/messages?beta=true",
        "HTTP/1.1",
    )
    assert request.headers == [("Host", "x"), ("X-Api-Key", "dummy")]
    assert request.header("x-api-key") == "dummy" and request.header("connection") == ""


def test_an_absolute_url_is_still_refused_as_another_host() -> None:
    with pytest.raises(ValueError, match="unsupported request target") as refused:
        parse_head(head(line="GET http://example.com/rt/x.sh HTTP/1.1"))
    assert not isinstance(refused.value, BadFraming)


@pytest.mark.parametrize(
    ("line", "size"),
    [(b"0\r\n", 0), (b"1a\r\n", 26), (b"1A\r\n", 26), (b"5;name=value\r\n", 5), (b"5 ;x\r\n", 5)],
)
def test_a_chunk_size_line_gives_its_size(line: bytes, size: int) -> None:
    assert chunk_size(line) == size


@pytest.mark.parametrize(
    "line",
    [
        b"\r\n",
        b"+5\r\n",
        b"-5\r\n",
        b"0x5\r\n",
        b"5_0\r\n",
        b" 5\r\n",
        b"5 \r\n",
        b"5\n0\r\n",
        b"g\r\n",
        b"1" * 17 + b"\r\n",
        b"5;\x00\r\n",
    ],
)
def test_a_chunk_size_line_open_to_two_readings_is_refused(line: bytes) -> None:
    with pytest.raises(BadFraming, match="malformed chunk size line"):
        chunk_size(line)


def test_a_chunk_must_end_where_announced_and_trailers_must_be_fields() -> None:
    chunk_end(b"\r\n")
    with pytest.raises(BadFraming, match="longer than its announced size"):
        chunk_end(b"GE")
    assert trailer_line(b"x-check: 1\r\n") is True
    assert trailer_line(b"\r\n") is False
    for line in (b" \r\n", b"x-check : 1\r\n", b" folded\r\n", b"a\nb: c\r\n"):
        with pytest.raises(BadFraming):
            trailer_line(line)
