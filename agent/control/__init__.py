"""``harness``: the control command line (runs specs, answers checkpoints, manages the daemon)."""
