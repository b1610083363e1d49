from anagram.group import group_anagrams


def test_groups() -> None:
    assert group_anagrams(["ab", "ba"]) == [["ab", "ba"]]
