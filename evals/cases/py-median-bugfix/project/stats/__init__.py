"""stats: see README.md."""
