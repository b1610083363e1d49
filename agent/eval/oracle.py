"""The oracle: an embedded-model playbook that solves a case with its ``solution/`` files.

``python -m agent.eval.oracle [CASES_DIR]`` (re)writes ``playbook.json`` for every
case whose ``case.json`` names one and that has a ``solution/``. The run it
scripts is the harness's whole loop on one issue: the initializer proposes the
spec as one issue, the coding session writes the solution files, runs the
project's tests and reports the issue done, and the merge-request session
proposes the merge request. So CI scores the pipeline (layout, agent, gates,
scoring, report) on known-good answers, as HarnessCoder's oracle provider does.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from agent.assets import is_byte_code
from agent.eval.cases import CASES_DIR, Case, EvalError, load_cases
from agent.model.playbook import Playbook

_PROJECT = {"project_dir": r"(?m)Project directory: (.+?)\s*$"}
TEST_COMMANDS = {
    "python": "python -m pytest -q",
    "javascript": "npm test --silent",
    "typescript": "npm test --silent",
    "rust": "cargo test --offline",
    "go": "go test ./...",
}


def spec_title(case: Case) -> str:
    """The spec's first Markdown heading (what the playbook recognises the spec by)."""
    for line in case.spec_file.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise EvalError(f"case {case.name}: spec.md has no '# title' line")


def solution_files(case: Case) -> dict[str, str]:
    """Relative path → content of every file in ``solution/`` (Python's caches are no file
    of the solution: an install compiles them, a test run writes them)."""
    root = case.solution
    if not root.is_dir():
        raise EvalError(f"case {case.name}: no solution/ to build a playbook from")
    return {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file() and not is_byte_code(path.relative_to(root))
    }


def _step(text: str, name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"text": text, "tool_uses": [{"name": name, "input": data}]}


def build_playbook(case: Case) -> dict[str, Any]:
    """The playbook (as JSON data) that plays ``case`` to a passing end."""
    title = spec_title(case)
    files = solution_files(case)
    issue = {
        "title": title[:200],
        "summary": case.spec.summary,
        "requirement_details": [f"As specified in the spec's section on {title}."],
        "test_criteria": ["The project's test suite passes, with tests for the new behaviour."],
    }
    writes = [
        _step(
            f"Writing {path}.",
            "Write",
            {"file_path": f"{{{{project_dir}}}}/{path}", "content": text},
        )
        for path, text in files.items()
    ]
    command = TEST_COMMANDS[case.spec.language]
    done = {"issue_iid": "{{iid}}", "summary": f"Implemented: {case.spec.summary}"}
    data = {
        "schema_version": 1,
        "spec_match": f"(?m)^# {re.escape(title)}\\s*$",
        "scenarios": [
            {
                "name": "initializer",
                "match": f"Session: initializer[\\s\\S]*# {re.escape(title)}",
                "captures": _PROJECT,
                "steps": [
                    _step(
                        "The spec is one piece of work: one issue.",
                        "mcp__harness__propose_issues",
                        {"issues": [issue]},
                    )
                ],
                "final_text": "Proposed.",
            },
            {
                "name": "coding",
                "match": r"Session: coding issue #\d+",
                "captures": {**_PROJECT, "iid": r"Session: coding issue #(\d+)"},
                "steps": [
                    *writes,
                    _step(
                        "Running the tests.",
                        "Bash",
                        {"command": command, "description": "Run the tests"},
                    ),
                    _step("The tests pass.", "mcp__harness__report_issue_done", done),
                ],
                "final_text": "Done.",
            },
            {
                "name": "merge request",
                "match": "Session: merge request",
                "steps": [
                    _step(
                        "Proposing the merge request.",
                        "mcp__harness__propose_merge_request",
                        {"title": title[:200], "description": f"## Summary\n{case.spec.summary}\n"},
                    )
                ],
                "final_text": "Merge request proposed.",
            },
        ],
    }
    Playbook.model_validate(data)  # a playbook the embedded model will accept
    return data


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else CASES_DIR
    for case in load_cases(folder):
        if case.playbook is None:
            continue
        text = json.dumps(build_playbook(case), indent=1, ensure_ascii=False) + "\n"
        case.playbook.write_text(text, encoding="utf-8")
        print(f"{case.name}: {case.playbook}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
