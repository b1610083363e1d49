"""Totals of numeric CSV columns."""

import csv
import io


def column_totals(csv_text: str) -> dict[str, float]:
    rows = list(csv.reader(io.StringIO(csv_text)))
    if not rows:
        return {}
    header, body = rows[0], rows[1:]
    totals: dict[str, float] = {}
    for index, name in enumerate(header):
        cells = [row[index] for row in body if index < len(row) and row[index].strip()]
        try:
            totals[name] = sum(float(cell) for cell in cells)
        except ValueError:
            continue
    return totals
