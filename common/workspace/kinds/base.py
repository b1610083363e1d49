"""What a checkpoint type is to the harness: the one contract each type's module fills in.

Every rule that differs by checkpoint type (what auto-accept answers, whether a person
must answer, how a ``--choice`` reads, what a reject means and who reads its reason,
the labels of approve and reject, the type's lines in ``harness checkpoint``, the diff
it carries) is a method or attribute here, so one module per type holds all of its
rules and the generic code (:mod:`~common.workspace.decisions`,
:mod:`~common.workspace.render`, :mod:`~common.workspace.rejecting`,
:mod:`~common.workspace.diff_text`, the TUI) only looks the type up.

Two layers, so the type checker covers both the lookup and each type's own code:
:class:`CheckpointKind` is what the registry holds (it takes any checkpoint);
:class:`KindRules` is the base a type's module subclasses, whose hooks receive the
checkpoint already narrowed to that type's model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Generic, Protocol, TypeVar

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
    CheckpointBase,
    CheckpointType,
    Decision,
)
from common.schemas.long_lines import LongLines

#: Where a reject's reason goes when the model never reads it (short: it fits an 80-column box).
NEVER_READ = "logged with your decision; the model never reads it"

ModelT = TypeVar("ModelT", bound=CheckpointBase)


@dataclass(frozen=True)
class CarriedDiff:
    """The diff a checkpoint carries, as stored (the generic code splits and escapes it)."""

    stat: str
    """``git diff --stat`` (its last line is shown)."""
    text: str
    """The unified diff, possibly cut."""
    cut_at: int | None = None
    """Where ``text`` was cut (characters), ``None`` when whole."""
    whole: str = ""
    """The git command that shows the whole diff in the project (said when cut)."""
    long_lines: LongLines | None = None
    """The lines to read whole, as the harness counted them over the whole diff
    (``None``: not counted when the checkpoint was written; counted on ``text``)."""


class CheckpointKind(Protocol):
    """One checkpoint type's rules, for any checkpoint (what :data:`KINDS` holds).

    Every method raises :class:`TypeError` when given a checkpoint of another type:
    the generic code always looks the kind up by the checkpoint's own type.
    """

    @property
    def checkpoint_type(self) -> CheckpointType:
        """The checkpoint type these rules are for."""
        ...

    @property
    def model(self) -> type[CheckpointBase]:
        """The checkpoint's schema class."""
        ...

    @property
    def reason_use(self) -> str:
        """What happens to the reason a person gives with a reject (who reads it)."""
        ...

    @property
    def reject_blocked(self) -> str | None:
        """Why a plain reject is not allowed here; ``None`` where it is."""
        ...

    @property
    def always_asks(self) -> bool:
        """Whether every checkpoint of this type waits for a person (no rule answers it)."""
        ...

    @property
    def asks_anyway(self) -> str:
        """When a person is asked though a rule says approve, in a few words (``always
        asks a person``, ``asks if a change is flagged``); empty: the rules decide."""
        ...

    def waits_for_person(self, checkpoint: CheckpointBase) -> list[str]:
        """Why auto-accept must not answer (empty: it may)."""
        ...

    def default_decision(self, checkpoint: CheckpointBase, decided_by: str) -> AnyDecision:
        """The approve with the default (auto-accept, the Y key)."""
        ...

    def reject_decision(
        self, checkpoint: CheckpointBase, decided_by: str, reason: str | None
    ) -> AnyDecision:
        """A plain reject (the N key). Raises :class:`CheckpointError` where there is none."""
        ...

    def choice_decision(
        self, checkpoint: CheckpointBase, choice: str, decided_by: str, reason: str | None
    ) -> AnyDecision:
        """An approve with an explicit choice given as text (``--choice``).

        Raises:
            CheckpointError: the choice does not fit (one line saying what would).
        """
        ...

    def approve_label(self, checkpoint: CheckpointBase) -> str:
        """What approving with the default does, in a few words."""
        ...

    def reject_label(self, checkpoint: CheckpointBase) -> str | None:
        """What a plain reject does, in a few words; ``None`` where it is blocked."""
        ...

    def context_lines(self, checkpoint: CheckpointBase) -> list[str]:
        """The type's own lines of ``harness checkpoint`` (every value escaped)."""
        ...

    def approve_note(self, checkpoint: CheckpointBase) -> str:
        """Said after the plain ``harness approve`` command (empty: nothing)."""
        ...

    def choice_hints(self, checkpoint: CheckpointBase, agent: str) -> list[str]:
        """``harness approve AGENT --choice …`` lines (``agent`` already shell-quoted)."""
        ...

    def diff(self, checkpoint: CheckpointBase) -> CarriedDiff | None:
        """The diff the checkpoint carries; ``None`` when it carries none."""
        ...

    def issue(self, checkpoint: CheckpointBase) -> int | None:
        """The issue the checkpoint is about, as its context names it (``None``: no one
        issue, or a context that does not say; see
        :func:`common.workspace.checkpoint_issue.issue_of`)."""
        ...


