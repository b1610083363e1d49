"""cache: see README.md."""
