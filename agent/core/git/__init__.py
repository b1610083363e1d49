"""The harness's own git on the project: commits, hidden writes, what an issue closes with."""
