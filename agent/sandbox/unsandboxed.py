"""Limits without the sandbox: the launcher in front of the bundled CLI and of the gates.

Why: ``"sandbox": false`` takes the walls away, not the bounds. A session or gate still
must not fill the RAM, fork without end or leave its processes running on the host (the
browser replay's served app was found running an hour after its replay), so the launcher
(:mod:`agent.sandbox.enter`) stands in front of the bundled CLI and of every gate's
shell, with the same limits as in the sandbox (no tmpfs of its own to size or watch).
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.sandbox.limits import Entry
from agent.sandbox.protected import PRIVATE_PREFIX
from agent.sandbox.session_plan import bundled_cli, write_wrapper


@dataclass(frozen=True)
class LimitsWrap:
    """A gate's command behind the launcher, unsandboxed (a ``CommandWrap`` of the gates)."""

    entry: Entry

    def __call__(
        self,
        command: Sequence[str],
        work_tree: Path | None = None,
        *,
        overlay: Path | None = None,
    ) -> list[str]:
        """``command`` behind the launcher; the work tree and an overlay view change
        nothing here (no sandbox binds them: the command runs where it is started)."""
        return [*self.entry.argv("gate", subreaper=True), *command]


@contextlib.contextmanager
def private_folder() -> Iterator[Path]:
    """A 0700 folder of the agent's for the CLI wrapper and the launchers' reports."""
    private = Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX))
    try:
        yield private
    finally:
        shutil.rmtree(private, ignore_errors=True)


def limits_only_cli(entry: Entry, private: Path) -> Path:
    """A wrapper in ``private`` that starts the bundled CLI behind the launcher."""
    wrapper = private / "claude"
    write_wrapper(wrapper, [*entry.argv("session", subreaper=True), str(bundled_cli())])
    return wrapper
