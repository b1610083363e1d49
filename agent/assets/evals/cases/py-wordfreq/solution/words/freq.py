"""Word frequencies."""

import re
from collections import Counter


def top_words(text: str, n: int) -> list[tuple[str, int]]:
    """The n most frequent words, ties alphabetical."""
    if n < 0:
        raise ValueError("n must not be negative")
    counts = Counter(re.findall(r"[a-z]+", text.lower()))
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]
