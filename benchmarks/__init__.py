"""Benchmark scripts: each prints its figures (they are not timed tests)."""
