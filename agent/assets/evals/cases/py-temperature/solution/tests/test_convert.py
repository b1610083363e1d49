from temps.convert import c_to_f, parse_temperature


def test_basics() -> None:
    assert c_to_f(100) == 212.0
    assert parse_temperature("21C") == (21.0, "C")
