import pytest

from intervals.merge import merge


def test_examples() -> None:
    assert merge([(1, 3), (2, 6), (8, 10)]) == [(1, 6), (8, 10)]
    assert merge([(1, 2), (2, 3)]) == [(1, 3)]
    assert merge([]) == []


def test_unsorted_and_nested() -> None:
    assert merge([(5, 7), (1, 10), (12, 12)]) == [(1, 10), (12, 12)]


def test_refuses_reversed() -> None:
    with pytest.raises(ValueError):
        merge([(3, 1)])
