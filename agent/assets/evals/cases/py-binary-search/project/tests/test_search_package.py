import search


def test_package_imports() -> None:
    assert search.__doc__
