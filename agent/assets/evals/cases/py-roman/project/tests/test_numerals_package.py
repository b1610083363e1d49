import numerals


def test_package_imports() -> None:
    assert numerals.__doc__
