"""bank: see README.md."""
