from csvsum.summary import column_totals


def test_numeric_columns_only() -> None:
    text = "name,qty,price\napple,3,0.5\npear,,1.25\nfig,2,2\n"
    assert column_totals(text) == {"qty": 5.0, "price": 3.75}


def test_header_order_and_quotes() -> None:
    text = 'b,a,c\n1,"1,5",2\n2,x,3\n'
    totals = column_totals(text)
    assert list(totals) == ["b", "c"]
    assert totals == {"b": 3.0, "c": 5.0}


def test_empty() -> None:
    assert column_totals("") == {}
    assert column_totals("a,b\n") == {"a": 0.0, "b": 0.0}
