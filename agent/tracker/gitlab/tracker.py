"""The GitLab tracker: the :class:`~agent.tracker.base.IssueTracker` of GitLab mode."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from agent.tracker.base import NoteKind, with_dependencies
from agent.tracker.decision_text import decision_key, with_milestone_line
from agent.tracker.decision_text import note as decision_note
from agent.tracker.gitlab.calls import Calls, Log
from agent.tracker.gitlab.client import Client
from agent.tracker.gitlab.project import ProjectApi
from agent.tracker.gitlab.records import (
    Attrs,
    GitLabSettings,
    Inventory,
    blocked_by,
    find_issue,
    issue_key,
    merge_request,
    note_key,
    spec_note,
    split_marker,
    tracked,
    user_notes,
    with_dependency_block,
    with_marker,
)
from agent.tracker.push import git_push
from agent.tracker.retry import GitLabApiError, RetryPolicy
from common.atomic import read_model_or_none, write_model
from common.errors import GitError, StateFileError, TrackerError
from common.schemas.base import utc_now
from common.schemas.decision_record import DecisionRecord
from common.schemas.gitlab_milestone import GitLabApiStats, GitLabMilestone
from common.schemas.issues import IssueDraft, IssueNote, MergeRequestRecord, TrackedIssue
from common.workspace import git

DEVELOPER_ACCESS = 30
DUPLICATE_LABEL = "duplicate"
"""Put on an issue that a late write made twice (it is closed and never worked on)."""
VERIFY_POLICY = RetryPolicy(attempts=3, base_delay=0.5, max_delay=2.0, max_retry_after=10.0)
PUSH_ATTEMPTS = 3
#: git push failures another attempt will not fix.
_LASTING_PUSH_ERRORS = ("Authentication failed", "not allowed", "403", "rejected", "denied")


class GitLabTracker:
    """Milestone, issues, notes and merge request of one spec in one GitLab project;
    it also publishes the feature branch (:class:`~agent.tracker.push.BranchPublisher`)."""

    kind: Literal["file", "gitlab"] = "gitlab"

    def __init__(
        self,
        settings: GitLabSettings,
        mirror: Path,
        *,
        log: Log | None = None,
        policy: RetryPolicy | None = None,
        verify_policy: RetryPolicy = VERIFY_POLICY,
    ) -> None:
        self.settings = settings
        self.mirror = mirror
        # A write may land up to the server's own request limit after our timeout.
        self.policy = policy or RetryPolicy(settle_window=2 * settings.timeout + 5)
        self.verify_policy = verify_policy
        self._log = log or (lambda _text: None)
        self._calls_: Calls | None = None
        self._project: ProjectApi | None = None
        self._project_id: int | None = None
        self._milestone: Attrs | None = None
        self._issues: dict[int, TrackedIssue] = {}
        self._notes: dict[int, tuple[int, list[IssueNote]]] = {}
        self._mr: MergeRequestRecord | None = None
        self._pushed: tuple[str, str] | None = None
        self.stats = GitLabApiStats()
        self._load_mirror()

    # --- the interface ------------------------------------------------------------------

    async def verify(self) -> list[str]:
        """Token, project, scopes and role, with GETs only: nothing is created here."""
        settings, calls = self.settings, self._calls()
        client = calls.client
        user = await calls.get("check the token", client.current_user, verify=True)
        try:
            project = await calls.get(
                f"read project {settings.project_path}",
                lambda: client.project(settings.project_path),
                verify=True,
            )
        except GitLabApiError as e:
            if e.kind != "not_found":
                raise
            raise TrackerError(
                f"GitLab project {settings.project_path} not found at {settings.api_url} (404): "
                "check the origin remote and that the token's user is a member"
            ) from e
        self._project_id = int(project["id"])
        try:
            token = await calls.get("read the token's scopes", client.token_self, verify=True)
        except GitLabApiError as e:
            if e.kind not in ("not_found", "forbidden"):
                raise
            token = {}  # an older GitLab, or another kind of token: writes will tell
        scopes = token.get("scopes")
        if isinstance(scopes, list) and "api" not in scopes:
            raise TrackerError(
                f"the token lacks the api scope (it has {', '.join(scopes) or 'none'}): "
                "GitLab mode creates milestones, issues and merge requests"
            )
        name = str(user.get("username", "?"))
        permissions = project.get("permissions")
        if isinstance(permissions, dict) and _access_level(permissions) < DEVELOPER_ACCESS:
            raise TrackerError(
                f"{name} is not a Developer (or higher) in {settings.project_path}: "
                "pushing the branch and creating the merge request need that role"
            )
        warnings = list(settings.warnings)
        if not await self._branch_exists(settings.target_branch):
            warnings.append(
                f"target branch {settings.target_branch} is not on GitLab "
                f"({settings.project_path}); push it before the merge request stage"
            )
        self._log(f"GitLab: {name} on {settings.project_path} ({settings.api_url})")
        return warnings

    async def ensure_milestone(self, title: str, description: str) -> None:
        found = await self._find_milestone(title)
        if found is None:
            api = await self._api()
            found = await self._calls().create(
                "create the milestone",
                lambda: api.create_milestone(title, description),
                lambda: api.find_milestone(title),
                duplicate="already being used",
            )
        self._milestone = found
        self._save_mirror()

    async def create_issues(self, drafts: list[IssueDraft]) -> list[TrackedIssue]:
        milestone = await self._require_milestone()
        existing = await self._milestone_issues()
        result: list[TrackedIssue] = []
        for draft in drafts:
            key = issue_key(milestone["title"], draft.title)
            attrs = find_issue(existing, key, draft.title)
            if attrs is None:
                attrs = await self._create_issue(draft, key, int(milestone["id"]))
                existing.append(attrs)
            iid = int(attrs["iid"])
            await self.add_note(iid, "spec", spec_note(draft))
            issue = tracked(attrs, await self._notes_of(attrs)).model_copy(
                update={"spec_title": draft.title, "spec_description": draft.description()}
            )
            result.append(self._remember(issue))
        result = [await self._keep_dependencies(i) for i in with_dependencies(result, drafts)]
        self._save_mirror()
        return result

    async def list_issues(self) -> list[TrackedIssue]:
        issues = []
        for attrs in await self._milestone_issues():
            issues.append(await self._read(attrs))
        self._save_mirror()
        return sorted(issues, key=lambda issue: issue.iid)

    async def get_issue(self, iid: int) -> TrackedIssue:
        issue = await self._read(await self._issue(iid))
        self._save_mirror()
        return issue

    async def update_issue(
        self,
        iid: int,
        *,
        title: str | None = None,
        description: str | None = None,
        add_labels: tuple[str, ...] = (),
        remove_labels: tuple[str, ...] = (),
    ) -> TrackedIssue:
        data: Attrs = {}
        if title is not None:
            data["title"] = title
        if description is not None:  # the new text keeps the dependency lines and the marker
            _, key = split_marker((await self._issue(iid)).get("description") or "")
            description = with_dependency_block(description, await self._depends_on(iid))
            data["description"] = with_marker(description, key) if key else description
        if add_labels:
            data["add_labels"] = ",".join(add_labels)
        if remove_labels:
            data["remove_labels"] = ",".join(remove_labels)
        return await self._put_issue(iid, data, "update")

    async def add_note(self, iid: int, kind: NoteKind, body: str) -> IssueNote:
        """Comment on an issue; the same note (kind and text) on the same issue is made once."""
        return await self._note(iid, note_key(iid, kind, body), body)

    async def record_decision(self, record: DecisionRecord) -> str | None:
        """A decision about an issue: a note on that issue. About the run as a whole: a
        note on the merge request once it exists, before that a line in the milestone's
        description.

        Why the milestone's description: GitLab milestones have no notes; the
        description is what the milestone page shows, next to the milestone's issues,
        and the API can change it (a PUT of the whole text, safe to send again). The
        first issue would not do: project_verification and spec_to_issues are decided
        before any issue exists. In a run as the harness drives it, every run-level
        checkpoint comes before the merge request (mr_review decides whether to create
        it), so the MR gets a note only for a decision whose write failed and is
        retried after it (the run's end); the MR's description lists all of them in its
        traceability section. An issue or MR GitLab no longer has (404) falls back to
        the milestone, so one deleted issue never holds back the decisions after it.
        Each is written once per checkpoint id: a note by its hidden key, the line by
        its hidden marker, each looked for before writing.
        """
        milestone = self._milestone or await self._find_milestone(self.settings.milestone_title)
        if milestone is None:
            return None
        self._milestone = milestone
        if record.issue is not None:
            try:
                await self._note(
                    record.issue, decision_key(record.checkpoint_id), decision_note(record)
                )
                return f"issue #{record.issue}"
            except GitLabApiError as e:
                if e.kind != "not_found":
                    raise
        elif self._mr is not None and self._mr.state == "opened":
            try:
                await self._merge_request_note(
                    self._mr.iid, decision_key(record.checkpoint_id), decision_note(record)
                )
                return f"merge request !{self._mr.iid}"
            except GitLabApiError as e:
                if e.kind != "not_found":
                    raise
        api = await self._api()
        calls = self._calls()
        number = int(milestone["id"])
        found = await calls.get("read the milestone", lambda: api.milestone(number))
        text = found.get("description") or ""
        wanted = with_milestone_line(text, record)
        if wanted != text:
            data = {"description": wanted}
            found = await calls.get(
                f"record decision {record.checkpoint_id} on the milestone",
                lambda: api.update_milestone(number, data),
            )
        self._milestone = found
        self._save_mirror()
        return "milestone"

    async def _merge_request_note(self, iid: int, key: str, body: str) -> Attrs:
        """The note ``body`` on merge request ``iid``, made once under ``key``."""
        api = await self._api()
        return await self._once(
            f"merge request !{iid}",
            lambda: api.merge_request_notes(iid),
            lambda: api.create_merge_request_note(iid, with_marker(body, key)),
            key,
        )

    async def _once(
        self,
        where: str,
        listed: Callable[[], list[Attrs]],
        create: Callable[[], Attrs],
        key: str,
    ) -> Attrs:
        """The note under ``key`` among ``listed()`` notes of ``where``, made by ``create``
        when it is not there yet (looked for first, and again after a failed create)."""

        def find() -> Attrs | None:
            return next((n for n in listed() if split_marker(n.get("body") or "")[1] == key), None)

        calls = self._calls()
        found = await calls.get(f"read the notes of {where}", find)
        if found is not None:
            return found
        return await calls.create(f"comment on {where}", create, find)

    async def _note(self, iid: int, key: str, body: str) -> IssueNote:
        """The note ``body`` on issue ``iid``, made once under ``key`` (looked for first)."""
        api = await self._api()
        attrs = await self._once(
            f"issue #{iid}",
            lambda: api.notes(iid),
            lambda: api.create_note(iid, with_marker(body, key)),
            key,
        )
        self._notes.pop(iid, None)
        note = user_notes([attrs])[0]
        if iid in self._issues:
            cached = self._issues[iid]
            self._issues[iid] = cached.model_copy(update={"notes": [*cached.notes, note]})
            self._save_mirror()
        return note

    async def close_issue(self, iid: int) -> TrackedIssue:
        attrs = await self._issue(iid)
        if attrs.get("state") == "closed":
            return self._remember(tracked(attrs, await self._notes_of(attrs)))
        data = {"state_event": "close", "remove_labels": "in-progress"}
        return await self._put_issue(iid, data, "close")

    async def create_merge_request(
        self, title: str, description: str, source_branch: str, target_branch: str
    ) -> MergeRequestRecord:
        if source_branch == target_branch:
            raise TrackerError(f"the merge request's source and target are both {source_branch}")
        found = await self.find_merge_request(source_branch)
        if found is None:
            api = await self._api()
            data = {
                "title": title,
                "description": description,
                "source_branch": source_branch,
                "target_branch": target_branch,
                "remove_source_branch": False,
            }
            attrs = await self._calls().create(
                f"create the merge request {source_branch} → {target_branch}",
                lambda: api.create_merge_request(data),
                lambda: api.open_merge_request(source_branch),
                duplicate="already exists",
            )
            found = merge_request(attrs)
        self._mr = found
        self._save_mirror()
        return found

    async def find_merge_request(self, source_branch: str) -> MergeRequestRecord | None:
        api = await self._api()
        attrs = await self._calls().get(
            f"look for the merge request of {source_branch}",
            lambda: api.open_merge_request(source_branch),
        )
        self._save_mirror()
        return merge_request(attrs) if attrs is not None else None

    async def push_branch(self, branch: str) -> str:
        """Push ``branch`` to ``origin`` and check that GitLab has that commit; never the target.

        Raises:
            TrackerError: asked to push the target branch, or GitLab does not show the push.
            GitError: git push failed (after retries for failures that may pass).
        """
        settings = self.settings
        if branch == settings.target_branch:
            raise TrackerError(f"refusing to push the target branch {branch}")
        for attempt in range(1, PUSH_ATTEMPTS + 1):
            try:
                await asyncio.to_thread(
                    git_push, settings.project_dir, branch, settings.token, settings.remote
                )
                break
            except GitError as e:
                if attempt == PUSH_ATTEMPTS or any(s in str(e) for s in _LASTING_PUSH_ERRORS):
                    raise
                self._log(f"{e}; pushing again ({attempt + 1}/{PUSH_ATTEMPTS})")
                await asyncio.sleep(self.policy.base_delay * 2**attempt)
        local = await asyncio.to_thread(
            git.git, settings.project_dir, "rev-parse", f"refs/heads/{branch}"
        )
        api = await self._api()
        remote = await self._calls().get(f"read branch {branch}", lambda: api.branch(branch))
        pushed = str((remote.get("commit") or {}).get("id", ""))
        if pushed != local:
            raise TrackerError(
                f"GitLab shows {branch} at {pushed[:12] or 'nothing'}, not the pushed {local[:12]}"
            )
        self._pushed = (branch, pushed)
        self._save_mirror()
        return pushed

    async def inventory(self) -> Inventory:
        """Everything in the project the harness deals with (for the demo's report).

        Each read is retried on its own: a fault in the eighth read does not repeat the
        seven before it, nor fail the report when a retry of that one read succeeds.
        """
        api = await self._api()
        get = self._calls().get
        issues = []
        for attrs in await get("list the issues", api.all_issues):
            iid = int(attrs["iid"])
            notes = await get(
                f"list the notes of #{iid}", functools.partial(api.user_notes_of, iid)
            )
            issues.append((attrs, notes))
        return Inventory(
            milestones=await get("list the milestones", api.all_milestones),
            issues=issues,
            labels=await get("list the labels", api.label_names),
            merge_requests=await get("list the merge requests", api.all_merge_requests),
            branches=await get("list the branches", api.branch_heads),
        )

    # --- GitLab -------------------------------------------------------------------------

    def _calls(self) -> Calls:
        if self.settings.problem:
            raise TrackerError(self.settings.problem)
        if self._calls_ is None:
            self._calls_ = Calls(
                Client(self.settings), self.policy, self.verify_policy, self.stats, self._log
            )
        return self._calls_

    async def _api(self) -> ProjectApi:
        """The project's endpoints (its id read once per process, when verify did not)."""
        calls = self._calls()
        if self._project_id is None:
            path = self.settings.project_path
            project = await calls.get(f"read project {path}", lambda: calls.client.project(path))
            self._project_id = int(project["id"])
        if self._project is None:
            self._project = ProjectApi(calls.client, self._project_id)
        return self._project

    async def _branch_exists(self, branch: str) -> bool:
        api = await self._api()
        try:
            await self._calls().get(
                f"read branch {branch}", lambda: api.branch(branch), verify=True
            )
        except GitLabApiError as e:
            if e.kind == "not_found":
                return False
            raise
        return True

    async def _find_milestone(self, title: str) -> Attrs | None:
        api = await self._api()
        return await self._calls().get(
            f"look for milestone {title!r}", lambda: api.find_milestone(title)
        )

    async def _require_milestone(self) -> Attrs:
        if self._milestone is None:
            title = self.settings.milestone_title
            self._milestone = await self._find_milestone(title)
            if self._milestone is None:
                raise TrackerError(
                    f"milestone {title!r} does not exist in {self.settings.project_path}"
                )
        return self._milestone

    async def _milestone_issues(self) -> list[Attrs]:
        """The milestone's issues, each key once.

        A creation whose answer was lost can land after it was sent again (a slow
        GitLab): two issues then share one key. The oldest is the issue; the others
        are closed with the ``duplicate`` label and never taken as work.
        """
        title = (await self._require_milestone())["title"]
        api = await self._api()
        found = await self._calls().get(
            f"list the issues of milestone {title!r}", lambda: api.milestone_issues(title)
        )
        kept: list[Attrs] = []
        seen: set[str] = set()
        for attrs in sorted(found, key=lambda a: int(a["iid"])):
            _, key = split_marker(attrs.get("description") or "")
            if key is None or key not in seen:
                kept.append(attrs)
                if key is not None:
                    seen.add(key)
                continue
            if attrs.get("state") != "closed":
                self._log(f"GitLab: issue #{attrs['iid']} duplicates an earlier one; closing it")
                iid, data = (
                    int(attrs["iid"]),
                    {"state_event": "close", "add_labels": DUPLICATE_LABEL},
                )
                await self._calls().get(
                    f"close duplicate issue #{iid}",
                    functools.partial(api.update_issue, iid, data),
                )
        return kept

    async def _create_issue(self, draft: IssueDraft, key: str, milestone_id: int) -> Attrs:
        api = await self._api()
        data = {
            "title": draft.title,
            "description": with_marker(draft.description(), key),
            "milestone_id": milestone_id,
        }
        title = self.settings.milestone_title
        return await self._calls().create(
            f"create issue {draft.title!r}",
            lambda: api.create_issue(data),
            lambda: find_issue(api.milestone_issues(title), key, None),
        )

    async def _issue(self, iid: int) -> Attrs:
        api = await self._api()
        try:
            return await self._calls().get(f"read issue #{iid}", lambda: api.issue(iid))
        except GitLabApiError as e:
            if e.kind != "not_found":
                raise
            path = self.settings.project_path
            raise TrackerError(f"issue #{iid} does not exist in {path}") from e

    async def _put_issue(self, iid: int, data: Attrs, verb: str) -> TrackedIssue:
        api = await self._api()
        attrs = await self._calls().get(f"{verb} issue #{iid}", lambda: api.update_issue(iid, data))
        issue = self._remember(tracked(attrs, await self._notes_of(attrs)))
        self._save_mirror()
        return issue

    async def _keep_dependencies(self, issue: TrackedIssue) -> TrackedIssue:
        """Record ``issue.depends_on`` on GitLab, once however often it is retried: the
        "Depends on #N" lines at the end of the description (before the marker) and an
        ``is_blocked_by`` link to each, GitLab's own dependency where the API offers it
        (a GitLab that refuses the link type keeps the lines and the mirror's record)."""
        if not issue.depends_on:
            return issue
        iid = issue.iid
        attrs = await self._issue(iid)
        text, key = split_marker(attrs.get("description") or "")
        wanted = with_dependency_block(text, issue.depends_on)
        if wanted != text.rstrip():
            data = {"description": with_marker(wanted, key) if key else wanted}
            api = await self._api()
            await self._calls().get(
                f"write the dependencies of issue #{iid}", lambda: api.update_issue(iid, data)
            )
        for blocker in issue.depends_on:
            await self._link_blocked_by(iid, blocker)
        issue = issue.model_copy(update={"description": wanted})
        self._issues[iid] = issue
        return issue

    async def _link_blocked_by(self, iid: int, blocker: int) -> None:
        api = await self._api()
        calls = self._calls()

        def find() -> Attrs | None:
            links = api.issue_links(iid)
            return next((a for a in links if int(a["iid"]) == blocker), None)

        if await calls.get(f"read the links of issue #{iid}", find) is not None:
            return
        try:
            await calls.create(
                f"link issue #{iid} as blocked by #{blocker}",
                lambda: api.link_blocked_by(iid, blocker),
                find,
                duplicate="already assigned",
            )
        except GitLabApiError as e:
            if e.kind not in ("forbidden", "rejected", "not_found"):
                raise
            self._log(
                f"GitLab keeps no link #{iid} → #{blocker} ({e}); the description's "
                "Depends on line and the harness's record keep the dependency"
            )

    async def _depends_on(self, iid: int) -> list[int]:
        """What issue ``iid`` depends on: the harness's record, else its links."""
        cached = self._issues.get(iid)
        if cached is not None:
            return cached.depends_on
        api = await self._api()
        links = await self._calls().get(
            f"read the links of issue #{iid}", lambda: api.issue_links(iid)
        )
        return blocked_by(links)

    async def _read(self, attrs: Attrs) -> TrackedIssue:
        """An issue as GitLab has it; its dependencies from the harness's record, or, for
        an issue the record does not hold (a mirror lost), from its ``is_blocked_by`` links."""
        issue = tracked(attrs, await self._notes_of(attrs))
        if issue.iid not in self._issues:
            issue = issue.model_copy(update={"depends_on": await self._depends_on(issue.iid)})
        return self._remember(issue)

    async def _notes_of(self, attrs: Attrs) -> list[IssueNote]:
        """The issue's notes; read again only when GitLab's count of them changed."""
        iid, count = int(attrs["iid"]), int(attrs.get("user_notes_count") or 0)
        if count == 0:
            return []
        cached = self._notes.get(iid)
        if cached is not None and cached[0] == count:
            return cached[1]
        api = await self._api()
        raw = await self._calls().get(f"read the notes of issue #{iid}", lambda: api.notes(iid))
        notes = user_notes(raw)
        self._notes[iid] = (count, notes)
        return notes

    # --- the mirror ---------------------------------------------------------------------

    def _remember(self, issue: TrackedIssue) -> TrackedIssue:
        """Cache ``issue``; the spec-faithful text recorded at creation stays with it (GitLab
        has it only as a note, which is not read back as the harness's record)."""
        cached = self._issues.get(issue.iid)
        if issue.spec_title is None and cached is not None and cached.spec_title is not None:
            issue = issue.model_copy(
                update={
                    "spec_title": cached.spec_title,
                    "spec_description": cached.spec_description,
                }
            )
        if not issue.depends_on and cached is not None and cached.depends_on:
            issue = issue.model_copy(update={"depends_on": cached.depends_on})
        self._issues[issue.iid] = issue
        return issue

    def _load_mirror(self) -> None:
        try:
            mirror = read_model_or_none(self.mirror, GitLabMilestone)
        except StateFileError as e:
            self._log(f"{e}; it is written again from GitLab")
            return
        if mirror is not None and mirror.project_path == self.settings.project_path:
            self.stats = mirror.stats
            self._issues = {issue.iid: issue for issue in mirror.issues}
            self._mr = mirror.merge_request
            if mirror.pushed_branch and mirror.pushed_commit:
                self._pushed = (mirror.pushed_branch, mirror.pushed_commit)

    def _save_mirror(self) -> None:
        milestone = self._milestone
        if milestone is None or self._project_id is None:
            return
        write_model(
            self.mirror,
            GitLabMilestone(
                api_url=self.settings.api_url,
                project_path=self.settings.project_path,
                project_id=self._project_id,
                milestone_id=int(milestone["id"]),
                title=milestone["title"],
                description=milestone.get("description") or "",
                state="closed" if milestone.get("state") == "closed" else "active",
                web_url=milestone.get("web_url"),
                issues=sorted(self._issues.values(), key=lambda issue: issue.iid),
                merge_request=self._mr,
                pushed_branch=self._pushed[0] if self._pushed else None,
                pushed_commit=self._pushed[1] if self._pushed else None,
                stats=self.stats,
                updated_at=utc_now(),
            ),
        )


def _access_level(permissions: dict[str, object]) -> int:
    levels = [0]
    for scope in ("project_access", "group_access"):
        access = permissions.get(scope)
        if isinstance(access, dict):
            levels.append(int(access.get("access_level") or 0))
    return max(levels)
