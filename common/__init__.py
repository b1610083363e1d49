"""Shared ground of every process: schemas, atomic JSON IO, paths and errors.

Nothing here imports textual, the Claude SDK or anything else of ours.
"""
