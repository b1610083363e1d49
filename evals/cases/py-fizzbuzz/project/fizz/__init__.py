"""fizz: see README.md."""
