"""issue_enrichment: which issues the model may enrich before coding starts.

The default takes the model's recommended selection; a choice names the iids; a
reject enriches none (its reason is only logged).
"""

from __future__ import annotations

from common.schemas.checkpoint import (
    AnyDecision,
    CheckpointType,
    EnrichmentDecision,
    IssueEnrichmentCheckpoint,
)
from common.workspace.kinds.base import KindRules, parse_iids
from common.workspace.kinds.lines import one


class IssueEnrichmentKind(KindRules[IssueEnrichmentCheckpoint]):
    checkpoint_type = CheckpointType.ISSUE_ENRICHMENT
    reason_use = "nothing is enriched: logged, the model never reads it"
    reject_text = "reject: enrich none"

    def _default(self, checkpoint: IssueEnrichmentCheckpoint, decided_by: str) -> AnyDecision:
        selected = list(checkpoint.context.recommended)
        return EnrichmentDecision(approved=True, decided_by=decided_by, selected=selected)

    def _reject(
        self, checkpoint: IssueEnrichmentCheckpoint, decided_by: str, reason: str | None
    ) -> AnyDecision:
        return EnrichmentDecision(approved=False, decided_by=decided_by, reason=reason, selected=[])

    def _choice(
        self,
        checkpoint: IssueEnrichmentCheckpoint,
        choice: str,
        decided_by: str,
        reason: str | None,
    ) -> AnyDecision:
        selected = parse_iids(
            choice,
            {issue.iid for issue in checkpoint.context.issues},
            lambda strays, known: f"no such issue to enrich: {strays}; known: {known}",
        )
        return EnrichmentDecision(
            approved=True, decided_by=decided_by, reason=reason, selected=selected
        )

    def _approve_label(self, checkpoint: IssueEnrichmentCheckpoint) -> str:
        picked = ", ".join(f"#{iid}" for iid in checkpoint.context.recommended) or "none"
        return f"approve: enrich {picked}"

    def _context_lines(self, checkpoint: IssueEnrichmentCheckpoint) -> list[str]:
        c = checkpoint.context
        out = ["Issues:"]
        for ref in c.issues:
            mark = "[x]" if ref.iid in c.recommended else "[ ]"
            out.append(f"  {mark} #{ref.iid} {one(ref.title)}")
        return out


KIND = IssueEnrichmentKind(IssueEnrichmentCheckpoint)
