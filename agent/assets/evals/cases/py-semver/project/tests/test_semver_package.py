import semver


def test_package_imports() -> None:
    assert semver.__doc__
