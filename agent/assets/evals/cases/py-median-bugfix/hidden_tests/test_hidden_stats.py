import pytest

from stats.median import median


def test_odd_and_even() -> None:
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5
    assert median([1, 1]) == 1


def test_input_untouched() -> None:
    values = [5, 3, 1, 4]
    assert median(values) == 3.5
    assert values == [5, 3, 1, 4]


def test_empty() -> None:
    with pytest.raises(ValueError):
        median([])
