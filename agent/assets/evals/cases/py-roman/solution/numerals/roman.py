"""Roman numerals."""

_VALUES = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
           (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
_DIGITS = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(n: int) -> str:
    """1..3999 as a Roman numeral."""
    if not 1 <= n <= 3999:
        raise ValueError("only 1..3999 have a Roman numeral")
    out = []
    for value, letters in _VALUES:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def from_roman(text: str) -> int:
    """The value of an uppercase Roman numeral."""
    if not text or any(ch not in _DIGITS for ch in text):
        raise ValueError(f"not a Roman numeral: {text!r}")
    total = 0
    for i, ch in enumerate(text):
        value = _DIGITS[ch]
        if i + 1 < len(text) and _DIGITS[text[i + 1]] > value:
            total -= value
        else:
            total += value
    return total
