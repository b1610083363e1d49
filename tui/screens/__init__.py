"""Full screens: the setup wizard's steps and the running view."""
