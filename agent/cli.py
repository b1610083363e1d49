"""``python -m agent.cli``: the agent process's name before it was :mod:`agent.process`.

Kept so what was started before the upgrade keeps working: a daemon of the old version
still running, whose supervisor starts (and restarts) its agents by this name, and
scripts that name it. It runs exactly :mod:`agent.process`.
"""

from agent.process.main import run_as_program

if __name__ == "__main__":
    run_as_program()
