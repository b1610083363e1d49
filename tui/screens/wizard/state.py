"""What the setup wizard collects, and the defaults that let a person go through with Enter."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from common.schemas.spec import LOCAL_MODEL, AgentSpec

#: Any of these means a real Claude model can be reached.
CREDENTIALS = ("CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")


@dataclass(frozen=True)
class WizardDefaults:
    """Where the wizard starts and what it proposes."""

    start_dir: Path
    """The folder the repository browser opens on: the last repository used, else home."""
    model: str = ""
    """Empty: ``CLAUDE_MODEL`` (or the SDK's default); ``local``: the embedded model."""
    file_only_mode: bool = True
    has_claude: bool = False
    """Claude credentials are set; without them only the demo can run (on the embedded model)."""

    @classmethod
    def from_environment(
        cls,
        environ: Mapping[str, str] | None = None,
        last_repository: Path | None = None,
        home: Path | None = None,
    ) -> WizardDefaults:
        """Defaults that work here: no GitLab token means file-only; no Claude, no model yet
        (the embedded model is proposed only once the demo's spec is chosen)."""
        env = os.environ if environ is None else environ
        has_claude = any(env.get(name) for name in CREDENTIALS)
        start = (
            last_repository if last_repository is not None and last_repository.is_dir() else None
        )
        return cls(
            start_dir=start or home or Path.home(),
            model=env.get("CLAUDE_MODEL", "") if has_claude else "",
            file_only_mode=not env.get("GITLAB_PERSONAL_ACCESS_TOKEN"),
            has_claude=has_claude,
        )


@dataclass
class WizardState:
    """The answers so far; each step reads its defaults from here and writes its answer back."""

    defaults: WizardDefaults
    repository: Path | None = None
    uncommitted: list[str] = field(default_factory=list)
    """The repository's uncommitted changes when it was picked (the agent never commits them)."""
    spec_file: Path | None = None
    target_branch: str | None = None
    file_only_mode: bool | None = None
    """``None`` until set: then the default from the environment."""
    skip_mr_creation: bool = False
    skip_puppeteer: bool = False
    skip_test_suite: bool = False
    skip_regression: bool = False
    max_iterations: int | None = None
    model: str | None = None
    auto_accept: bool = False
    plays_demo: bool = False
    """The chosen spec is the demo's: the only one the embedded model can play."""

    def choose_spec(self, spec_file: Path, *, plays_demo: bool) -> None:
        """Record the spec; the embedded model is proposed for the demo only."""
        self.spec_file = spec_file
        self.plays_demo = plays_demo
        if plays_demo and not self.defaults.has_claude and not self.model:
            self.model = LOCAL_MODEL
        elif not plays_demo and self.model == LOCAL_MODEL:
            self.model = "" if self.defaults.model == LOCAL_MODEL else self.defaults.model

    def __post_init__(self) -> None:
        if self.file_only_mode is None:
            self.file_only_mode = self.defaults.file_only_mode
        if self.model is None:
            self.model = self.defaults.model

    def to_spec(self) -> AgentSpec:
        """The spec the daemon is asked to start.

        Raises:
            ValueError: a step was skipped (the wizard's flow does not allow that).
        """
        if self.repository is None or self.spec_file is None or self.target_branch is None:
            raise ValueError("the wizard has not collected a repository, spec and branch")
        return AgentSpec(
            spec_file=self.spec_file,
            project_dir=self.repository,
            target_branch=self.target_branch,
            max_iterations=self.max_iterations,
            model=self.model or None,
            auto_accept=self.auto_accept,
            file_only_mode=bool(self.file_only_mode),
            skip_mr_creation=self.skip_mr_creation,
            skip_puppeteer=self.skip_puppeteer,
            skip_test_suite=self.skip_test_suite,
            skip_regression=self.skip_regression,
        )
