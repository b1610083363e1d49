"""The quality gates: the commands, their runs on the tree to be committed, presets, coverage."""
