import rle


def test_package_imports() -> None:
    assert rle.__doc__
