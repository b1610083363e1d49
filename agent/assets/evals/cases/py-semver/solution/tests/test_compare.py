from semver.compare import compare


def test_compare() -> None:
    assert compare("1.10.0", "1.9.0") == 1
