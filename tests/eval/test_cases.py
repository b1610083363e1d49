"""The suite itself: 20+ well-formed cases whose oracle solutions pass their hidden tests."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from agent.eval.cases import CASES_DIR, Case, EvalError, load_case, load_cases
from agent.eval.layout import lay_out
from agent.eval.oracle import build_playbook
from agent.eval.score import score
from agent.model.playbook import load_playbook
from common.schemas.spec import LOCAL_MODEL

CASES = load_cases(CASES_DIR)
TOOLCHAINS = {"javascript": "node", "rust": "cargo", "go": "go"}
REAL_HOME = Path.home()
"""Read before the autouse fixture moves HOME: rustup finds its toolchains from it."""


def keep_toolchains(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point rustup and cargo at the machine's toolchains while HOME is a temp folder."""
    for variable, folder in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
        if (REAL_HOME / folder).is_dir() and variable not in os.environ:
            monkeypatch.setenv(variable, str(REAL_HOME / folder))


def test_the_suite_has_twenty_cases_in_three_languages() -> None:
    assert len(CASES) >= 20
    languages = [case.spec.language for case in CASES]
    assert languages.count("python") > len(CASES) / 2
    assert {"javascript", "rust"} <= set(languages)


def test_the_embedded_subset_has_up_to_date_playbooks_that_play_their_specs() -> None:
    played = [case for case in CASES if case.playbook is not None]
    assert len(played) >= 6
    assert {case.spec.language for case in played} == {"python", "javascript"}
    for case in played:
        assert case.playbook is not None
        committed = json.loads(case.playbook.read_text())
        assert committed == build_playbook(case), f"{case.name}: run python -m agent.eval.oracle"
        assert load_playbook(case.playbook).plays(case.spec_file.read_text())
        others = [c for c in CASES if c is not case]
        assert not any(load_playbook(case.playbook).plays(c.spec_file.read_text()) for c in others)


def test_the_hidden_tests_are_not_in_the_project() -> None:
    for case in CASES:
        hidden = {p.name for p in case.hidden_tests.rglob("*") if p.is_file()}
        shown = {p.name for p in case.project.rglob("*") if p.is_file()}
        assert not hidden & shown, case.name
        assert "hidden" not in case.spec_file.read_text().lower(), case.name


def test_a_malformed_case_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "case.json").write_text('{"language": "cobol"}')
    with pytest.raises(EvalError, match=r"bad/case\.json: language"):
        load_case(tmp_path / "bad")
    with pytest.raises(EvalError, match="no case named nope"):
        load_cases(CASES_DIR, ["nope"])


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_the_oracle_passes_and_the_bare_project_fails(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    keep_toolchains(monkeypatch)
    tool = TOOLCHAINS.get(case.spec.language)
    if tool is not None and shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    root = Path(tempfile.mkdtemp(prefix="oracle-", dir="/tmp"))
    try:
        spec = lay_out(case, root, LOCAL_MODEL)
        bare = await score(case, spec.project_dir)
        assert not bare.passed, f"{case.name}: the hidden tests pass without any work"
        shutil.copytree(case.solution, spec.project_dir, dirs_exist_ok=True)
        solved = await score(case, spec.project_dir)
        assert solved.passed, f"{case.name}: {solved.summary}"
        assert solved.tests_passed and solved.tests_failed == 0
    finally:
        shutil.rmtree(root, ignore_errors=True)
