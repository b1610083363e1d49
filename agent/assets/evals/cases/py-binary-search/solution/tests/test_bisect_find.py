from search.bisect_find import find


def test_find() -> None:
    assert find([1, 2, 3], 2) == 1
