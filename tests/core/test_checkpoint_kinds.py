"""Each checkpoint type's rules live in one module, found through one registry.

Adding a type is one module in ``common/workspace/kinds`` and one line in ``KINDS``;
these tests hold the registry to exactly one entry per type, each module to its type,
and the generic code (decisions, render, rejecting, diff) to looking the type up
instead of choosing by type itself.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

from common.errors import CheckpointError
from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.workspace import kinds
from common.workspace.decisions import reject_decision
from common.workspace.kinds import KINDS, kind_of
from common.workspace.kinds.base import NEVER_READ
from common.workspace.render import render_checkpoint
from tests.core.checkpoint_samples import every_type

REPO = Path(__file__).resolve().parents[2]
#: The modules of the package that hold no type's rules.
SHARED = {"base", "lines"}
#: The generic code that must look a type up, never pick by type itself.
GENERIC = [
    "common/workspace/decisions.py",
    "common/workspace/render.py",
    "common/workspace/rejecting.py",
    "common/workspace/diff_text.py",
    "tui/modals/checkpoint_text.py",
    "tui/modals/review/__init__.py",
]
#: The union and the base every checkpoint class shares: naming them is not picking a type.
GENERIC_NAMES = {"Checkpoint", "CheckpointBase", "CheckpointType"}


def test_every_checkpoint_type_has_exactly_one_kind() -> None:
    assert sorted(KINDS) == sorted(CheckpointType)
    for checkpoint_type, kind in KINDS.items():
        assert kind.checkpoint_type is checkpoint_type
        assert kind.model.model_fields["type"].default is checkpoint_type
    assert len({id(kind) for kind in KINDS.values()}) == len(CheckpointType)


def test_each_type_has_its_own_module_holding_its_rules() -> None:
    names = {info.name for info in pkgutil.iter_modules(kinds.__path__)} - SHARED
    assert names == {checkpoint_type.value for checkpoint_type in CheckpointType}
    for name in names:
        module = importlib.import_module(f"common.workspace.kinds.{name}")
        assert module.KIND is KINDS[CheckpointType(name)]


@pytest.mark.parametrize("checkpoint", every_type(), ids=lambda c: c.type.value)
def test_the_lookup_finds_the_checkpoints_own_type(checkpoint: Checkpoint) -> None:
    assert kind_of(checkpoint) is KINDS[checkpoint.type]
    assert isinstance(checkpoint, kind_of(checkpoint).model)


@pytest.mark.parametrize("kind", list(CheckpointType), ids=str)
def test_a_kind_refuses_a_checkpoint_of_another_type(kind: CheckpointType) -> None:
    """A lookup bug fails loudly, never answers one type's checkpoint by another's rules."""
    other = next(sample for sample in every_type() if sample.type is not kind)
    rules = KINDS[kind]
    with pytest.raises(TypeError, match=f"not a {kind.value} checkpoint"):
        rules.default_decision(other, "tui:ada")
    with pytest.raises(TypeError):
        rules.context_lines(other)


@pytest.mark.parametrize("checkpoint", every_type(), ids=lambda c: c.type.value)
def test_the_reject_label_the_reject_and_the_hints_agree(checkpoint: Checkpoint) -> None:
    """Where a kind blocks the plain reject, no view offers one and the decision refuses
    it; everywhere else the label names it and the reject is a rejected decision."""
    kind = kind_of(checkpoint)
    shown = render_checkpoint(checkpoint, agent="agent_1")
    if kind.reject_blocked is not None:
        assert kind.reject_label(checkpoint) is None
        with pytest.raises(CheckpointError, match="cannot be rejected"):
            reject_decision(checkpoint, "tui:ada", "no")
        assert "harness reject" not in shown
        assert f"({kind.reject_blocked})" in shown
    else:
        assert (kind.reject_label(checkpoint) or "").startswith("reject")
        assert not reject_decision(checkpoint, "tui:ada", "no").approved
        assert "harness reject agent_1 --reason TEXT" in shown


def test_who_reads_a_reject_reason_is_said_for_every_type() -> None:
    """The model reads the reason exactly where its next session is given it as feedback."""
    read = {t for t, kind in KINDS.items() if "reads this" in kind.reason_use}
    assert read == {
        CheckpointType.SPEC_TO_ISSUES,
        CheckpointType.ISSUE_CLOSURE,
        CheckpointType.MR_REVIEW,
    }
    for checkpoint_type, kind in KINDS.items():
        if checkpoint_type not in read:
            assert kind.reason_use == NEVER_READ or "the model never reads it" in kind.reason_use


@pytest.mark.parametrize("path", GENERIC)
def test_the_generic_code_picks_no_type_itself(path: str) -> None:
    tree = ast.parse((REPO / path).read_text(), path)
    matches = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Match)]
    assert not matches, f"{path}: a match statement at line(s) {matches}"
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "common.schemas.checkpoint"
        for alias in node.names
    }
    assert not {name for name in imported if name.endswith("Checkpoint")} - GENERIC_NAMES
