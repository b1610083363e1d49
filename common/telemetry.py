"""The OpenTelemetry settings (the standard ``OTEL_*`` variables) on their way to an agent.

Where they come from: the environment of the client that starts or resumes the agent
(``harness run``, ``harness demo``, ``harness resume``, the TUI), as a person would
expect of any program they start with ``OTEL_EXPORTER_OTLP_ENDPOINT=…`` in front. The
daemon may have been started long before, in another environment: its own ``OTEL_*``
never reach an agent. The start request carries the client's, the daemon hands them to
the agent through the agent's secrets pipe (``OTEL_EXPORTER_OTLP_HEADERS`` often holds
a collector's token), and the agent takes them out before anything else starts: no
session, test gate or sandbox ever sees them in its environment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping

from common.errors import HarnessError

PREFIX = "OTEL_"
_NAME = re.compile(r"OTEL_[A-Z0-9_]{1,100}")
MAX_VARIABLES = 40
MAX_VALUE_CHARS = 2048
"""The settings share the agent's secrets pipe with its credentials (one atomic write)."""
ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def telemetry_from(environ: Mapping[str, str]) -> dict[str, str]:
    """The ``OTEL_*`` variables set (and not empty) in ``environ``.

    Raises:
        HarnessError: too many, or one too long to hand over (one line, no value).
    """
    try:
        return check_telemetry(telemetry_in(environ))
    except ValueError as e:
        raise HarnessError(f"the OTEL_* settings cannot be handed to an agent: {e}") from e


def telemetry_in(environ: Mapping[str, str]) -> dict[str, str]:
    """The ``OTEL_*`` variables set (and not empty) in ``environ``, unchecked (an agent
    started by hand; a client checks them with :func:`telemetry_from`)."""
    return {
        name: value
        for name, value in environ.items()
        if name.startswith(PREFIX) and value and _NAME.fullmatch(name)
    }


def without_telemetry(environ: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``environ`` with no ``OTEL_*`` variable."""
    return {name: value for name, value in environ.items() if not name.startswith(PREFIX)}


def take_telemetry(found: MutableMapping[str, str]) -> dict[str, str]:
    """Remove the ``OTEL_*`` entries from ``found`` (the secrets an agent received) and
    return them."""
    return {name: found.pop(name) for name in [n for n in found if n.startswith(PREFIX)]}


def check_telemetry(settings: Mapping[str, str]) -> dict[str, str]:
    """``settings`` if they are ``OTEL_*`` variables of a sane size (the protocol's validator).

    Raises:
        ValueError: another name, too many, or a value too long (values are never quoted).
    """
    bad = sorted(name for name in settings if not _NAME.fullmatch(name))
    if bad:
        raise ValueError(f"not an OTEL_* variable: {', '.join(bad)[:200]}")
    if len(settings) > MAX_VARIABLES:
        raise ValueError(f"more than {MAX_VARIABLES} OTEL_* variables")
    long = sorted(name for name, value in settings.items() if len(value) > MAX_VALUE_CHARS)
    if long:
        raise ValueError(f"{', '.join(long)}: longer than {MAX_VALUE_CHARS} characters")
    return dict(settings)


def traces_wanted(settings: Mapping[str, str]) -> bool:
    """Whether ``settings`` ask for traces over OTLP: an endpoint, and neither the SDK
    switched off (``OTEL_SDK_DISABLED=true``) nor another exporter chosen
    (``OTEL_TRACES_EXPORTER``; only ``otlp`` is offered)."""
    if settings.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = settings.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower()
    if exporter not in ("", "otlp"):
        return False
    return any(settings.get(name, "").strip() for name in ENDPOINTS)
