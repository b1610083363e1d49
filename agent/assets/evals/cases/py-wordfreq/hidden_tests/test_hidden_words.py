import pytest

from words.freq import top_words


def test_case_insensitive_and_ordered() -> None:
    text = "The cat and the hat. THE END, and the cat!"
    assert top_words(text, 3) == [("the", 4), ("and", 2), ("cat", 2)]


def test_ties_are_alphabetical() -> None:
    assert top_words("b a c", 3) == [("a", 1), ("b", 1), ("c", 1)]


def test_fewer_words_and_zero() -> None:
    assert top_words("one two", 10) == [("one", 1), ("two", 1)]
    assert top_words("one two", 0) == []
    assert top_words("", 3) == []


def test_digits_and_punctuation_split_words() -> None:
    assert top_words("it's 3 o'clock", 5) == [("clock", 1), ("it", 1), ("o", 1), ("s", 1)]


def test_negative() -> None:
    with pytest.raises(ValueError):
        top_words("x", -1)
