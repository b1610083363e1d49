"""How a request to the model proxy is framed, read strictly: one reading or a refusal.

Why: the model's own commands reach the agent's model proxy
(:mod:`agent.core.endpoint.model_proxy`) as well as the CLI does. Where HTTP/1.1 leaves a
request's extent open to two readings (``Transfer-Encoding`` beside
``Content-Length``, a transfer coding other than ``chunked``, two lengths that
disagree, a length such as ``+5`` or ``1_0`` that Python's ``int`` reads and
another parser does not, a folded or padded header, a bare LF), one request can
hide inside another's body: the proxy reads one message where the sender meant
two, and the hidden one goes unfiltered and unmetered. RFC 9112 lets a server
refuse every such form (sections 5.1, 5.2, 6.1, 6.3); the bundled CLI never sends
one, so the proxy refuses them all (400) and closes the connection, since after
a doubtful framing nobody knows where the next request starts.

Pure functions over the bytes already read; :class:`BadFraming` is a
``ValueError``, which the proxy answers as a malformed request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from agent.core.endpoint.endpoint_rules import shown

CHUNKED: Final = "chunked"
"""The one transfer coding a request may use (compared case-insensitively, RFC 9112 7)."""
MAX_LENGTH_DIGITS = 19
"""Longer ``Content-Length`` values are refused outright (no request is that large)."""

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_REQUEST_LINE = re.compile(rf"({_TOKEN}) ([\x21-\x7e]+) (HTTP/1\.[01])")
"""``METHOD SP TARGET SP HTTP/1.x``: single spaces, a printable-ASCII target."""
_HEADER_LINE = re.compile(rf"({_TOKEN}):[ \t]*([^\x00-\x08\x0a-\x1f\x7f]*?)[ \t]*")
"""``name: value``: no space before the colon, no control character but tab in the value."""
_LENGTH = re.compile(r"[0-9]+")
_CHUNK_LINE = re.compile(rb"([0-9A-Fa-f]{1,16})(?:[ \t]*;[^\x00-\x08\x0a-\x1f\x7f]*)?\r\n")
"""A chunk's size line: hex digits, an optional extension, then CRLF and nothing else."""

_FRAMING_HEADERS = frozenset({"transfer-encoding", "content-length"})

Framing = int | Literal["chunked"]
"""A body's framing: its length in bytes, or :data:`CHUNKED`."""


class BadFraming(ValueError):
    """A request whose head or framing admits more than one reading."""


@dataclass(frozen=True)
class RequestHead:
    """A request line and its headers, as sent (names keep their case)."""

    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]

    def header(self, name: str) -> str:
        """The first value of header ``name`` (lower case), ``""`` when absent."""
        return next((value for key, value in self.headers if key.lower() == name), "")


def parse_head(head: bytes) -> RequestHead:
    """The request line and headers of ``head`` (which ends with an empty line).

    Raises:
        BadFraming: a request line not of the form ``METHOD /target HTTP/1.x``, a bare
            CR or LF, a folded header line, space before a header's colon, a control
            character in a value.
        ValueError: a target that is not a path (an absolute URL naming another host).
    """
    lines = head.decode("latin-1").removesuffix("\r\n\r\n").split("\r\n")
    if any("\r" in line or "\n" in line for line in lines):
        raise BadFraming("a bare CR or LF in the request head")
    request_line = _REQUEST_LINE.fullmatch(lines[0])
    if request_line is None:
        raise BadFraming(f"malformed request line {shown(lines[0])!r}")
    method, target, version = request_line.groups()
    if not target.startswith("/"):
        raise ValueError(f"unsupported request target {target[:80]!r}")
    return RequestHead(method, target, version, [_header_line(line) for line in lines[1:]])


def _header_line(line: str) -> tuple[str, str]:
    if line[:1] in (" ", "\t"):
        raise BadFraming(f"a folded header line (obs-fold) {shown(line)!r}")
    field = _HEADER_LINE.fullmatch(line)
    if field is None:
        raise BadFraming(f"malformed header line {shown(line)!r}")
    return field[1], field[2]


def body_framing(head: RequestHead) -> Framing:
    """How long the body of ``head``'s request is, or that it comes in chunks.

    Raises:
        BadFraming: both ``Transfer-Encoding`` and ``Content-Length``; a transfer coding
            other than a single ``chunked`` (or any on an HTTP/1.0 request); a length
            that is not plain decimal digits; several lengths that disagree; a header
            spelled like one of those two with ``_`` for ``-`` (some servers read them
            as the same header).
    """
    for name, _value in head.headers:
        spelled = name.lower().replace("_", "-")
        if spelled in _FRAMING_HEADERS and name.lower() != spelled:
            raise BadFraming(f"ambiguous framing: a look-alike header {shown(name)!r}")
    codings = _values(head, "transfer-encoding")
    lengths = _values(head, "content-length")
    if codings and lengths:
        raise BadFraming("ambiguous framing: both Transfer-Encoding and Content-Length")
    if codings:
        if len(codings) != 1 or codings[0].lower() != CHUNKED:
            raise BadFraming(
                f"ambiguous framing: Transfer-Encoding {shown(', '.join(codings))!r} "
                "is not exactly chunked"
            )
        if head.version != "HTTP/1.1":
            raise BadFraming(f"ambiguous framing: Transfer-Encoding on an {head.version} request")
        return CHUNKED
    if not lengths:
        return 0
    if not all(_LENGTH.fullmatch(value) for value in lengths):
        raise BadFraming(f"Content-Length {shown(', '.join(lengths))!r} is not a number")
    if any(len(value) > MAX_LENGTH_DIGITS for value in lengths):
        raise BadFraming(f"Content-Length of more than {MAX_LENGTH_DIGITS} digits")
    if len({int(value) for value in lengths}) != 1:
        raise BadFraming(
            f"ambiguous framing: Content-Length values disagree ({shown(', '.join(lengths))})"
        )
    return int(lengths[0])


def _values(head: RequestHead, name: str) -> list[str]:
    """Every value of header ``name``, comma-separated lists split (RFC 9110 5.3)."""
    return [
        item.strip(" \t")
        for key, value in head.headers
        if key.lower() == name
        for item in value.split(",")
    ]


def chunk_size(line: bytes) -> int:
    """The size announced by a chunk's size line (``line`` ends with CRLF).

    Raises:
        BadFraming: anything but hex digits and an optional extension (a sign, ``0x``,
            an underscore, spaces, an empty line).
    """
    size = _CHUNK_LINE.fullmatch(line)
    if size is None:
        raise BadFraming(f"malformed chunk size line {shown(line.decode('latin-1'))!r}")
    return int(size[1], 16)


def chunk_end(data: bytes) -> None:
    """Check the two bytes after a chunk's data.

    Raises:
        BadFraming: they are not CRLF (the chunk was longer than announced).
    """
    if data != b"\r\n":
        raise BadFraming("a chunk longer than its announced size")


def trailer_line(line: bytes) -> bool:
    """Whether ``line`` (ending with CRLF) is a trailer field; ``False``: the last, empty one.

    Raises:
        BadFraming: a trailer line that is not a well-formed field.
    """
    if line == b"\r\n":
        return False
    text = line.decode("latin-1").removesuffix("\r\n")
    if "\r" in text or "\n" in text:
        raise BadFraming("a bare CR or LF in the trailers")
    _header_line(text)
    return True
