import pytest

from rle.codec import decode, encode


def test_encode() -> None:
    assert encode("aaabcc") == "3a1b2c"
    assert encode("") == ""
    assert encode("x" * 12) == "12x"
    assert encode("a a") == "1a1 1a"


def test_decode() -> None:
    assert decode("3a1b2c") == "aaabcc"
    assert decode("12x") == "x" * 12
    assert decode("") == ""


@pytest.mark.parametrize("text", ["a1", "3", "ab"])
def test_decode_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        decode(text)


def test_encode_refuses_digits() -> None:
    with pytest.raises(ValueError):
        encode("a1")
