"""The daemon that owns agent processes, so clients can quit and reconnect.

One daemon per ``HARNESS_HOME`` listens on a Unix socket (NDJSON, see
``common.schemas.protocol``). Agents run in their own sessions: they outlive
their clients and the daemon itself, and the next daemon adopts them.
"""
