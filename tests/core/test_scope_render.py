"""enrichment_scope as text: what each enrichment dropped, its diff, and how to answer."""

from __future__ import annotations

from common.schemas.checkpoint import EnrichmentScopeCheckpoint
from common.workspace.diff_text import diff_lines, review_diff
from common.workspace.render import render_checkpoint
from tests.core.checkpoint_samples import scope


def test_the_cli_view_lists_what_was_dropped_and_how_to_apply_some() -> None:
    text = render_checkpoint(scope(), agent="agent 1")

    assert "  #2 CLI\n      enriched title (the model's words): Parser" in text
    assert "✗ dropped or altered: title: 'CLI' became 'Parser'" in text
    assert "harness approve 'agent 1'   (applies none: every issue keeps its spec-faithful" in text
    assert "harness approve 'agent 1' --choice 2,3   (applies those enrichments)" in text


def test_the_diff_has_one_file_per_issue() -> None:
    review = review_diff(scope())

    assert review is not None and review.cut is None
    assert [item.path for item in review.files] == ["issue-2.md", "issue-3.md"]
    full = "\n".join(diff_lines(scope()))
    assert "--- file 1/2: issue-2.md (+1 −1)" in full and "-# CLI\n+# Parser" in full


def test_the_models_enriched_text_is_escaped_in_the_diff_and_the_list() -> None:
    checkpoint = scope()
    assert isinstance(checkpoint, EnrichmentScopeCheckpoint)
    change = checkpoint.context.changes[0].model_copy(
        update={
            "enriched_title": "Parser\x1b[2J",
            "diff": "diff --git a/issue-2.md b/issue-2.md\n+# Parser\x1b]0;pwned\x07",
        }
    )
    hostile = checkpoint.model_copy(
        update={"context": checkpoint.context.model_copy(update={"changes": [change]})}
    )

    text = render_checkpoint(hostile) + "\n".join(diff_lines(hostile))

    assert "\x1b" not in text and "\x07" not in text
    assert "Parser\\x1b[2J" in text and "\\x1b]0;pwned\\x07" in text
