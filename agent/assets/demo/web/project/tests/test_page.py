from app import render_page


def test_every_note_is_listed() -> None:
    page = render_page(["Buy milk", "Call Ana"])
    assert "<li>Buy milk</li>" in page and "<li>Call Ana</li>" in page


def test_notes_are_escaped() -> None:
    assert "<li>&lt;b&gt;</li>" in render_page(["<b>"])
