"""What the TUI does besides drawing: daemon link, log tail, pending checkpoints, decisions.

Nothing here imports textual, so each piece is tested without a running app.
"""
