import words


def test_package_imports() -> None:
    assert words.__doc__
