"""Whether the committed eval report (``docs/eval-embedded.*``) still says what a run says.

Why: the test command once rewrote the committed report on every run, so a checkout
changed under the person who ran the tests. It now writes the report to ``build/``,
and this compares: what a run decides (which cases ran, passed or failed, the hidden
tests' counts, the issues done, the sessions and requests the playbooks take) must be
what the committed report says. Wall time, tokens (the requests hold temporary paths)
and the date differ from run to run and are left out; so is a case's reason for not
running, which depends on the endpoint of the machine that ran it.

``python -m agent.eval.staleness COMMITTED.json FRESH.json`` prints one line per
difference and exits 1 when there are any.
"""

from __future__ import annotations

import sys
from pathlib import Path

from common.atomic import read_model
from common.errors import HarnessError
from common.schemas.eval_report import CaseResult, EvalReport

#: The figures a playbook run decides (the rest vary from run to run).
FIGURES = ("issues_done", "issues_set_aside", "issues_open", "sessions", "requests")
REFRESH = "./scripts/test.sh writes a fresh one to build/eval-embedded.*; copy it to docs/"


def decided(case: CaseResult) -> dict[str, object]:
    """What a run decides about ``case``: its status and, when it ran, its counts."""
    facts: dict[str, object] = {"status": case.status}
    if case.status != "not_run":
        facts |= {
            "outcome": case.agent_outcome,
            "hidden passed": case.hidden_passed,
            "hidden failed": case.hidden_failed,
            **{name.replace("_", " "): getattr(case.figures, name) for name in FIGURES},
        }
    return facts


def differences(committed: EvalReport, fresh: EvalReport) -> list[str]:
    """One line per fact the committed report states that the fresh run does not."""
    old = {case.name: case for case in committed.cases}
    new = {case.name: case for case in fresh.cases}
    lines = [f"{name}: not in the committed report" for name in sorted(new.keys() - old)]
    lines += [f"{name}: no longer a case" for name in sorted(old.keys() - new)]
    for name in sorted(old.keys() & new.keys()):
        was, now = decided(old[name]), decided(new[name])
        lines += [
            f"{name}: {fact} {was.get(fact)} in the committed report, {now.get(fact)} now"
            for fact in dict.fromkeys([*was, *now])
            if was.get(fact) != now.get(fact)
        ]
    return lines


def main(argv: list[str]) -> int:
    """Compare two report files; 0 when the committed one is current."""
    if len(argv) != 2:
        print("usage: python -m agent.eval.staleness COMMITTED.json FRESH.json", file=sys.stderr)
        return 2
    try:
        committed, fresh = (read_model(Path(arg), EvalReport) for arg in argv)
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    found = differences(committed, fresh)
    for line in found:
        print(f"stale: {line}")
    if found:
        print(f"{argv[0]} is stale ({len(found)} difference(s)); {REFRESH}")
        return 1
    print(f"{argv[0]} is current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
