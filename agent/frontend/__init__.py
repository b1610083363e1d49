"""What the two front ends share: the ``harness`` CLI (:mod:`agent.control`) and the TUI
(:mod:`tui`) stand side by side on it, neither on the other.

The batch of specs (``--specs``) and its errors, the demo (its project, its local GitLab)
and whether a spec is the demo's, and the lines that describe an agent's slots.
"""
