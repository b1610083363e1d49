"""The playbook file and the pure choice of the next answer.

The embedded model is stateless: everything it needs is in the request. The
scenario is the first whose ``match`` regex is found in the system prompt plus
the first user message; the step is the number of assistant turns already in
``messages``. So the same request always gets the same answer, and the CLI's
own retries replay cleanly.

Substitution rule: every string of a step (its text and, recursively, every
string inside its tool inputs) has ``{{name}}`` replaced by the value captured
for ``name``. A string that is *exactly* ``"{{name}}"`` becomes an ``int`` when the
captured text is an integer (``"{{iid}}"`` → ``3``), so tool inputs typed as
integers can come from the prompt. Placeholders whose capture did not match, or
that name no capture, are left as written: the tool call then fails visibly
instead of silently using an empty value.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from agent.assets import asset_path
from common.errors import HarnessError
from common.schemas.base import StrictModel

DEMO_PLAYBOOK = asset_path("demo", "playbook.json")
#: Said wherever a person rejects with feedback the embedded model receives: it answers
#: from its playbook, so a rejection's words change nothing in its next answer.
IGNORES_FEEDBACK = (
    "the embedded model plays a fixed playbook: it gets a rejection's feedback but does "
    "not act on it (a Claude model does)"
)
"""The playbook the embedded model answers from unless a spec names another."""
ONLY_THE_DEMO = (
    "the embedded model only plays the demo; set ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL "
    "to work on your own spec"
)
"""What the embedded model says about any other spec."""
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_INTEGER = re.compile(r"-?\d+")


class PlaybookError(HarnessError):
    """A playbook file is missing, unreadable, not JSON or does not fit its schema."""


class ToolUse(StrictModel):
    """One tool call the model makes."""

    name: str = Field(min_length=1)
    """The tool name as the CLI lists it (``Read``, ``mcp__harness__propose_issues``...)."""
    input: dict[str, Any] = Field(default_factory=dict)
    """The tool input; strings may hold ``{{capture}}`` placeholders."""


class Step(StrictModel):
    """One assistant turn: some text, some tool calls, or both."""

    text: str | None = None
    """Text said before the tool calls."""
    tool_uses: list[ToolUse] = Field(default_factory=list)
    """Tool calls; with any, the turn ends with ``stop_reason`` ``tool_use``."""

    @model_validator(mode="after")
    def _not_empty(self) -> Step:
        if not self.text and not self.tool_uses:
            raise ValueError("a step needs text or tool_uses")
        return self


def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as e:
        raise ValueError(f"invalid regex {pattern!r}: {e}") from e


class Scenario(StrictModel):
    """A scripted session, recognized by a regex over its prompts."""

    name: str = Field(min_length=1)
    """A label for people and for the deterministic tool-use ids."""
    match: str = Field(min_length=1)
    """Python regex, searched in the system prompt plus the first user message."""
    captures: dict[str, str] = Field(default_factory=dict)
    """Placeholder name → regex with exactly one group, searched in the same text."""
    steps: list[Step] = Field(default_factory=list)
    """The assistant turns, in order."""
    final_text: str = "Done."
    """The answer once the steps are used up."""

    @field_validator("match")
    @classmethod
    def _valid_match(cls, value: str) -> str:
        _compile(value)
        return value

    @field_validator("captures")
    @classmethod
    def _valid_captures(cls, value: dict[str, str]) -> dict[str, str]:
        for name, pattern in value.items():
            if not re.fullmatch(r"\w+", name):
                raise ValueError(f"capture name {name!r} must be letters, digits or _")
            if _compile(pattern).groups != 1:
                raise ValueError(f"capture {name!r} must have exactly one group")
        return value


class Playbook(StrictModel):
    """The whole file: scenarios tried in order, and the answer when none fits."""

    schema_version: Literal[1]
    """Format version of this file."""
    scenarios: list[Scenario] = Field(default_factory=list)
    """Tried in file order; the first that matches wins."""
    fallback_text: str = "OK"
    """The answer to requests with no tools (CLI utility calls) or no matching scenario."""
    spec_match: str | None = None
    """A regex the specification must contain for this playbook to play it; ``None``
    plays any. The demo's playbook plays the demo's spec and nothing else."""

    @field_validator("spec_match")
    @classmethod
    def _valid_spec_match(cls, value: str | None) -> str | None:
        if value is not None:
            _compile(value)
        return value

    def plays(self, spec_text: str) -> bool:
        """Whether this playbook has answers for a run on ``spec_text``."""
        return self.spec_match is None or re.search(self.spec_match, spec_text) is not None


class TextBlock(StrictModel):
    """A text content block of an answer."""

    type: Literal["text"] = "text"
    text: str


class ToolUseBlock(StrictModel):
    """A tool_use content block of an answer."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]


