import fizz


def test_package_imports() -> None:
    assert fizz.__doc__
