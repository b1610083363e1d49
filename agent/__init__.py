"""The agent side: orchestrator, tracker, daemon, local model and control CLI."""
