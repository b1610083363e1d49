import cache


def test_package_imports() -> None:
    assert cache.__doc__
