"""The base every persisted or transmitted model derives from."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """Unknown fields are errors: a typo in a spec or a file is reported, not ignored."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def utc_now() -> datetime:
    """Timestamps are always timezone-aware UTC."""
    return datetime.now(UTC)
