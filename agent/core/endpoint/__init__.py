"""The model endpoint: the metering proxy in front of it, its probe, rules, usage and prices."""