class Reply(StrictModel):
    """The chosen answer, before it is put on the wire."""

    content: list[TextBlock | ToolUseBlock]
    scenario: str | None = None
    """The scenario that answered, ``None`` for the fallback."""
    step: int | None = None
    """The step index that answered, ``None`` for the fallback and the final text."""

    @property
    def stop_reason(self) -> Literal["tool_use", "end_turn"]:
        """``tool_use`` when the answer calls a tool, else ``end_turn``."""
        if any(isinstance(block, ToolUseBlock) for block in self.content):
            return "tool_use"
        return "end_turn"


def load_playbook(path: Path) -> Playbook:
    """Read and validate a playbook file.

    Raises:
        PlaybookError: one line naming the file and the problem.
    """
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise PlaybookError(f"{path}: file does not exist") from e
    except (OSError, UnicodeDecodeError) as e:
        raise PlaybookError(f"{path}: cannot read ({e})") from e
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise PlaybookError(f"{path}: not valid JSON ({e})") from e
    try:
        return Playbook.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(root)"
        raise PlaybookError(f"{path}: {where}: {first['msg']} ({e.error_count()} error(s))") from e


def _text_of(content: Any) -> str:
    """The text of a ``system`` value or message content: a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            block["text"]
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ]
        return "\n".join(parts)
    return ""


def prompt_text(request: dict[str, Any]) -> str:
    """The text scenarios are matched against: system prompt plus first user message."""
    parts = [_text_of(request.get("system"))]
    for message in request.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            parts.append(_text_of(message.get("content")))
            break
    return "\n".join(parts)


def step_index(request: dict[str, Any]) -> int:
    """How many assistant turns the conversation already holds."""
    messages = request.get("messages") or []
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


def find_scenario(playbook: Playbook, text: str) -> Scenario | None:
    """The first scenario (in file order) whose ``match`` is found in ``text``."""
    for scenario in playbook.scenarios:
        if re.search(scenario.match, text):
            return scenario
    return None


def capture_values(scenario: Scenario, text: str) -> dict[str, str]:
    """The first group of each capture regex found in ``text``; misses are left out."""
    values: dict[str, str] = {}
    for name, pattern in scenario.captures.items():
        found = re.search(pattern, text)
        if found is not None and found.group(1) is not None:
            values[name] = found.group(1)
    return values


def substitute(value: Any, values: dict[str, str]) -> Any:
    """Replace ``{{name}}`` placeholders in every string of ``value``, recursively.

    A string that is exactly one placeholder whose value is an integer becomes an int.
    """
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole is not None and whole.group(1) in values:
            captured = values[whole.group(1)]
            return int(captured) if _INTEGER.fullmatch(captured) else captured
        return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [substitute(item, values) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, values) for key, item in value.items()}
    return value


def tool_use_id(scenario: Scenario, index: int, position: int) -> str:
    """A deterministic id, unique within a conversation through the step index."""
    step = scenario.steps[index].model_dump_json()
    digest = hashlib.sha256(f"{scenario.name}\n{step}".encode()).hexdigest()[:16]
    return f"toolu_{digest}_{index}_{position}"


def choose_reply(playbook: Playbook, request: dict[str, Any]) -> Reply:
    """The answer to one Messages API request body. Pure and deterministic."""
    fallback = Reply(content=[TextBlock(text=playbook.fallback_text)])
    if not request.get("tools"):
        return fallback
    text = prompt_text(request)
    scenario = find_scenario(playbook, text)
    if scenario is None:
        return fallback
    values = capture_values(scenario, text)
    index = step_index(request)
    if index >= len(scenario.steps):
        final = substitute(scenario.final_text, values)
        return Reply(content=[TextBlock(text=str(final))], scenario=scenario.name)
    step = scenario.steps[index]
    content: list[TextBlock | ToolUseBlock] = []
    if step.text:
        content.append(TextBlock(text=str(substitute(step.text, values))))
    for position, use in enumerate(step.tool_uses):
        content.append(
            ToolUseBlock(
                id=tool_use_id(scenario, index, position),
                name=use.name,
                input=substitute(use.input, values),
            )
        )
    return Reply(content=content, scenario=scenario.name, step=index)
