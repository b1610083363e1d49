from search.bisect_find import find


def test_first_occurrence() -> None:
    assert find([1, 2, 2, 2, 3], 2) == 1
    assert find([5, 5, 5], 5) == 0


def test_absent() -> None:
    assert find([], 1) == -1
    assert find([1, 3, 5], 4) == -1
    assert find([1, 3, 5], 6) == -1
    assert find([1, 3, 5], 0) == -1


def test_large() -> None:
    values = list(range(0, 2_000_000, 2))
    assert find(values, 1_999_998) == 999_999
    assert find(values, 7) == -1
