"""Matrix operations on lists of rows."""

Matrix = list[list[float]]


def identity(n: int) -> Matrix:
    if n < 1:
        raise ValueError("n must be at least 1")
    return [[1 if i == j else 0 for j in range(n)] for i in range(n)]


def transpose(m: Matrix) -> Matrix:
    return [list(column) for column in zip(*m)]


def multiply(a: Matrix, b: Matrix) -> Matrix:
    if not a or not b or len(a[0]) != len(b):
        raise ValueError("the matrices' shapes do not fit")
    columns = transpose(b)
    return [[sum(x * y for x, y in zip(row, col)) for col in columns] for row in a]
