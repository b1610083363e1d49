"""A local OTLP/HTTP receiver: accepts ``POST /v1/traces`` and decodes what it gets.

It stands in for a collector: ``http.server`` on ``127.0.0.1:0`` in a thread, each
body parsed as an ``ExportTraceServiceRequest`` (opentelemetry-proto), so a test looks
at the spans exactly as a collector would have received them.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as the receiver decoded it."""

    name: str
    span_id: bytes
    parent_span_id: bytes
    trace_id: bytes
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    error: bool


@dataclass
class Received:
    spans: list[ReceivedSpan] = field(default_factory=list)
    requests: int = 0
    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def named(self, prefix: str) -> list[ReceivedSpan]:
        with self.lock:
            return [span for span in self.spans if span.name.startswith(prefix)]


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind is not None else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, Received]]:
    """The receiver's base URL (for ``OTEL_EXPORTER_OTLP_ENDPOINT``) and what it received."""
    received = Received()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            with received.lock:
                received.requests += 1
                received.paths.append(self.path)
                received.headers.append(dict(self.headers.items()))
                for resource_spans in request.resource_spans:
                    resource = _attributes(resource_spans.resource.attributes)
                    for scope in resource_spans.scope_spans:
                        for span in scope.spans:
                            received.spans.append(
                                ReceivedSpan(
                                    name=span.name,
                                    span_id=span.span_id,
                                    parent_span_id=span.parent_span_id,
                                    trace_id=span.trace_id,
                                    start_ns=span.start_time_unix_nano,
                                    end_ns=span.end_time_unix_nano,
                                    attributes=_attributes(span.attributes),
                                    resource=resource,
                                    error=span.status.code == 2,
                                )
                            )
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the test reads what was received, not an access log

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="otlp receiver", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
