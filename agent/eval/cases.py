"""Finding and reading eval cases (``agent/assets/evals/cases/<name>/case.json``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from agent.assets import asset_path
from common.errors import HarnessError
from common.schemas.eval_case import EvalCase

CASES_DIR = asset_path("evals", "cases")
"""The suite that comes with the harness."""


class EvalError(HarnessError):
    """A case folder is malformed, or the suite cannot run."""


@dataclass(frozen=True)
class Case:
    """One case: its folder and what ``case.json`` says."""

    name: str
    root: Path
    spec: EvalCase

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def spec_file(self) -> Path:
        return self.root / "spec.md"

    @property
    def hidden_tests(self) -> Path:
        return self.root / "hidden_tests"

    @property
    def solution(self) -> Path:
        return self.root / "solution"

    @property
    def playbook(self) -> Path | None:
        return self.root / self.spec.playbook if self.spec.playbook else None


def load_case(root: Path) -> Case:
    """Read one case folder.

    Raises:
        EvalError: ``case.json`` is missing or invalid, or a required part is missing.
    """
    try:
        spec = EvalCase.model_validate_json((root / "case.json").read_text(encoding="utf-8"))
    except OSError as e:
        raise EvalError(f"{root}: cannot read case.json ({e.strerror})") from e
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(root)"
        raise EvalError(f"{root}/case.json: {where}: {first['msg']}") from e
    case = Case(root.name, root, spec)
    for part in (case.project, case.spec_file, case.hidden_tests):
        if not part.exists():
            raise EvalError(f"case {case.name}: {part.name} is missing")
    return case


def load_cases(folder: Path, only: list[str] | None = None) -> list[Case]:
    """Every case under ``folder`` (sorted by name), or the ``only`` ones.

    Raises:
        EvalError: no such folder, no cases, an unknown name, or a malformed case.
    """
    if not folder.is_dir():
        raise EvalError(f"{folder} is not a folder of eval cases")
    cases = [load_case(p) for p in sorted(folder.iterdir()) if (p / "case.json").is_file()]
    if only:
        known = {case.name for case in cases}
        unknown = [name for name in only if name not in known]
        if unknown:
            raise EvalError(f"no case named {', '.join(unknown)} in {folder}")
        cases = [case for case in cases if case.name in only]
    if not cases:
        raise EvalError(f"{folder} holds no eval case (no */case.json)")
    return cases
