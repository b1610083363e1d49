"""Python's caches beside a case's files are no part of it (pip compiles every .py it installs)."""

from __future__ import annotations

import compileall
import shutil
from pathlib import Path

from agent.assets import BYTE_CODE, is_byte_code
from agent.eval.cases import CASES_DIR, load_case
from agent.eval.oracle import build_playbook, solution_files


def test_byte_code_is_recognised_and_nothing_else() -> None:
    assert is_byte_code(Path("words/__pycache__/freq.cpython-311.pyc"))
    assert is_byte_code(Path("__pycache__/x.txt"))
    assert is_byte_code(Path("old.pyc"))
    assert not is_byte_code(Path("words/freq.py"))
    assert not is_byte_code(Path("pycache_notes.md"))
    assert BYTE_CODE("/x", ["__pycache__", "a.pyc", "a.py", ".gitignore"]) == {
        "__pycache__",
        "a.pyc",
    }


def test_a_compiled_case_builds_the_same_playbook(tmp_path: Path) -> None:
    """As in an install: the solution's .py files compiled, its playbook unchanged."""
    original = load_case(CASES_DIR / "py-fizzbuzz")
    copy = tmp_path / original.name
    shutil.copytree(original.root, copy, ignore=BYTE_CODE)
    assert compileall.compile_dir(copy, quiet=1)
    assert list(copy.rglob("*.pyc")), "the copy holds byte code now"
    compiled = load_case(copy)

    assert solution_files(compiled) == solution_files(original)
    assert not any(is_byte_code(Path(name)) for name in solution_files(compiled))
    assert build_playbook(compiled) == build_playbook(original)
