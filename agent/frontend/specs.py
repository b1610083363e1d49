"""Parsing ``--specs``: JSON in, validated specs out, one readable line on error."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from agent.frontend.spec_errors import user_message
from common.errors import SpecError
from common.schemas.spec import AgentSpec, SpecList


def parse_specs(text: str) -> list[AgentSpec]:
    """Parse a JSON array (or a single object) of agent specs; ``@FILE`` reads it from FILE.

    Raises:
        SpecError: the file cannot be read, the text is not JSON or an entry does not
            fit the schema.
    """
    if text.startswith("@"):
        text = _read_specs_file(Path(text[1:]).expanduser())
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SpecError(
            f"--specs is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}"
            + _file_hint(text)
        ) from e
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data:
        raise SpecError("--specs must be a non-empty JSON array of spec objects")
    try:
        return SpecList.validate_python(data)
    except ValidationError as e:
        problems = e.errors()
        # A misspelt field (extra_forbidden) is the cause of any "field required" beside it.
        first = next((p for p in problems if p["type"] == "extra_forbidden"), problems[0])
        where, message = user_message(first)
        raise SpecError(f"--specs{where}: {message}") from e


def _file_hint(text: str) -> str:
    """How to name a file, when the text given looks like a path rather than JSON (people
    type ``--specs specs.json``)."""
    looks_like_path = "/" in text or text.endswith(".json")
    if text.lstrip()[:1] in ("[", "{") or not looks_like_path or "\n" in text:
        return ""
    return f"; to read the specs from a file, write --specs @{text}"


def with_model_latency(specs: list[AgentSpec], text: str) -> list[AgentSpec]:
    """``specs`` with ``model_latency_s`` set from ``harness run --model-latency SECONDS``.

    The flag wins over the specs' own value, for every spec of the batch; the spec's
    rules (a finite number of seconds from 0 to the maximum, the embedded model only)
    judge it, so the flag and the JSON field cannot disagree on what is allowed.

    Raises:
        SpecError: not a number, out of range, or a spec that is not on the embedded model.
    """
    try:
        seconds = float(text)
    except ValueError:
        raise SpecError(f"--model-latency {text!r} is not a number of seconds") from None
    return _overridden(specs, "--model-latency", text, "model_latency_s", seconds)


def with_parallel(specs: list[AgentSpec], text: str) -> list[AgentSpec]:
    """``specs`` with ``parallel`` set from ``harness run --parallel N``.

    Like :func:`with_model_latency`: the flag wins for every spec of the batch, and the
    spec's rules (1 to the maximum, the closed sandbox) judge it.

    Raises:
        SpecError: not a whole number, out of range, or a spec without the closed sandbox.
    """
    try:
        count = int(text)
    except ValueError:
        raise SpecError(f"--parallel {text!r} is not a whole number of issues") from None
    return _overridden(specs, "--parallel", text, "parallel", count)


def _overridden(
    specs: list[AgentSpec], flag: str, text: str, field: str, value: object
) -> list[AgentSpec]:
    """``specs`` with ``field`` set to ``value``, each validated whole again.

    Raises:
        SpecError: a spec refuses the value (its first reason, naming the flag and spec).
    """
    updated: list[AgentSpec] = []
    for index, spec in enumerate(specs):
        try:
            updated.append(AgentSpec.model_validate({**spec.model_dump(), field: value}))
        except ValidationError as e:
            message = str(e.errors()[0]["msg"])
            raise SpecError(
                f"{flag} {text} for --specs[{index}]: {message[:1].lower()}{message[1:]}"
            ) from e
    return updated


def _read_specs_file(path: Path) -> str:
    """The text of a ``--specs @FILE``.

    Raises:
        SpecError: the file is missing or unreadable.
    """
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise SpecError(f"--specs file {path} does not exist") from e
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise SpecError(f"--specs file {path} cannot be read: {reason}") from e
