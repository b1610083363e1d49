"""numerals: see README.md."""
