"""The outbound review's classes, judged on facts alone (no git, no files)."""

from __future__ import annotations

import pytest

from agent.core.outbound.classify import (
    FileFacts,
    Kind,
    budget_findings,
    findings,
    is_binary,
    link_escape,
)
from agent.core.outbound.protected import matches, protected_reason
from common.schemas.outbound import FindingKind, OutboundSettings, merged

DEFAULTS = OutboundSettings()


@pytest.mark.parametrize(
    "path",
    [
        ".github/workflows/ci.yml",
        ".github/actions/setup/action.yml",
        ".gitlab-ci.yml",
        ".gitlab/ci/build.yml",
        ".circleci/config.yml",
        "Jenkinsfile",
        "azure-pipelines.yml",
        ".travis.yml",
        "bitbucket-pipelines.yml",
        ".buildkite/pipeline.yml",
        ".drone.yml",
        "CODEOWNERS",
        ".claude/settings.json",
        "pkg/.claude/settings.local.json",
        ".Claude/settings.json",
        ".mcp.json",
        ".cursor/rules/x.mdc",
        ".vscode/tasks.json",
        ".idea/workspace.xml",
        ".devcontainer/devcontainer.json",
        ".envrc",
        "CLAUDE.md",
        "services/api/AGENTS.md",
        ".npmrc",
        "web/.npmrc",
        ".pypirc",
        "pip.conf",
        ".yarnrc",
        ".yarnrc.yml",
        ".condarc",
        ".cargo/config.toml",
        ".cargo/config",
        ".bundle/config",
        ".gemrc",
        "gradle/wrapper/gradle-wrapper.properties",
        ".gitmodules",
        "docs/.gitattributes",
        ".githooks/pre-commit",
        ".husky/pre-push",
        ".pre-commit-config.yaml",
        ".harness.json",
    ],
)
def test_protected_paths_are_flagged(path: str) -> None:
    assert protected_reason(path) is not None


@pytest.mark.parametrize(
    "path",
    [
        "docs/github-workflows.md",
        "src/claude/x.py",
        "src/.github_helpers.py",
        "docs/workflows/.github.md",
        "tests/fixtures/npmrc.txt",
        "src/gitlab_ci.py",
        "lib/jenkinsfile_parser.py",
        ".github/ISSUE_TEMPLATE/bug.md",
        "pkg/.github/workflows/ci.yml",
        "src/.vscode_settings.py",
        "docs/claude.md.txt",
        "app/config.toml",
        "README.md",
    ],
)
def test_look_alikes_are_not_protected(path: str) -> None:
    assert protected_reason(path) is None


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("deploy/", "deploy/prod.yml", True),
        ("deploy/", "deploy", False),
        ("infra/*.tf", "infra/main.tf", True),
        ("infra/*.tf", "infra/modules/main.tf", False),
        ("infra/*.tf", "other/infra/main.tf", False),
        ("secrets.yml", "config/secrets.yml", True),
        ("/secrets.yml", "config/secrets.yml", False),
        ("", "anything", False),
    ],
)
def test_pattern_syntax(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_spec_patterns_add_to_the_defaults() -> None:
    assert protected_reason("deploy/prod.yml", ["deploy/"]) == (
        "protected by the spec or .harness.json (deploy/)"
    )
    assert protected_reason("deploy/prod.yml") is None
    settings = merged(
        OutboundSettings(protected_paths=["a/"], max_file_bytes=10),
        OutboundSettings(protected_paths=["b/", "a/"], max_file_bytes=99),
    )
    assert settings.protected_paths == ["a/", "b/"]
    assert settings.max_file_bytes == 10
    assert merged(None, OutboundSettings(max_diff_lines=7)).max_diff_lines == 7
    assert merged(None, None) == OutboundSettings()


def kinds(facts: FileFacts, settings: OutboundSettings = DEFAULTS) -> set[FindingKind]:
    return {finding.kind for finding in findings(facts, settings)}


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        (FileFacts("src/app.py", Kind.FILE, 10, b"x = 1\n"), set()),
        (FileFacts("blob.bin", Kind.FILE, 30_000_000, b"\0" * 100), {"too_large", "binary"}),
        (FileFacts("img.png", Kind.FILE, 100, b"\x89PNG\0\0"), {"binary"}),
        (FileFacts("run.sh", Kind.FILE, 10, b"#!/bin/sh\n", executable=True), {"new_executable"}),
        (
            FileFacts(
                "run.sh", Kind.FILE, 10, b"#!/bin/sh\n", executable=True, was_executable=True
            ),
            set(),
        ),
        (FileFacts("passwd", Kind.SYMLINK, 11, b"/etc/passwd"), {"symlink_outside"}),
        (FileFacts("a/up", Kind.SYMLINK, 8, b"../../.."), {"symlink_outside"}),
        (FileFacts("a/b/ok", Kind.SYMLINK, 9, b"../c/d.py"), set()),
        (FileFacts("cfg", Kind.SYMLINK, 11, b".git/config"), {"symlink_outside"}),
        (FileFacts("vendor/lib", Kind.GITLINK), {"nested_repository"}),
        (FileFacts(".github/workflows/ci.yml", Kind.DELETED), {"protected_path"}),
        (FileFacts("src/old.py", Kind.DELETED, was_executable=True), set()),
        (
            FileFacts(".claude/hooks/run", Kind.FILE, 10, b"#!/bin/sh\n", executable=True),
            {"protected_path", "new_executable"},
        ),
    ],
)
def test_each_class(facts: FileFacts, expected: set[str]) -> None:
    assert kinds(facts) == {FindingKind(name) for name in expected}


def test_the_size_limit_is_configurable() -> None:
    facts = FileFacts("data.csv", Kind.FILE, 2_000, b"a,b\n")
    assert kinds(facts) == set()
    assert kinds(facts, OutboundSettings(max_file_bytes=1_000)) == {FindingKind.TOO_LARGE}


def test_binary_is_a_nul_in_the_first_8000_bytes() -> None:
    assert is_binary(b"abc\0")
    assert not is_binary(b"a" * 8000 + b"\0")


def test_a_link_target_is_shown_escaped_and_short() -> None:
    reason = link_escape("x", "/tmp/\x1b]0;title\x07" + "a" * 300)
    assert reason is not None
    assert "\x1b" not in reason and "\x07" not in reason
    assert len(reason) < 400


def test_the_diff_budget() -> None:
    settings = OutboundSettings(max_diff_lines=100, max_diff_files=3)
    assert budget_findings(100, 3, settings) == []
    over = budget_findings(101, 4, settings)
    assert [finding.kind for finding in over] == [FindingKind.DIFF_BUDGET] * 2
    assert "101 changed lines" in over[0].reason and "4 changed files" in over[1].reason
