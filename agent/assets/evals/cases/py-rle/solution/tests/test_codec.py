from rle.codec import decode, encode


def test_round_trip() -> None:
    assert decode(encode("aaabcc")) == "aaabcc"
