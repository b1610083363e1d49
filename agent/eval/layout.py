"""Laying a case out for a run: its project as a fresh git repository, with an environment.

Python projects get the cached demo environment (pytest) as their ``.venv``, as
the demo does; other languages use the tools on ``PATH`` (node, cargo, go).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from agent.demo_env import ensure_demo_env, link_demo_env
from agent.eval.cases import Case
from common.schemas.spec import LOCAL_MODEL, AgentSpec
from common.workspace import git

_IGNORED = ".venv\n__pycache__/\n.pytest_cache/\nnode_modules/\ntarget/\n"
_AUTHOR = ("-c", "user.name=eval", "-c", "user.email=eval@localhost")


def lay_out(case: Case, root: Path, model: str | None) -> AgentSpec:
    """Copy the case into ``root`` (``project/`` as a git repo on ``main``, ``spec.md``)
    and return the agent spec: file-only, auto-accept, on ``model``.

    ``model`` is a Claude model name, ``None`` for the endpoint's default, or
    :data:`LOCAL_MODEL` for the embedded model (with the case's playbook).
    """
    project = root / case.name
    shutil.copytree(case.project, project)
    gitignore = project / ".gitignore"
    existing = gitignore.read_text() if gitignore.exists() else ""
    gitignore.write_text(existing + _IGNORED)
    if case.spec.language == "python":
        link_demo_env(project, ensure_demo_env())
    git.git(project, "init", "--quiet", "-b", "main")
    git.git(project, "add", "--all")
    git.git(project, *_AUTHOR, "commit", "--quiet", "-m", "the case's starting point")
    spec_file = root / "spec.md"
    shutil.copyfile(case.spec_file, spec_file)
    local = model == LOCAL_MODEL
    return AgentSpec(
        spec_file=spec_file,
        project_dir=project,
        target_branch="main",
        file_only_mode=True,
        auto_accept=True,
        model=model,
        playbook=case.playbook if local else None,
    )
