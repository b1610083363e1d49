"""The OS sandbox (bubblewrap) every session of an agent runs in; see docs/security.md."""
