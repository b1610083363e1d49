import csvsum


def test_package_imports() -> None:
    assert csvsum.__doc__
