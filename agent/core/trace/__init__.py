"""What a run records of itself: the trace files, the wire log, the OpenTelemetry spans."""
