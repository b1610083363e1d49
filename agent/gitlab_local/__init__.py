"""A local GitLab (REST v4 for the endpoints the harness uses, and git smart HTTP) with faults."""
