"""The workspace protocol: a workspace's files (spec copy, info, state, checkpoint,
decision history) with their reading, answering and watching, and the harness's git.

It stands below the agent, the daemon, the trackers, the ``harness`` CLI and the TUI,
which all use it; it imports nothing of theirs."""
