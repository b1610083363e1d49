"""The agent's run, in rooms of one job (their order: ``CORE_ROOMS`` in tests/test_layers.py).

From the top: :mod:`.runner` drives the phases, :mod:`.stages` handles each, :mod:`.issue`
is an issue's life in a slot, :mod:`.run` the run's parts, :mod:`.session` one model
session, :mod:`.browser` browser checks, :mod:`.endpoint` the model endpoint, :mod:`.gates`
the quality gates, :mod:`.policy` the command policy; :mod:`.trace`, :mod:`.outbound`,
:mod:`.git`, :mod:`.words` below them, :mod:`.log` and :mod:`.faultpoints` at the bottom.
"""
