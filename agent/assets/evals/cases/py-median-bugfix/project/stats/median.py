"""The median of a list of numbers."""


def median(values: list[float]) -> float:
    """The middle value."""
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
