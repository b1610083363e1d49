import stats


def test_package_imports() -> None:
    assert stats.__doc__
