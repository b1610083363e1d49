"""temps: see README.md."""
