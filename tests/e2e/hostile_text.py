"""A hostile scripted model for the bounded-text tests: huge reports, a title full of
Markdown and GitLab powers, a file whose name holds look-alike blanks.

The playbook is built here (not a data file) so the sizes and the hostile strings are
named once, next to the assertions that use them.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

SPEC = "# calc: half\n\n## half\n\nAdd `half(x)` (a float) in `calc/half.py`, with its test.\n"
HOSTILE_TITLE = (
    "Add half @all [x](http://evil.example) ![p](http://evil.example/p.png) "
    "<img src=http://evil.example/p.png> #1 !2 ~label | pipe\nnext"
)
"""Every Markdown and GitLab power a title could carry (the harness keeps it one line)."""
LOOK_ALIKE = "notes/a\u00a0b\u3000c\u2800d.md"
"""A file whose name holds an NBSP, an ideographic space and a braille blank."""
LOOK_ALIKE_SHOWN = "notes/a<U+00A0>b<U+3000>c<U+2800>d.md"
BLANKS = ("\u00a0", "\u3000", "\u2800")
HONEST_SUMMARY = "half(x) returns x / 2 as a float; tests/test_half.py covers it."
CAPTURES = {
    "project_dir": "(?m)Project directory: (.+?)\\s*$",
    "iid": "Session: coding issue #(\\d+)",
}


def huge_proposal() -> list[dict[str, Any]]:
    """About 900 KB of issues: 300 of 3,000 characters each."""
    return [
        {"title": f"Issue {n}", "summary": "x" * 3_000, "spec_sections": ["half"]}
        for n in range(300)
    ]


def write(path: str, content: str) -> dict[str, Any]:
    return {
        "name": "Write",
        "input": {"file_path": f"{{{{project_dir}}}}/{path}", "content": content},
    }


def done(summary: str) -> dict[str, Any]:
    return {
        "name": "mcp__harness__report_issue_done",
        "input": {"issue_iid": "{{iid}}", "summary": summary},
    }


def playbook(target: Path) -> Path:
    """The playbook (and the spec beside it): each hostile report first, an honest retry
    in the same session after the tool's error."""
    honest_issue = {
        "title": HOSTILE_TITLE,
        "summary": "Add `half(x)` returning x / 2 as a float.",
        "test_criteria": ["its test passes"],
        "spec_sections": ["half"],
    }
    propose = "mcp__harness__propose_issues"
    scenarios = [
        {
            "name": "initializer",
            "match": "Session: initializer",
            "steps": [
                {"tool_uses": [{"name": propose, "input": {"issues": huge_proposal()}}]},
                {"tool_uses": [{"name": propose, "input": {"issues": [honest_issue]}}]},
            ],
            "final_text": "Proposed.",
        },
        {
            "name": "coding",
            "match": "Session: coding issue #\\d+",
            "captures": CAPTURES,
            "steps": [
                {
                    "tool_uses": [
                        write("calc/half.py", "def half(x: float) -> float:\n    return x / 2\n"),
                        write(
                            "tests/test_half.py",
                            "from calc.half import half\n\n\n"
                            "def test_half() -> None:\n    assert half(5) == 2.5\n",
                        ),
                        write(LOOK_ALIKE, "a file named like another\n"),
                    ]
                },
                {"tool_uses": [done("half(x) is done. " + "A" * 140_000)]},
                {"tool_uses": [done(HONEST_SUMMARY)]},
            ],
            "final_text": "Done.",
        },
        {
            "name": "merge request",
            "match": "Session: merge request",
            "steps": [
                {
                    "tool_uses": [
                        {
                            "name": "mcp__harness__propose_merge_request",
                            "input": {"title": "Add half", "description": "half(x), tested."},
                        }
                    ]
                }
            ],
            "final_text": "Proposed.",
        },
    ]
    document = {
        "schema_version": 1,
        "spec_match": "(?m)^# calc: half$",
        "fallback_text": "OK",
        "scenarios": scenarios,
    }
    path = target / "hostile-text-playbook.json"
    path.write_text(json.dumps(document))
    (target / "hostile-text-spec.md").write_text(SPEC)
    return path


