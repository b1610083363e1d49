"""The bubblewrap probe runs with an environment of its own: whoever probes keeps its
secrets and ``OTEL_*`` settings (the daemon is started with them) to itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from common.bwrap import probe


def test_the_probe_passes_on_nothing_of_the_probers_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "environment"
    fake = tmp_path / "bwrap"
    fake.write_text(f"#!/bin/sh\nenv > {seen}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setenv("GITLAB_TOKEN", "glpat-probe-9c1e")

    assert probe(fake) is None
    names = {line.split("=", 1)[0] for line in seen.read_text().splitlines()}
    assert names <= {"PATH", "LANG", "PWD", "SHLVL", "_"}  # the shell adds the last three
    assert "glpat-probe-9c1e" not in seen.read_text()
