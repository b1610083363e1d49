"""Screens that sit on top of the running view: checkpoint dialog, review screens, confirm."""
