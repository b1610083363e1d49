"""Auto-accept rules: per checkpoint type, approve with the default or ask a person.

One model for the spec (``"auto_accept": true | false | {"default": …, "<type>": …}``),
the workspace (signed by a client, :mod:`common.decision_mac`), the protocol and the
CLI's text (``on``, ``off``, ``issue_closure=ask,default=approve``). A bool, as every
spec and workspace written before the rules existed holds, reads as "every type the
same": ``true`` approves, ``false`` asks.

The rules only say what a person is willing to let go; some checkpoints always ask
whatever they say (:func:`common.workspace.decisions.waits_for_person`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_serializer, model_validator

from common.errors import HarnessError
from common.schemas.base import StrictModel
from common.schemas.checkpoint_type import CheckpointType

Answer = Literal["approve", "ask"]
ANSWERS: tuple[Answer, ...] = ("approve", "ask")
DEFAULT_KEY = "default"


class AutoAcceptRulesError(HarnessError):
    """The CLI's text for the rules names an unknown type or answer."""


class AutoAcceptRules(StrictModel):
    """What auto-accept answers for each checkpoint type.

    Stored flat, as a person writes it in a spec: ``{"default": "approve",
    "issue_closure": "ask"}``. An entry equal to the default is dropped, so equal rules
    have one form (the one the MAC signs).
    """

    default: Answer = "ask"
    """The answer for every type not named."""
    types: dict[CheckpointType, Answer] = Field(default_factory=dict)
    """The types whose answer differs from ``default``."""

    @model_validator(mode="before")
    @classmethod
    def _from_bool_or_flat(cls, data: Any) -> Any:
        """``true``/``false`` (the old switch) and the flat spec form."""
        if isinstance(data, bool):
            return {"default": "approve" if data else "ask"}
        if isinstance(data, dict) and "types" not in data:
            flat = dict(data)
            default = flat.pop(DEFAULT_KEY, "ask")
            return {"default": default, "types": flat}
        return data

    @model_validator(mode="after")
    def _canonical(self) -> AutoAcceptRules:
        """Drop entries that say what the default says (one form per meaning)."""
        differing = {kind: answer for kind, answer in self.types.items() if answer != self.default}
        if differing != self.types:
            object.__setattr__(self, "types", differing)
        return self

    @model_serializer(mode="plain")
    def _flat(self) -> dict[str, str]:
        entries = {kind.value: answer for kind, answer in sorted(self.types.items())}
        return {DEFAULT_KEY: self.default, **entries}

    @classmethod
    def on(cls) -> AutoAcceptRules:
        """Every checkpoint approved with its default (the old switch on)."""
        return cls(default="approve")

    @classmethod
    def off(cls) -> AutoAcceptRules:
        """Every checkpoint asks a person (the old switch off, the default)."""
        return cls(default="ask")

    def __bool__(self) -> bool:
        """True when some type may be approved without a person, as the old switch was
        true when on: ``if spec.auto_accept`` keeps its meaning."""
        return self.approves_any

    @property
    def uniform(self) -> bool:
        """Every type answered alike (what the old bool could say)."""
        return not self.types

    @property
    def approves_any(self) -> bool:
        """Some checkpoint type may be answered without a person."""
        return self.default == "approve" or "approve" in self.types.values()

    def for_type(self, kind: CheckpointType) -> tuple[Answer, str]:
        """The answer for ``kind`` and the rule that gives it, as the decision records it
        (``auto-accept: issue_closure=approve`` or ``auto-accept: default=approve``)."""
        if kind in self.types:
            answer = self.types[kind]
            return answer, f"auto-accept: {kind.value}={answer}"
        return self.default, f"auto-accept: {DEFAULT_KEY}={self.default}"

    def text(self) -> str:
        """The rules as the CLI takes them: ``default=approve,issue_closure=ask``."""
        return ",".join(f"{key}={answer}" for key, answer in self.model_dump().items())

    def compact(self) -> str:
        """For a list column: ``AUTO``, ``HITL``, ``AUTO except issue_closure``."""
        head = "AUTO" if self.default == "approve" else "HITL"
        if not self.types:
            return head
        return f"{head} except {','.join(sorted(kind.value for kind in self.types))}"

    def with_answer(self, kind: CheckpointType, answer: Answer) -> AutoAcceptRules:
        """These rules with ``kind`` answered ``answer``."""
        return AutoAcceptRules(default=self.default, types={**self.types, kind: answer})

    def with_default(self, answer: Answer) -> AutoAcceptRules:
        """These rules with ``answer`` for every type not named (named types keep theirs)."""
        named = {kind: self.for_type(kind)[0] for kind in self.types}
        return AutoAcceptRules(default=answer, types=named)


def parse_rules(text: str, current: AutoAcceptRules | None = None) -> AutoAcceptRules:
    """The rules the CLI's ``text`` asks for.

    Comma-separated entries, applied in order on top of ``current`` (the rules in force;
    none: every type asks): ``on`` and ``off`` replace every rule (``on,issue_closure=ask``
    reads as a whole), ``TYPE=approve|ask`` sets one type, ``default=…`` the others.

    Raises:
        AutoAcceptRulesError: an unknown type or answer, or an entry without ``=``
            (one line naming what is accepted).
    """
    rules = current if current is not None else AutoAcceptRules.off()
    entries = [entry.strip() for entry in text.split(",") if entry.strip()]
    if not entries:
        raise AutoAcceptRulesError("auto-accept takes on, off or TYPE=approve|ask,…")
    for entry in entries:
        if entry in ("on", "off"):
            rules = AutoAcceptRules.on() if entry == "on" else AutoAcceptRules.off()
            continue
        key, equals, answer = (part.strip() for part in entry.partition("="))
        if not equals:
            raise AutoAcceptRulesError(
                f"{entry!r} is not on, off or TYPE=approve|ask (e.g. issue_closure=ask)"
            )
        if answer not in ANSWERS:
            raise AutoAcceptRulesError(f"{entry!r}: the answer is approve or ask, not {answer!r}")
        chosen: Answer = "approve" if answer == "approve" else "ask"
        if key == DEFAULT_KEY:
            rules = rules.with_default(chosen)
            continue
        try:
            kind = CheckpointType(key)
        except ValueError:
            known = ", ".join([DEFAULT_KEY, *(kind.value for kind in CheckpointType)])
            raise AutoAcceptRulesError(
                f"{key!r} is not a checkpoint type; one of: {known}"
            ) from None
        rules = rules.with_answer(kind, chosen)
    return rules
