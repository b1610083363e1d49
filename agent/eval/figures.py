"""A finished case's figures: spend from the agent's trace, issues from its tracker file."""

from __future__ import annotations

from agent.core.trace.trace import read_trace, trace_path
from common.atomic import read_model_or_none
from common.paths import WorkspaceFiles
from common.schemas.eval_report import CaseFigures
from common.schemas.milestone import FileMilestone
from common.schemas.trace import ModelRequest, SessionEnd

SET_ASIDE_LABEL = "needs-human"
"""The mark an issue set aside after its sessions ran out carries."""


def case_figures(files: WorkspaceFiles) -> CaseFigures:
    """Sessions, requests, tokens and cost (trace); issues done, set aside, open (milestone)."""
    figures = CaseFigures()
    for event in read_trace(trace_path(files)):
        if isinstance(event, SessionEnd):
            figures.sessions += 1
            figures.input_tokens += event.input_tokens
            figures.output_tokens += event.output_tokens
            figures.cost_usd += event.cost_usd or 0.0
        elif isinstance(event, ModelRequest):
            figures.requests += 1
    milestone = read_model_or_none(files.milestone, FileMilestone)
    for issue in milestone.issues if milestone is not None else []:
        if issue.state == "closed":
            figures.issues_done += 1
        elif SET_ASIDE_LABEL in issue.labels:
            figures.issues_set_aside += 1
        else:
            figures.issues_open += 1
    return figures


def add(total: CaseFigures, more: CaseFigures) -> CaseFigures:
    """The sum of two sets of figures (pure)."""
    return CaseFigures(
        **{name: getattr(total, name) + getattr(more, name) for name in CaseFigures.model_fields}
    )
