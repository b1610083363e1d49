"""The Textual front end: the only package that imports textual."""
