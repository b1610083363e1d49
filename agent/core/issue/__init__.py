"""An issue's life in a slot: the slots, their baselines and links, the person's seat."""
