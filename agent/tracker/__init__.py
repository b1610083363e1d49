"""Issue trackers behind one interface: local JSON files, and GitLab."""
