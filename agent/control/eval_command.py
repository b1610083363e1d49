"""``harness eval``: run the eval suite and write its report.

With a model endpoint (``ANTHROPIC_API_KEY``, ``ANTHROPIC_AUTH_TOKEN``,
``CLAUDE_CODE_OAUTH_TOKEN`` or ``ANTHROPIC_BASE_URL`` in the environment) every
case runs on that model. Without one, or with ``--embedded-only``, the embedded
model plays the cases that have a playbook, and the others are reported as not run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from agent.eval.cases import CASES_DIR, Case, load_cases
from agent.eval.report import write_report
from agent.eval.runner import run_suite
from common.credentials import BASE_URL, MODEL, credentials_from
from common.schemas.spec import LOCAL_MODEL

NO_ENDPOINT = "not run: no model endpoint (set ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL)"
EMBEDDED_ONLY = "not run: --embedded-only, and the embedded model has no playbook for it"


async def cmd_eval(args: argparse.Namespace) -> int:
    cases = load_cases(args.cases or CASES_DIR, args.case or None)
    credentials = credentials_from(os.environ)
    embedded = args.embedded_only or not credentials
    if embedded:
        label = "embedded model (playbooks)"
        skip = EMBEDDED_ONLY if credentials else NO_ENDPOINT

        def plan(case: Case) -> tuple[str | None, str | None]:
            return (LOCAL_MODEL, None) if case.playbook is not None else (None, skip)
    else:
        model = args.model or credentials.get(MODEL)
        host = urlsplit(credentials.get(BASE_URL, "https://api.anthropic.com")).netloc
        label = f"{model or 'default model'} at {host}"

        def plan(case: Case) -> tuple[str | None, str | None]:
            return model, None

    work = args.work or Path(tempfile.mkdtemp(prefix="eval-", dir="/tmp"))
    print(f"eval: {len(cases)} case(s) on {label}; projects in {work}", file=sys.stderr)
    report = await run_suite(
        cases, label, plan, work, lambda line: print(f"  {line}", file=sys.stderr)
    )
    md, js = write_report(report, args.report)
    print(
        f"pass rate {report.passed}/{report.run} ({report.pass_rate:.0%}); "
        f"{report.total.sessions} sessions, {report.total.requests} requests, "
        f"${report.total.cost_usd:.4f}, {report.wall_s:.0f} s; report: {md} and {js}"
    )
    return 0 if report.passed == report.run else 1
