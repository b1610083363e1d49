"""Validate a spec and lay out (or find again) its agent workspace.

The daemon calls :func:`prepare_workspace` before spawning an agent, so a bad
spec is refused with one line and nothing half-written.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from common import decision_mac
from common.atomic import locked, read_model, read_model_or_none, write_model
from common.errors import SpecError
from common.paths import WORKSPACE_ROOT_NAME, WorkspaceFiles, numbered_workspace, spec_slug
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.spec import AgentSpec
from common.schemas.workspace import WorkspaceInfo
from common.workspace import git
from common.workspace.spec_text import spec_text_problem


def validate_spec(spec: AgentSpec) -> None:
    """Check that the spec points at real things.

    Raises:
        SpecError: the spec file is missing or not text, the project is not a git
            repository, or the target branch does not exist.
    """
    if not spec.spec_file.is_file():
        raise SpecError(f"spec_file {spec.spec_file} does not exist")
    problem = spec_text_problem(spec.spec_file)
    if problem is not None:
        raise SpecError(problem)
    if not spec.project_dir.is_dir():
        raise SpecError(f"project_dir {spec.project_dir} does not exist")
    if not git.is_repository_root(spec.project_dir):
        raise SpecError(f"project_dir {spec.project_dir} is not a git repository (no .git)")
    if not git.branch_exists(spec.project_dir, spec.target_branch):
        known = ", ".join(git.branches(spec.project_dir)) or "none"
        raise SpecError(
            f"target_branch {spec.target_branch!r} does not exist in {spec.project_dir} "
            f"(branches: {known})"
        )
    if spec.playbook is not None and not spec.playbook.is_file():
        raise SpecError(f"playbook {spec.playbook} does not exist")


def feature_branch_name(spec: AgentSpec, number: int = 1) -> str:
    """``feature/<spec-slug>``: one branch per spec, ``feature/<spec-slug>-N`` for its
    N-th workspace (a fresh run does not build on the commits of an earlier one)."""
    suffix = f"-{number}" if number > 1 else ""
    return f"feature/{spec_slug(spec.spec_file)}{suffix}"


def prepare_workspace(spec: AgentSpec, number: int = 1) -> Path:
    """Validate ``spec`` and create its ``number``-th workspace; an existing one is kept.

    Returns:
        The workspace folder.
    """
    validate_spec(spec)
    root = numbered_workspace(spec.project_dir, spec.spec_file, number)
    files = WorkspaceFiles(root)
    files.logs.mkdir(parents=True, exist_ok=True)
    git.exclude_path(spec.project_dir, f"/{WORKSPACE_ROOT_NAME}/")
    if not files.spec_copy.exists():
        shutil.copyfile(spec.spec_file, files.spec_copy)
    existing = read_model_or_none(files.info, WorkspaceInfo)
    if existing is None:
        rules = AutoAcceptRules.model_validate(spec.auto_accept)
        info = WorkspaceInfo(
            spec=spec,
            spec_slug=spec_slug(spec.spec_file),
            feature_branch=feature_branch_name(spec, number),
            auto_accept=rules,
            auto_accept_mac=decision_mac.sign_auto_accept(decision_mac.load_key(), root, rules, 0),
        )
        write_model(files.info, info)
    return root


def load_info(root: Path) -> WorkspaceInfo:
    """Read ``.workspace_info.json`` of a workspace."""
    return read_model(WorkspaceFiles(root).info, WorkspaceInfo)


def set_auto_accept(root: Path, rules: AutoAcceptRules | bool) -> WorkspaceInfo:
    """Set one agent's auto-accept rules (``True``/``False``: all or none); they apply
    from the next checkpoint.

    Only clients call this (the daemon for ``harness auto-accept`` and the TUI): the
    rules are signed with the decision key, so the agent trusts them.
    """
    chosen = AutoAcceptRules.model_validate(rules)
    files = WorkspaceFiles(root)
    key = decision_mac.load_key()
    with locked(files.info_lock):
        info = read_model(files.info, WorkspaceInfo)
        serial = info.auto_accept_serial + 1
        updated = info.model_copy(
            update={
                "auto_accept": chosen,
                "auto_accept_serial": serial,
                "auto_accept_mac": decision_mac.sign_auto_accept(key, root, chosen, serial),
            }
        )
        write_model(files.info, updated)
    return updated
