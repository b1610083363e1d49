import temps


def test_package_imports() -> None:
    assert temps.__doc__
