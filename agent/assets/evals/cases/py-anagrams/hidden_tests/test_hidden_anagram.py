from anagram.group import group_anagrams


def test_example() -> None:
    assert group_anagrams(["Listen", "silent", "apple"]) == [["Listen", "silent"], ["apple"]]


def test_order_and_duplicates() -> None:
    words = ["tea", "eat", "bat", "ate", "tab", "tea"]
    assert group_anagrams(words) == [["tea", "eat", "ate", "tea"], ["bat", "tab"]]


def test_empty() -> None:
    assert group_anagrams([]) == []
