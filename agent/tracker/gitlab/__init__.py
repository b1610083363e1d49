"""GitLab mode: milestone, issues, notes, labels, branch push and merge request.

python-gitlab is used in this package and nowhere else, from worker threads
(``asyncio.to_thread``), with an explicit timeout and its own retries off: every
request is sent once (:mod:`.client`), and :mod:`agent.tracker.retry` decides about
the next one (:mod:`.calls`). Creation is idempotent: before a creation is sent
(again) the tracker looks for what an earlier attempt, whose answer was lost, may
have created: issues and notes by the stable marker ``<!-- harness:key=... -->`` at
the end of their text (hidden when GitLab renders Markdown), the milestone by its
title, the merge request by its source branch. What the tracker saw is mirrored to
``.gitlab_milestone.json``.
"""

from agent.tracker.gitlab.records import GitLabSettings, Inventory, split_marker, with_marker
from agent.tracker.gitlab.tracker import GitLabTracker

__all__ = ["GitLabSettings", "GitLabTracker", "Inventory", "split_marker", "with_marker"]
