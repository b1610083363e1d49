"""``host:port`` pairs the sandbox may reach through the agent's filtering proxy.

``sandbox_hosts`` in the spec or the repository's ``.harness.json`` (pinned at
project_verification), and each MCP server's ``hosts``. Apart from the spec so that
the one rule for an entry is checked wherever an entry is read.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated

from pydantic import AfterValidator

_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
MAX_PORT = 65535


def split_host_port(entry: str) -> tuple[str, int]:
    """``"PyPI.org:443"`` → ``("pypi.org", 443)``; ``"[::1]:8080"`` → ``("::1", 8080)``.

    The host is a DNS name (lowercased) or an IP literal; the port is required: an
    allowlist of names alone would let every port of a host through.

    Raises:
        ValueError: one line saying what is wrong with ``entry``.
    """
    if "://" in entry:
        raise ValueError(f"{entry!r} is a URL; write host:port (e.g. pypi.org:443)")
    host, colon, port_text = entry.strip().rpartition(":")
    if not colon or not host:
        raise ValueError(f"{entry!r} is not host:port (e.g. pypi.org:443)")
    if not port_text.isdigit() or not 1 <= int(port_text) <= MAX_PORT:
        raise ValueError(f"{entry!r}: the port must be a number from 1 to {MAX_PORT}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"{entry!r}: {host!r} is not an IPv6 address") from None
        return host, int(port_text)
    host = host.lower().rstrip(".")
    if ":" in host:
        raise ValueError(f"{entry!r}: write an IPv6 address in brackets ([::1]:443)")
    if _is_ip(host):
        return host, int(port_text)
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in host.split(".")):
        raise ValueError(f"{entry!r}: {host!r} is not a host name")
    return host, int(port_text)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _normalised(entry: str) -> str:
    host, port = split_host_port(entry)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


HostPort = Annotated[str, AfterValidator(_normalised)]
"""One ``host:port`` entry, checked and normalised (lowercase name, IPv6 in brackets)."""