class KindRules(Generic[ModelT]):
    """The base of each type's rules: the defaults most types share, and the narrowing.

    A type's module subclasses it, sets :attr:`checkpoint_type` and what differs, overrides
    the ``_hooks`` (which receive the checkpoint as the type's own model) and makes its one
    instance with that model: ``KIND = IssueClosureKind(IssueClosureCheckpoint)``.
    """

    checkpoint_type: ClassVar[CheckpointType]
    reason_use: ClassVar[str] = NEVER_READ
    reject_blocked: ClassVar[str | None] = None
    reject_text: ClassVar[str] = "reject"
    """The reject label when it does not depend on the checkpoint."""
    always_asks: ClassVar[bool] = False
    asks_anyway: ClassVar[str] = ""

    def __init__(self, model: type[ModelT]) -> None:
        self.model: type[ModelT] = model

    def own(self, checkpoint: CheckpointBase) -> ModelT:
        """``checkpoint`` as this type's model.

        Raises:
            TypeError: a checkpoint of another type (a bug in the lookup, never input).
        """
        if not isinstance(checkpoint, self.model):
            raise TypeError(
                f"{type(checkpoint).__name__} is not a {self.checkpoint_type.value} checkpoint"
            )
        return checkpoint

    # --- the public side (CheckpointKind): narrow, then call the hook ----------------------

    def waits_for_person(self, checkpoint: CheckpointBase) -> list[str]:
        return self._waits_for_person(self.own(checkpoint))

    def default_decision(self, checkpoint: CheckpointBase, decided_by: str) -> AnyDecision:
        return self._default(self.own(checkpoint), decided_by)

    def reject_decision(
        self, checkpoint: CheckpointBase, decided_by: str, reason: str | None
    ) -> AnyDecision:
        return self._reject(self.own(checkpoint), decided_by, reason)

    def choice_decision(
        self, checkpoint: CheckpointBase, choice: str, decided_by: str, reason: str | None
    ) -> AnyDecision:
        return self._choice(self.own(checkpoint), choice, decided_by, reason)

    def approve_label(self, checkpoint: CheckpointBase) -> str:
        return self._approve_label(self.own(checkpoint))

    def reject_label(self, checkpoint: CheckpointBase) -> str | None:
        self.own(checkpoint)
        return None if self.reject_blocked is not None else self.reject_text

    def context_lines(self, checkpoint: CheckpointBase) -> list[str]:
        return self._context_lines(self.own(checkpoint))

    def approve_note(self, checkpoint: CheckpointBase) -> str:
        return self._approve_note(self.own(checkpoint))

    def choice_hints(self, checkpoint: CheckpointBase, agent: str) -> list[str]:
        return self._choice_hints(self.own(checkpoint), agent)

    def diff(self, checkpoint: CheckpointBase) -> CarriedDiff | None:
        return self._diff(self.own(checkpoint))

    def issue(self, checkpoint: CheckpointBase) -> int | None:
        return self._issue(self.own(checkpoint))

    # --- the hooks: what most types do ------------------------------------------------------

    def _waits_for_person(self, checkpoint: ModelT) -> list[str]:
        return []

    def _default(self, checkpoint: ModelT, decided_by: str) -> AnyDecision:
        return Decision(approved=True, decided_by=decided_by)

    def _reject(self, checkpoint: ModelT, decided_by: str, reason: str | None) -> AnyDecision:
        return Decision(approved=False, decided_by=decided_by, reason=reason)

    def _choice(
        self, checkpoint: ModelT, choice: str, decided_by: str, reason: str | None
    ) -> AnyDecision:
        raise CheckpointError(f"{self.checkpoint_type.value} takes no choice; approve or reject it")

    def _approve_label(self, checkpoint: ModelT) -> str:
        return "approve"

    def _context_lines(self, checkpoint: ModelT) -> list[str]:
        return []

    def _approve_note(self, checkpoint: ModelT) -> str:
        return ""

    def _choice_hints(self, checkpoint: ModelT, agent: str) -> list[str]:
        return []

    def _diff(self, checkpoint: ModelT) -> CarriedDiff | None:
        return None

    def _issue(self, checkpoint: ModelT) -> int | None:
        return None


def parse_iids(
    text: str,
    among: set[int] | None = None,
    unknown: Callable[[list[int], list[int]], str] | None = None,
) -> list[int]:
    """``1, #3`` as issue numbers (empty text: none), each one of ``among`` when given.

    Raises:
        CheckpointError: not a list of numbers, or (``unknown(found, known)`` saying so) a
            number not in ``among``.
    """
    parts = [part.strip().lstrip("#") for part in text.split(",") if part.strip()]
    try:
        iids = [int(part) for part in parts]
    except ValueError as e:
        raise CheckpointError(f"expected issue numbers like 1,3 — got {text!r}") from e
    strays = sorted(set(iids) - among) if among is not None else []
    if strays:
        known = sorted(among or ())
        raise CheckpointError(
            unknown(strays, known) if unknown else f"unknown issue(s) {strays}; known: {known}"
        )
    return iids
