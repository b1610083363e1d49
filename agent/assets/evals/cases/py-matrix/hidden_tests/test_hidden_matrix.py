import pytest

from matrix.ops import identity, multiply, transpose


def test_identity_and_transpose() -> None:
    assert identity(3)[1] == [0, 1, 0]
    assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]


def test_multiply() -> None:
    assert multiply([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]
    assert multiply([[1, 2, 3]], [[1], [2], [3]]) == [[14]]
    m = [[2, 3], [4, 5]]
    assert multiply(m, identity(2)) == m


def test_refusals() -> None:
    with pytest.raises(ValueError):
        multiply([[1, 2]], [[1, 2]])
    with pytest.raises(ValueError):
        identity(0)
