"""matrix: see README.md."""
