from textkit import normalize_whitespace


def test_collapses_inner_whitespace() -> None:
    assert normalize_whitespace("hello \n\t  world") == "hello world"


def test_trims_both_ends() -> None:
    assert normalize_whitespace("   padded   ") == "padded"
