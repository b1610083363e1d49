from intervals.merge import merge


def test_merge() -> None:
    assert merge([(1, 3), (2, 6)]) == [(1, 6)]
