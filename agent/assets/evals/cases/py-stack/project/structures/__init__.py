"""structures: see README.md."""
