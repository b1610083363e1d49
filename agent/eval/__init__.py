"""The eval suite: cases run to the end with auto-accept, scored by hidden tests."""