def rendered(markdown: str) -> str:
    """``markdown`` as GitLab would show it (CommonMark, GFM tables, raw HTML, autolinks)."""
    renderer = MarkdownIt("commonmark", {"html": True, "linkify": True})
    shown: str = renderer.enable(["table", "linkify", "strikethrough"]).render(markdown)
    return shown


def assert_title_inert(description: str) -> None:
    """Wherever the hostile title is in ``description``, rendered it is inside code: no
    link, image, tag or mention acts, and no row of the table is its own."""
    shown = rendered(description)
    for tag in ("<img", "<a ", "<details"):
        assert tag not in shown, shown
    outside = re.sub(r"<code>.*?</code>", "", shown, flags=re.S)
    for power in ("@all", "evil.example", "~label", "!2 "):
        assert power not in html.unescape(outside), outside
    rows = [line for line in description.splitlines() if "evil.example" in line]
    assert rows, description
    for line in rows:  # the whole title, quoted, on its one line
        codes = re.findall(r"<code>(.*?)</code>", rendered(line.lstrip("|- ")), re.S)
        assert any("Add half @all [x](http://evil.example)" in code for code in codes), line
        assert any("\\nnext" in html.unescape(code) for code in codes), line
    table = description.split("## Traceability", 1)[1].split("\n\n")[1]
    (row,) = [line for line in table.splitlines() if "evil.example" in line]
    assert row.count(" | ") == 5, row  # six cells: the title's "|" is escaped


TWO_SPEC = (
    "# calc: half and double\n\n## half\n\nAdd `half(x)` in `calc/half.py`, with its test.\n\n"
    "## double\n\nAdd `double(x)` in `calc/double.py`, with its test.\n"
)


def coding(name: str, body: str, check: str) -> dict[str, Any]:
    """An honest coding scenario for ``name``: the module, its test, the report."""
    test = f"from calc.{name} import {name}\n\n\ndef test_{name}() -> None:\n    {check}\n"
    return {
        "name": f"coding: {name}",
        "match": f"Session: coding issue #\\d+: Add {name}",
        "captures": CAPTURES,
        "steps": [
            {
                "tool_uses": [
                    write(f"calc/{name}.py", f"def {name}(x: float) -> float:\n    {body}\n"),
                    write(f"tests/test_{name}.py", test),
                ]
            },
            {"tool_uses": [done(f"{name}(x) is done and tested.")]},
        ],
        "final_text": "Done.",
    }


def two_issue_playbook(target: Path) -> Path:
    """An honest model on two independent issues (and the spec beside it)."""
    issues = [
        {"title": f"Add {name}", "summary": f"Add {name}(x).", "spec_sections": [name]}
        for name in ("half", "double")
    ]
    scenarios = [
        {
            "name": "initializer",
            "match": "Session: initializer",
            "steps": [
                {
                    "tool_uses": [
                        {"name": "mcp__harness__propose_issues", "input": {"issues": issues}}
                    ]
                }
            ],
            "final_text": "Proposed.",
        },
        coding("half", "return x / 2", "assert half(5) == 2.5"),
        coding("double", "return x * 2", "assert double(5) == 10"),
        {
            "name": "merge request",
            "match": "Session: merge request",
            "steps": [
                {
                    "tool_uses": [
                        {
                            "name": "mcp__harness__propose_merge_request",
                            "input": {"title": "half and double", "description": "Both, tested."},
                        }
                    ]
                }
            ],
            "final_text": "Proposed.",
        },
    ]
    document = {
        "schema_version": 1,
        "spec_match": "(?m)^# calc: half and double$",
        "fallback_text": "OK",
        "scenarios": scenarios,
    }
    path = target / "two-issues-playbook.json"
    path.write_text(json.dumps(document))
    (target / "two-issues-spec.md").write_text(TWO_SPEC)
    return path
