import intervals


def test_package_imports() -> None:
    assert intervals.__doc__
