"""A glob over links the model made cannot make the judge, in the agent process, walk
millions of paths: ten links to ``.`` and ``ls */*/*/*/*/*`` took 12 s (10^6 paths),
two more levels 20 min and every match in memory."""

from __future__ import annotations

import time
from pathlib import Path

from agent.core.policy import PolicyContext
from agent.core.policy.judge import judge_command
from agent.core.policy.paths import GLOB_BUDGET


def _links(project: Path, count: int = 10) -> None:
    for n in range(count):
        (project / f"a{n}").symlink_to(".")


def test_a_glob_bomb_is_denied_quickly(tmp_path: Path) -> None:
    _links(tmp_path)
    started = time.monotonic()

    verdict = judge_command("ls */*/*/*/*/*/*/*", PolicyContext.for_project(tmp_path))

    # Unbounded, this walk is 10^8 paths (about 20 minutes): half a minute tells the two
    # apart on a loaded machine too (it takes well under a second alone).
    assert time.monotonic() - started < 30
    assert verdict is not None and "matches too many paths" in verdict


def test_an_ordinary_glob_is_judged_as_before(tmp_path: Path) -> None:
    _links(tmp_path, 3)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("x = 1\n")
    context = PolicyContext.for_project(tmp_path)

    assert judge_command("ls */*.py", context) is None
    assert judge_command("cat src/*.py a1/a2/src/*.py", context) is None
    assert judge_command("ls */*/*", context) is None  # 3 + 9 + 27 entries: well in budget
    (tmp_path / "out").symlink_to("/etc")
    assert judge_command("cat */passwd", context) is not None  # a match outside: denied
    assert GLOB_BUDGET >= 10_000


def test_patterns_of_one_command_share_one_budget(tmp_path: Path) -> None:
    """A loop multiplies patterns (200 values, the body judged twice): each one under
    GLOB_BUDGET, together they ran for minutes in the agent; now the command is denied."""
    for folder in range(4):
        package = tmp_path / f"p{folder}"
        package.mkdir()
        for n in range(GLOB_BUDGET // 8):
            (package / f"m{n}.py").touch()
    context = PolicyContext.for_project(tmp_path, sandboxed=True)
    words = " ".join(f"w{n}" for n in range(200))

    assert judge_command("wc -l p*/*.py", context) is None  # one pattern: in budget
    verdict = judge_command(f'for x in {words}; do wc -l p*/*.py "$x"; done', context)

    assert verdict is not None and "too many paths to check" in verdict
