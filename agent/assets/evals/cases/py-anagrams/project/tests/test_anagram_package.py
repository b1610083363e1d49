import anagram


def test_package_imports() -> None:
    assert anagram.__doc__
