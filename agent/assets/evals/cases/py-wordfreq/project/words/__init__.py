"""words: see README.md."""
