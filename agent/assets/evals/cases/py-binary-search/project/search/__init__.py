"""search: see README.md."""
