"""The harness's words on the model's work: spec sections, scope, secrecy, security counts."""
