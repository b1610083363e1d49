"""rle: see README.md."""
