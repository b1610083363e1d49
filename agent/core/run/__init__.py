"""The run: the orchestrator, its state, the checkpoint desk, the ledger, phases, retries."""
