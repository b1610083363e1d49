import bank


def test_package_imports() -> None:
    assert bank.__doc__
