from matrix.ops import identity


def test_identity() -> None:
    assert identity(2) == [[1, 0], [0, 1]]
