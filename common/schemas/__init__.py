"""Pydantic models for every file and message that crosses a process boundary.

One schema per file or message, defined once and used by every reader and writer.
"""
