from words.freq import top_words


def test_counts() -> None:
    assert top_words("a b a", 1) == [("a", 2)]
