"""A program in a real pseudo-terminal, with every byte it writes timestamped.

Shared by the TUI's first-paint test and its latency benchmark: a thing counts as shown
when its text reaches the terminal, which is as close to "on screen" as a program can
observe.
"""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

COLUMNS, ROWS = 120, 36
WAIT_S = 60.0


class PtyTerminal:
    """``argv`` in a pty of 120×36; every chunk it writes is kept with the moment it arrived."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> None:
        main, side = os.openpty()
        fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=side,
            stdout=side,
            stderr=side,
            env={**env, "TERM": "xterm-256color", "COLUMNS": str(COLUMNS), "LINES": str(ROWS)},
            start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(side)
        self._main = main
        self._lock = threading.Lock()
        self._text = ""
        self._chunks: list[tuple[float, int]] = []  # (arrival, length of the text after it)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._main, 1 << 16)
            except OSError:  # the program exited and the pty closed
                return
            if not data:
                return
            now = time.perf_counter()
            with self._lock:
                self._text += data.decode(errors="replace")
                self._chunks.append((now, len(self._text)))

    @property
    def position(self) -> int:
        with self._lock:
            return len(self._text)

    def text(self, start: int = 0, end: int | None = None) -> str:
        """What the terminal got between ``start`` and ``end``."""
        with self._lock:
            return self._text[start:end]

    def chunks(self) -> list[tuple[float, int]]:
        """(arrival, length of the text after it) of every chunk so far."""
        with self._lock:
            return list(self._chunks)

    def wait_for(self, token: str, since: int = 0, timeout: float = WAIT_S) -> tuple[float, int]:
        """When ``token`` first reached the terminal after ``since``, and where it ends."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            with self._lock:
                found = self._text.find(token, since)
                if found >= 0:
                    end = found + len(token)
                    arrival = next(t for t, length in self._chunks if length >= end)
                    return arrival, end
            time.sleep(0.001)
        tail = self.text()[-2000:]
        raise TimeoutError(f"{token!r} did not reach the terminal within {timeout:g} s: {tail}")

    def until(self, token: str) -> str:
        """Everything the terminal got before ``token`` first reached it."""
        _, end = self.wait_for(token)
        return self.text(0, end - len(token))

    def press(self, keys: str) -> None:
        os.write(self._main, keys.encode())

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text().splitlines()
        return int(next(line for line in status if line.startswith("VmRSS")).split()[1])

    def quit(self, *, key: bool = True) -> None:
        """``q`` (``key``), else (a wizard takes keys as text) the process is killed."""
        if key:
            self.press("q")
        try:
            self.process.wait(timeout=10 if key else 0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._main)
