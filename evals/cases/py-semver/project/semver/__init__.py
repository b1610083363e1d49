"""semver: see README.md."""
