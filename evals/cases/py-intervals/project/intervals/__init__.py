"""intervals: see README.md."""
