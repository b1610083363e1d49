"""Parsing ``--specs``: JSON in, validated specs out, one readable line on error."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

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
        ) from e
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data:
        raise SpecError("--specs must be a non-empty JSON array of spec objects")
    try:
        return SpecList.validate_python(data)
    except ValidationError as e:
        problem = e.errors()[0]
        where = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in problem["loc"]
        )
        message = str(problem["msg"])
        raise SpecError(f"--specs{where}: {message[:1].lower()}{message[1:]}") from e


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
