"""Paths whose content acts with someone else's authority once it leaves the sandbox.

Why these: CI configuration runs with the project's CI secrets; agent and editor
settings (``.claude/``, ``.mcp.json``, ``.vscode/``, ``.envrc``…) run commands on the
user's machine when they open the project, and agent instruction files (``CLAUDE.md``,
``AGENTS.md``) steer the user's own agent; package-manager configuration redirects
where dependencies (and credentials) go; git metadata changes what git runs or shows.
A person decides about each; the list covers the common systems and a spec or
``.harness.json`` can add to it, never take from it.

Pattern syntax (gitignore-like, matched per path component, case-insensitive since a
case-insensitive file system reads ``.Claude/`` as ``.claude/``): a pattern with a
leading or inner ``/`` is anchored at the project's top, otherwise it matches at any
depth; a trailing ``/`` matches only a folder (everything under it); ``*`` and ``?``
never cross a ``/``. Pure: no file system here.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

CI = "CI configuration: it runs with the project's CI secrets"
AGENT = "agent or editor settings: they run on the user's machine when the project is opened"
INSTRUCTIONS = "instructions the user's own coding agent follows"
PACKAGES = "package-manager or tool configuration: it decides where dependencies and tokens go"
GIT = "git metadata: it changes what git runs or shows"
HARNESS = "the harness's settings for this repository"
OWNERS = "code owners: who must review changes"

DEFAULT_PROTECTED: tuple[tuple[str, str], ...] = (
    # CI systems: where each one reads its configuration (top of the project).
    ("/.github/workflows/", CI),
    ("/.github/actions/", CI),
    ("/.gitlab-ci.yml", CI),
    ("/.gitlab/", CI),
    ("/.circleci/", CI),
    ("/Jenkinsfile", CI),
    ("/azure-pipelines.yml", CI),
    ("/azure-pipelines.yaml", CI),
    ("/.azure-pipelines/", CI),
    ("/.travis.yml", CI),
    ("/bitbucket-pipelines.yml", CI),
    ("/.buildkite/", CI),
    ("/.drone.yml", CI),
    ("/.woodpecker.yml", CI),
    ("/.woodpecker/", CI),
    ("/appveyor.yml", CI),
    ("/.appveyor.yml", CI),
    ("/.cirrus.yml", CI),
    ("/.semaphore/", CI),
    ("/cloudbuild.yaml", CI),
    ("/.tekton/", CI),
    ("CODEOWNERS", OWNERS),
    # Agent and editor settings: read wherever the user opens a folder of the project.
    (".claude/", AGENT),
    (".mcp.json", AGENT),
    (".cursor/", AGENT),
    (".cursorrules", INSTRUCTIONS),
    (".vscode/", AGENT),
    (".idea/", AGENT),
    (".devcontainer/", AGENT),
    (".devcontainer.json", AGENT),
    (".continue/", AGENT),
    (".aider.conf.yml", AGENT),
    (".envrc", AGENT),
    ("CLAUDE.md", INSTRUCTIONS),
    ("CLAUDE.local.md", INSTRUCTIONS),
    ("AGENTS.md", INSTRUCTIONS),
    ("GEMINI.md", INSTRUCTIONS),
    ("/.github/copilot-instructions.md", INSTRUCTIONS),
    # Package managers and build tools.
    (".npmrc", PACKAGES),
    (".yarnrc", PACKAGES),
    (".yarnrc.yml", PACKAGES),
    (".pnpmrc", PACKAGES),
    (".bowerrc", PACKAGES),
    (".pypirc", PACKAGES),
    ("pip.conf", PACKAGES),
    ("pip.ini", PACKAGES),
    (".pydistutils.cfg", PACKAGES),
    ("uv.toml", PACKAGES),
    (".condarc", PACKAGES),
    (".cargo/config", PACKAGES),
    (".cargo/config.toml", PACKAGES),
    (".bundle/config", PACKAGES),
    (".gemrc", PACKAGES),
    ("nuget.config", PACKAGES),
    (".mvn/", PACKAGES),
    ("gradle/wrapper/", PACKAGES),
    # Git metadata.
    (".gitmodules", GIT),
    (".gitattributes", GIT),
    ("/.githooks/", GIT),
    ("/.husky/", GIT),
    ("/.pre-commit-config.yaml", GIT),
    ("/lefthook.yml", GIT),
    ("/.lefthook.yml", GIT),
    ("/.harness.json", HARNESS),
)

SPEC = "protected by the spec or .harness.json"


def matches(pattern: str, path: str) -> bool:
    """Whether ``path`` (``/``-separated, relative to the project) falls under ``pattern``."""
    folder_only = pattern.endswith("/")
    body = pattern.strip("/")
    if not body:
        return False
    anchored = pattern.startswith("/") or "/" in body
    wanted = body.lower().split("/")
    parts = path.strip("/").lower().split("/")
    starts = [0] if anchored else range(len(parts))
    for start in starts:
        window = parts[start : start + len(wanted)]
        if len(window) < len(wanted):
            continue
        if all(fnmatchcase(part, want) for part, want in zip(window, wanted, strict=True)):
            inside = len(parts) > start + len(wanted)
            if inside or not folder_only:
                return True
    return False


def protected_reason(path: str, extra: Iterable[str] = ()) -> str | None:
    """Why ``path`` is protected (the first rule that holds), or ``None``."""
    for pattern, why in DEFAULT_PROTECTED:
        if matches(pattern, path):
            return f"{why} ({pattern.strip('/')})"
    for pattern in extra:
        if matches(pattern, path):
            return f"{SPEC} ({pattern})"
    return None
