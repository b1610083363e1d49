"""csvsum: see README.md."""
