"""notes-web: a one-page notes app, served by the standard library."""

from __future__ import annotations

import html
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NOTES = ["Buy milk", "Call Ana", "Water the plants"]


def render_page(notes: list[str]) -> str:
    """The whole page: a heading and the notes, escaped."""
    items = "\n".join(f"    <li>{html.escape(note)}</li>" for note in notes)
    return (
        '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8">'
        "<title>Notes</title></head>\n<body>\n  <h1>Notes</h1>\n"
        f'  <ul id="notes">\n{items}\n  </ul>\n</body>\n</html>\n'
    )


class Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = render_page(NOTES).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main(port: int) -> None:
    ThreadingHTTPServer(("127.0.0.1", port), Page).serve_forever()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8123)
