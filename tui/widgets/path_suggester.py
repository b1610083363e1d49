"""Completion for a typed folder path: the first folder whose name starts with what was typed."""

from __future__ import annotations

from textual.suggester import Suggester

from tui.labels import typed_path


class FolderSuggester(Suggester):
    """``~/pro`` → ``~/projects/``; → (or End) accepts it in the Input."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        if not value.strip() or value.endswith("/"):
            return None
        typed = typed_path(value)
        parent, stem = typed.parent, typed.name
        try:
            names = sorted(
                entry.name
                for entry in parent.iterdir()
                if entry.is_dir() and entry.name.startswith(stem) and not entry.name.startswith(".")
            )
        except OSError:
            return None
        if not names or names[0] == stem:
            return None
        return value + names[0][len(stem) :] + "/"
