from csvsum.summary import column_totals


def test_totals() -> None:
    assert column_totals("a\n1\n2\n") == {"a": 3.0}
