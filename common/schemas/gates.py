"""Results of the quality gates the harness itself runs (never the model's word)."""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel


class TestRun(StrictModel):
    """One run of the project's test command."""

    __test__ = False  # not a pytest test class

    command: str
    exit_code: int
    duration_s: float = Field(ge=0)
    summary: str
    """The runner's closing line, e.g. ``5 passed in 0.03s``."""
    failed_tests: list[str] = Field(default_factory=list)
    output_tail: str = ""
    """The last lines of the output, for a reviewer."""

    @property
    def passed(self) -> bool:
        """Exit status 0 is the only pass."""
        return self.exit_code == 0
