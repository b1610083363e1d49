import pytest

from numerals.roman import from_roman, to_roman


@pytest.mark.parametrize(("n", "text"), [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"),
                                         (40, "XL"), (90, "XC"), (400, "CD"),
                                         (1994, "MCMXCIV"), (3999, "MMMCMXCIX")])
def test_both_ways(n: int, text: str) -> None:
    assert to_roman(n) == text
    assert from_roman(text) == n


def test_every_value_round_trips() -> None:
    assert all(from_roman(to_roman(n)) == n for n in range(1, 4000))


@pytest.mark.parametrize("n", [0, -5, 4000])
def test_out_of_range(n: int) -> None:
    with pytest.raises(ValueError):
        to_roman(n)


@pytest.mark.parametrize("text", ["", "ABC", "xiv"])
def test_invalid_text(text: str) -> None:
    with pytest.raises(ValueError):
        from_roman(text)
