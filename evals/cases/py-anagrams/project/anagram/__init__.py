"""anagram: see README.md."""
