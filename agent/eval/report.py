"""The eval report as Markdown (for people and ``docs/``) and JSON (for tools)."""

from __future__ import annotations

from pathlib import Path

from common.atomic import write_bytes_atomic
from common.schemas.eval_report import CaseFigures, CaseResult, EvalReport

_HEADER = (
    "| case | language | result | hidden tests | issues done / set aside | sessions | requests "
    "| tokens in / out | cost | wall |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def _hidden(result: CaseResult) -> str:
    if result.hidden_passed is None and result.hidden_failed is None:
        return "-"
    return f"{result.hidden_passed or 0} passed, {result.hidden_failed or 0} failed"


def _row(name: str, language: str, result: str, hidden: str, f: CaseFigures, wall: float) -> str:
    return (
        f"| {name} | {language} | {result} | {hidden} | {f.issues_done} / {f.issues_set_aside} "
        f"| {f.sessions} | {f.requests} | {f.input_tokens} / {f.output_tokens} "
        f"| ${f.cost_usd:.4f} | {wall:.1f} s |"
    )


def markdown(report: EvalReport) -> str:
    """The report: the pass rate, one row per case run, the totals, and the reasons."""
    ran = [c for c in report.cases if c.status != "not_run"]
    skipped: dict[str, list[str]] = {}
    for case in report.cases:
        if case.status == "not_run":
            skipped.setdefault(case.reason, []).append(case.name)
    lines = [
        f"# Eval report: {report.model}",
        "",
        f"Run {report.started_at:%Y-%m-%d %H:%M} UTC. Pass rate: **{report.passed}/{report.run}"
        f" ({report.pass_rate:.0%})** of the cases run; {len(report.cases) - len(ran)} not run.",
        "",
        _HEADER,
    ]
    for case in ran:
        lines.append(
            _row(case.name, case.language, case.status, _hidden(case), case.figures, case.wall_s)
        )
    lines.append(
        _row(
            "**total**",
            "",
            f"{report.passed}/{report.run} passed",
            "",
            report.total,
            report.wall_s,
        )
    )
    notes = [f"- {c.name}: {c.reason}" for c in ran if c.reason]
    notes += [f"- {', '.join(names)}: {reason}" for reason, names in skipped.items()]
    if notes:
        lines += ["", "## Notes", "", *notes]
    return "\n".join(lines) + "\n"


def write_report(report: EvalReport, stem: Path) -> tuple[Path, Path]:
    """Write ``STEM.md`` and ``STEM.json``; return both paths."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    md, js = stem.with_suffix(".md"), stem.with_suffix(".json")
    write_bytes_atomic(md, markdown(report).encode())
    write_bytes_atomic(js, (report.model_dump_json(indent=2) + "\n").encode())
    return md, js
