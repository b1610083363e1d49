import pytest

from temps.convert import c_to_f, f_to_c, parse_temperature


def test_conversions() -> None:
    assert c_to_f(100) == 212.0
    assert c_to_f(-40) == -40.0
    assert c_to_f(36.6) == 97.88
    assert f_to_c(0) == -17.78
    assert f_to_c(212) == 100.0


@pytest.mark.parametrize(("text", "expected"), [("21C", (21.0, "C")), ("-3.5 F", (-3.5, "F")),
                                                ("98.6f", (98.6, "F")), ("0 c", (0.0, "C"))])
def test_parse(text: str, expected: tuple[float, str]) -> None:
    assert parse_temperature(text) == expected


@pytest.mark.parametrize("text", ["", "21", "C", "21K", "twenty C", "21 CC"])
def test_parse_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_temperature(text)
