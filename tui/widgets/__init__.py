"""The running view's widgets: agent list, log view, phase indicator, status bar."""
