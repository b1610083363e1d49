import pytest

from semver.compare import compare, parse


def test_parse() -> None:
    assert parse("0.10.3") == (0, 10, 3)


@pytest.mark.parametrize("text", ["1.2", "1.2.3.4", "01.2.3", "a.b.c", "1.2.-3", ""])
def test_parse_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse(text)


def test_compare() -> None:
    assert compare("1.10.0", "1.9.0") == 1
    assert compare("1.0.0", "1.0.0") == 0
    assert compare("0.9.9", "1.0.0") == -1
    assert compare("2.0.1", "2.0.0") == 1
