import matrix


def test_package_imports() -> None:
    assert matrix.__doc__
