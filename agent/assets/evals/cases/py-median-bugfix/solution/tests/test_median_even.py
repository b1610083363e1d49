from stats.median import median


def test_even() -> None:
    assert median([1, 2, 3, 4]) == 2.5
