"""``python -m agent.process --workspace DIR``: see :mod:`agent.process.main`."""

from agent.process.main import run_as_program

run_as_program()
