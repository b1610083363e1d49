"""The agent process: one agent, from its workspace to DONE (``python -m agent.process``).

:mod:`.main` reads the arguments and the secrets and ends with the exit status;
:mod:`.start` settles what the run starts with and runs the phase machine;
:mod:`.model_access` chooses how the sessions reach their model. The daemon starts it;
``agent.cli`` is its old name, kept for agents and daemons started before the rename.
"""
