"""A spec's validation error in the words of the JSON the person wrote.

Why: pydantic names the place of an error as the models hold it, not as the spec is
written: ``auto_accept: {"issue_closur": "ask"}`` was refused at
``auto_accept.types.issue_closur.[key]`` (the rules keep their types under ``types``,
and ``[key]`` is pydantic's word for a dictionary's key), with "a valid dictionary or
instance of AutoAcceptRules" for a value of the wrong kind. Here the path is the JSON's
own, a key is named as a key (with the one probably meant), and a model's class name
gives way to what to write.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, get_args

from pydantic import BaseModel

from agent.frontend.suggestion import suggestion
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.spec import AgentSpec

#: Fields whose model keeps part of the JSON under a name of its own: (field, inner name).
INNER_NAMES = {("auto_accept", "types")}
KEY = "[key]"
#: What to write, where "an object" alone would not say it.
EXPECTED = {
    "auto_accept": 'should be true, false or rules per checkpoint type, such as {"default": '
    '"approve", "issue_closure": "ask"}',
}
_INSTANCE = re.compile(r" or instance of \w+")


def user_path(loc: Sequence[int | str]) -> tuple[list[int | str], str | None]:
    """The JSON path of ``loc`` and, when the error is about a key, that key."""
    path: list[int | str] = []
    key: str | None = None
    for part in loc:
        if part == KEY:
            key = str(path.pop()) if path else None
            continue
        if path and (str(path[-1]), part) in INNER_NAMES:
            continue
        path.append(part)
    return path, key


def written(path: Sequence[int | str]) -> str:
    """``[0].auto_accept``: indexes in brackets, names after dots."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)


def user_message(problem: Any) -> tuple[str, str]:
    """Where (a JSON path after ``--specs``) and what, for one pydantic error entry."""
    path, key = user_path(problem["loc"])
    message = _INSTANCE.sub("", str(problem["msg"])).removeprefix("Value error, ")
    message = _sentence(message.replace("a valid dictionary", "an object"))
    if key is not None:
        return written(path), _unknown_key(path, key, message)
    field = str(path[-1]) if path else ""
    if field in EXPECTED and message.startswith("input should be"):
        return written(path), EXPECTED[field]
    if problem["type"] == "extra_forbidden":
        close = suggestion(field, known_fields(path[:-1]))
        message += f" (did you mean {close!r}?)" if close else ""
    return written(path), message


def known_fields(path: Sequence[int | str]) -> list[str]:
    """The field names a spec object at ``path`` (``[0].budgets``) takes; none when the
    path leads anywhere but to a spec's model."""
    model: type[BaseModel] = AgentSpec
    for part in path:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        inner = _model_in(field.annotation) if field is not None else None
        if inner is None:
            return []
        model = inner
    return list(model.model_fields)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds (``Budgets``, ``Budgets | None``, ``list[X]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _sentence(message: str) -> str:
    """pydantic's ``Input should be …`` as the rest of our line: its first word lower case
    (an acronym such as ``MCP`` kept)."""
    if message[1:2].islower():
        return message[:1].lower() + message[1:]
    return message


def _unknown_key(path: Sequence[int | str], key: str, message: str) -> str:
    """A key that is refused: for the auto-accept rules, one that is no checkpoint type."""
    if path and path[-1] == "auto_accept":
        types = [kind.value for kind in CheckpointType]
        close = suggestion(key, types)
        meant = f"; did you mean {close!r}?" if close else ""
        return f"{key!r} is not a checkpoint type{meant} (one of default, {', '.join(types)})"
    return f"key {key!r}: {message}"
