import structures


def test_package_imports() -> None:
    assert structures.__doc__
