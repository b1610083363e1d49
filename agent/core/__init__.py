"""The orchestrator's phase machine, checkpoints, sessions, hooks and git."""
