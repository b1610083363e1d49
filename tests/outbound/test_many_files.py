"""More files than a session may change, and reviews that run out of time: held for a
person by folder, unread; the person's choice still commits exactly those files.

Pure grouping first, then real repositories through the stage's own functions.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.core.git import commits
from agent.core.outbound import bulk, protected, review, secret_scan
from agent.core.run.orchestrator import Run
from agent.core.stages import held_files
from common.schemas.checkpoint import IssueClosureCheckpoint, IssueClosureContext
from common.schemas.issue_work import IssueWork
from common.schemas.outbound import FindingKind, FlaggedFile, OutboundSettings
from common.workspace import checkpoints, git
from common.workspace.decisions import choice_decision
from tests.core.runs import logged, make_run, sh_git

AWS_ID = "AKIA" + "ZXCVBNMASDFGHJKL"
WHY = "the harness's words"


def test_paths_are_grouped_by_their_top_folder_the_top_level_as_dot() -> None:
    paths = [f"gen/f{i}.txt" for i in range(50)] + ["calc/a.py", "README.md", "setup.py"]
    found = bulk.groups(paths)
    assert {label: len(members) for label, members in found.items()} == {
        "./": 2,
        "calc/": 1,
        "gen/": 50,
    }


def test_the_largest_folder_is_split_while_the_entries_fit() -> None:
    paths = [f"src/{part}/m{i}.py" for part in ("a", "b", "c") for i in range(10)]
    paths += ["src/main.py", "docs/x.md"]
    found = bulk.groups(paths)
    assert {label: len(members) for label, members in found.items()} == {
        "docs/": 1,
        "src/": 1,  # the files directly in src/ keep its label
        "src/a/": 10,
        "src/b/": 10,
        "src/c/": 10,
    }
    assert list(bulk.groups(paths, max_groups=3)) == ["docs/", "src/"]


def test_many_subfolders_stay_one_entry_rather_than_a_listing() -> None:
    paths = [f"pkg/m{i}/f.py" for i in range(40)]
    assert list(bulk.groups(paths)) == ["pkg/"]


def test_an_entry_has_one_finding_with_its_count_and_a_preview_of_names() -> None:
    members = [f"gen/f{i}.txt" for i in range(6000)]
    (item,) = bulk.held(members, FindingKind.TOO_MANY_FILES, WHY)
    assert item.path == "gen/" and item.files == sorted(members)
    assert [f.reason for f in item.findings] == [f"6,000 file(s) in gen/: {WHY}"]
    lines = item.preview.splitlines()
    assert lines[:2] == ["gen/f0.txt", "gen/f1.txt"] and lines[-1] == "… and 5,992 more"
    fewer = bulk.recounted(item, members[:3])
    assert fewer.findings[0].reason == f"3 file(s) in gen/: {WHY}" and fewer.files == members[:3]


def test_names_in_an_entry_are_escaped() -> None:
    (item,) = bulk.held(["a\x1b[2J/x\u202e.txt"], FindingKind.TOO_MANY_FILES, WHY)
    assert "\x1b" not in item.findings[0].reason and "\u202e" not in item.preview


def test_merge_held_joins_a_folder_held_in_two_sessions_less_what_was_committed() -> None:
    first = bulk.held(["gen/a", "gen/b"], FindingKind.TOO_MANY_FILES, WHY)
    alone = FlaggedFile(path=".npmrc", findings=[])
    second = bulk.held(["gen/b", "gen/c", "gen/d"], FindingKind.TOO_MANY_FILES, WHY)
    merged = held_files.merge_held([*first, alone], ["gen/d"], second)
    by_path = {item.path: item for item in merged}
    assert by_path["gen/"].files == ["gen/a", "gen/b", "gen/c"]
    assert by_path["gen/"].findings[0].reason == f"3 file(s) in gen/: {WHY}"
    assert ".npmrc" in by_path
    assert held_files.merge_held(first, ["gen/a", "gen/b"], []) == []


@pytest.fixture
def run(tmp_path: Path) -> Run:
    made = make_run(tmp_path)
    sh_git(made.spec.project_dir, "checkout", "-q", "-b", "feature")
    made.spec.limits.changed_files = 20
    return made


def write_many(project: Path, count: int) -> list[str]:
    (project / "gen").mkdir()
    for index in range(count):
        (project / "gen" / f"f{index}.txt").write_text(f"{index}\n")
    (project / "gen" / "keys.py").write_text(f'AWS_ACCESS_KEY_ID = "{AWS_ID}"\n')
    (project / "app.py").write_text("x = 1\n")
    return sorted(["app.py", "gen/keys.py", *(f"gen/f{i}.txt" for i in range(count))])


async def test_over_the_limit_everything_is_held_by_folder_and_nothing_is_read(run: Run) -> None:
    project = run.spec.project_dir
    paths = write_many(project, 30)
    clean, held = await held_files.hold(run, paths)

    assert clean == []
    assert [item.path for item in held] == ["./", "gen/"]
    assert [len(item.files) for item in held] == [1, 31]
    kinds = {f.kind for item in held for f in item.findings}
    assert kinds == {FindingKind.TOO_MANY_FILES}, "unread: the key in gen/keys.py is not found"
    assert (
        held[1]
        .findings[0]
        .reason.startswith(
            "31 file(s) in gen/: the session changed 32 files, more than the 20 a session may"
        )
    )
    log = logged(run)
    assert log.count("all held for a person, in 2 folder(s), none committed") == 1


async def test_approving_a_folder_commits_exactly_its_files_and_the_branch_review_reads_each(
    run: Run,
) -> None:
    project = run.spec.project_dir
    paths = write_many(project, 30)
    (project / "gen" / "mine.txt").write_text("the person's own, untouched by the session\n")
    clean, held = await held_files.hold(run, paths)
    sha = commits.commit(project, clean, "feat(#1): work\n", allow_empty=True)
    with run.store.editing() as state:
        state.issue = IssueWork(iid=1, commits=[sha], held=held)
        state.harness_commits = [sha]
    shown = IssueClosureCheckpoint(
        id="issue_closure-3",
        what_happened=["done"],
        to_decide="Close?",
        if_approved="closed",
        if_rejected="again",
        context=IssueClosureContext(
            issue_iid=1,
            issue_title="t",
            commit_sha=sha,
            commit_message="feat",
            files_changed=[],
            diff_stat="",
            diff="",
            flagged=held_files.still_changed(project, run.state.work().held),
        ),
    )
    assert [len(item.files) for item in shown.context.flagged] == [1, 31]
    decided = checkpoints.decided(shown, choice_decision(shown, "approve=gen/;exclude=*", "cli:a"))
    assert isinstance(decided, IssueClosureCheckpoint)

    approved, excluded = await held_files.apply_choices(run, decided)

    assert (approved, excluded) == (["gen/"], ["./"])
    on_branch = set(sh_git(project, "ls-tree", "-r", "--name-only", "HEAD").split())
    assert on_branch == set(paths) - {"app.py"}, "exactly the folder's files"
    assert "Approved-by: cli:a" in sh_git(project, "log", "-1", "--format=%B")
    (record,) = run.state.approved_changes
    assert (record.path, record.blob) == ("gen/", None)
    flagged = await held_files.branch_flagged(run)
    assert [(item.path, item.findings[0].kind) for item in flagged] == [
        ("gen/keys.py", FindingKind.SECRET)
    ], "approved unread: the review before the push reads each file"


async def test_a_folder_entry_keeps_only_the_files_that_still_differ(run: Run) -> None:
    project = run.spec.project_dir
    paths = write_many(project, 30)
    _, held = await held_files.hold(run, paths)
    for index in range(10):
        (project / "gen" / f"f{index}.txt").unlink()
    now = {item.path: item for item in held_files.still_changed(project, held)}
    assert len(now["gen/"].files) == 21
    assert now["gen/"].findings[0].reason.startswith("21 file(s) in gen/")


def test_a_review_out_of_time_holds_the_rest_unread(tmp_path: Path) -> None:
    project = make_run(tmp_path).spec.project_dir
    paths = write_many(project, 5)
    found = review.review_session(project, paths, OutboundSettings(), [], budget_s=-1.0)
    assert found.clean == []
    assert [item.path for item in found.flagged] == ["./", "gen/"]
    reason = found.flagged[1].findings[0]
    assert reason.kind is FindingKind.NOT_REVIEWED
    assert (
        reason.reason
        == "6 file(s) in gen/: the review stops after -1 s and did not come to them: held unread"
    )


def test_the_branch_review_out_of_time_flags_each_change_unscanned(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    write_many(project, 2)
    sh_git(project, "add", ".")
    sh_git(project, "commit", "-q", "-m", "work")
    flagged = review.review_branch(
        project, "HEAD~1", "HEAD", OutboundSettings(), [], [], budget_s=-1.0
    )
    assert len(flagged) == 4
    assert {item.findings[0].reason for item in flagged} == {
        "not scanned: the branch's review stops after -1 s"
    }


def test_a_fifo_that_replaced_a_file_is_never_judged_clean(tmp_path: Path) -> None:
    project = make_run(tmp_path).spec.project_dir
    (project / "data.txt").write_text("x\n")
    sh_git(project, "add", "data.txt")
    sh_git(project, "commit", "-q", "-m", "data")
    (project / "data.txt").unlink()
    os.mkfifo(project / "data.txt")
    found = review.review_session(project, ["data.txt"], OutboundSettings(), [])
    (item,) = found.flagged
    assert [f.reason for f in item.findings] == ["not read by the review: a FIFO"]
    reason = commits.kept_out_reason(project, b"data.txt")
    assert reason == "a FIFO: git commits only files and links"
    sha = commits.commit(project, ["data.txt"], "wip\n", allow_empty=True)
    assert git.head_commit(project) == sha, "the commit no longer fails on it"


def test_one_scanner_for_many_files_finds_what_one_scan_each_finds() -> None:
    contents = [b"x = 1\n", f'KEY = "{AWS_ID}"\n'.encode(), b"y = 2\n", b"a: b\n"]
    names = ["a.py", "b.py", "c.py", "d.yaml"]
    alone = [secret_scan.credential_findings(n, c) for n, c in zip(names, contents, strict=True)]
    with secret_scan.scanner() as scan:
        shared = [scan.credential_findings(n, c) for n, c in zip(names, contents, strict=True)]
    assert shared == alone
    assert [bool(found) for found in shared] == [False, True, False, False]


def _rule_by_rule(path: str, extra: tuple[str, ...]) -> str | None:
    for pattern, why in protected.DEFAULT_PROTECTED:
        if protected.matches(pattern, path):
            return f"{why} ({pattern.strip('/')})"
    return next((f"{protected.SPEC} ({p})" for p in extra if protected.matches(p, path)), None)


def test_the_screen_lets_every_protected_path_through() -> None:
    extra = ("deploy/", "infra/*.tf", "/secrets/?.key", "[ab]c.cfg")
    patterns = [pattern for pattern, _why in protected.DEFAULT_PROTECTED] + list(extra)
    paths: list[str] = []
    for pattern in patterns:
        body = pattern.strip("/").replace("*", "x").replace("?", "y").replace("[ab]", "a")
        for path in (body, f"a/{body}", f"{body}/c", f"a/{body}/c", body.upper(), f"{body}x"):
            paths.append(path)
    paths += ["gen/f1.txt", "src/app.py", "README.md", "a/b/c/d.e", ".github/x", ""]
    for path in paths:
        assert protected.protected_reason(path, extra) == _rule_by_rule(path, extra), path


def test_a_file_held_alone_then_in_a_folder_is_held_once_by_the_newer_finding() -> None:
    alone = FlaggedFile(path="gen/.npmrc", findings=[])
    now = bulk.held(["gen/.npmrc", "gen/a"], FindingKind.TOO_MANY_FILES, WHY)
    merged = held_files.merge_held([alone], [], now)
    assert [(item.path, item.files) for item in merged] == [("gen/", ["gen/.npmrc", "gen/a"])]
    again = held_files.merge_held(merged, [], [alone])
    assert [(item.path, item.files) for item in again] == [("gen/", ["gen/a"]), ("gen/.npmrc", [])]
