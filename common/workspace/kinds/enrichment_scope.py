"""enrichment_scope: enrichments that changed their issue's scope, held until a person
applies them.

The default and a reject apply none (every issue keeps its spec-faithful text); a
choice names the iids whose enrichment to apply. The diffs of the issue texts are its diff.
"""

from __future__ import annotations

from common.schemas.checkpoint import (
    AnyDecision,
    CheckpointType,
    EnrichmentScopeCheckpoint,
    ScopeDecision,
)
from common.workspace.kinds.base import CarriedDiff, KindRules, parse_iids
from common.workspace.kinds.lines import one


class EnrichmentScopeKind(KindRules[EnrichmentScopeCheckpoint]):
    checkpoint_type = CheckpointType.ENRICHMENT_SCOPE
    reject_text = "reject: keep the spec text"

    def _default(self, checkpoint: EnrichmentScopeCheckpoint, decided_by: str) -> AnyDecision:
        return ScopeDecision(approved=True, decided_by=decided_by, selected=[])

    def _reject(
        self, checkpoint: EnrichmentScopeCheckpoint, decided_by: str, reason: str | None
    ) -> AnyDecision:
        return ScopeDecision(approved=False, decided_by=decided_by, reason=reason, selected=[])

    def _choice(
        self,
        checkpoint: EnrichmentScopeCheckpoint,
        choice: str,
        decided_by: str,
        reason: str | None,
    ) -> AnyDecision:
        selected = parse_iids(
            choice,
            {change.iid for change in checkpoint.context.changes},
            lambda strays, known: f"no enrichment of issue {strays} to apply; listed: {known}",
        )
        return ScopeDecision(approved=True, decided_by=decided_by, reason=reason, selected=selected)

    def _approve_label(self, checkpoint: EnrichmentScopeCheckpoint) -> str:
        return "approve: keep the spec text"

    def _context_lines(self, checkpoint: EnrichmentScopeCheckpoint) -> list[str]:
        out = ["Enrichments that change their issue's scope (not applied yet):"]
        for change in checkpoint.context.changes:
            out.append(f"  #{change.iid} {one(change.spec_title)}")
            out.append(f"      enriched title (the model's words): {one(change.enriched_title)}")
            out += [f"      ✗ dropped or altered: {one(item)}" for item in change.dropped]
        return out

    def _approve_note(self, checkpoint: EnrichmentScopeCheckpoint) -> str:
        return "   (applies none: every issue keeps its spec-faithful text)"

    def _choice_hints(self, checkpoint: EnrichmentScopeCheckpoint, agent: str) -> list[str]:
        some = ",".join(str(change.iid) for change in checkpoint.context.changes)
        return [f"    harness approve {agent} --choice {some}   (applies those enrichments)"]

    def _diff(self, checkpoint: EnrichmentScopeCheckpoint) -> CarriedDiff:
        changes = checkpoint.context.changes
        text = "\n".join(change.diff for change in changes)
        return CarriedDiff(f"{len(changes)} issue(s), spec-faithful text → enriched", text)


KIND = EnrichmentScopeKind(EnrichmentScopeCheckpoint)
