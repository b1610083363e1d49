"""Binary search."""

import bisect


def find(values: list[int], target: int) -> int:
    index = bisect.bisect_left(values, target)
    return index if index < len(values) and values[index] == target else -1
