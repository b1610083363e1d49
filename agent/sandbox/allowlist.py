"""Which ``host:port`` the sandbox's filtering proxy lets a connection reach (pure).

Two questions, asked in order. By name, as the client asked for it: is the exact
``host:port`` pair listed (``sandbox_hosts``, an MCP server's ``hosts``)? Nothing
else is reached, no other port of a listed host, no subdomain, no IP literal that
was not itself listed. Then by address, after the proxy resolved the name outside the
sandbox: a listed name that resolves to the host's own loopback, a link-local address
(cloud metadata at 169.254.169.254) or an unspecified or multicast one is refused,
unless the listed name is ``localhost`` or the address literal was listed: a DNS
answer must not turn a registry's name into the agent's own machine.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from common.schemas.sandbox_hosts import split_host_port

LOCAL_NAMES = frozenset({"localhost"})
"""Names that mean this machine when listed: their loopback answer is what was asked."""
NOT_IN_LIST = "not in the sandbox's allowlist (sandbox_hosts)"


def _plain(host: str) -> str:
    return host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class HostAllowlist:
    """The exact ``(host, port)`` pairs that may be reached."""

    pairs: frozenset[tuple[str, int]] = frozenset()

    @classmethod
    def of(cls, entries: Iterable[str]) -> HostAllowlist:
        """From ``host:port`` entries (already checked by the schema).

        Raises:
            ValueError: an entry is not ``host:port`` (one line).
        """
        return cls(frozenset(split_host_port(entry) for entry in entries))

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def entries(self) -> list[str]:
        """The pairs as ``host:port`` (IPv6 in brackets), sorted."""
        return sorted(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in self.pairs)

    def refusal(self, host: str, port: int) -> str | None:
        """Why ``host:port`` as asked is refused (``None``: listed)."""
        if (_plain(host), port) in self.pairs:
            return None
        return NOT_IN_LIST

    def address_refusal(self, host: str, address: str) -> str | None:
        """Why connecting to ``address``, which the listed ``host`` resolved to, is refused
        (``None``: it may be reached)."""
        name = _plain(host)
        if _is_ip(name) or name in LOCAL_NAMES:
            return None  # listed literally, or listed as this machine: what was asked
        ip = ipaddress.ip_address(_plain(address))
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast:
            return f"{name} resolves to {ip}, an address of this machine or its link"
        return None
