from stats.median import median


def test_odd() -> None:
    assert median([3, 1, 2]) == 2
