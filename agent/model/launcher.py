"""Run the embedded model as a child process for the length of an ``async with``.

A child process rather than a thread: the agent's event loop and the CLI's HTTP
traffic stay apart, and a crash of either side is contained. The child binds
port 0 and reports it on its first stdout line; it watches its stdin, so it ends
with the agent even when the agent is killed without a chance to clean up.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from common.errors import HarnessError
from common.harness_code import module_command, with_code_importable

_READY_PREFIX = "listening on "


class LocalModelError(HarnessError):
    """The embedded model process did not start."""


class LocalModel:
    """``async with LocalModel(playbook) as base_url:`` runs ``python -m agent.model``.

    The base URL (``http://127.0.0.1:PORT``) goes into ``ANTHROPIC_BASE_URL``.
    """

    def __init__(
        self,
        playbook: Path,
        faults: Sequence[str] = (),
        *,
        latency_s: float = 0.0,
        log_path: Path | None = None,
        start_timeout: float = 15.0,
        stop_timeout: float = 5.0,
    ) -> None:
        """Configure, without starting anything.

        Args:
            playbook: the playbook JSON file.
            faults: faults for the first ``/v1/messages`` requests (``429``, ``500``,
                ``529``, ``slow``).
            latency_s: seconds each answer waits before it starts, as a real model's.
            log_path: where the child's stderr is appended; a private temporary file
                when ``None`` (its last line explains a failed start).
            start_timeout: seconds to wait for the ``listening on`` line.
            stop_timeout: seconds to wait after SIGTERM before SIGKILL.
        """
        self.playbook = playbook
        self.faults = list(faults)
        self.latency_s = latency_s
        self.log_path = log_path
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self._process: asyncio.subprocess.Process | None = None
        self._stderr: IO[bytes] | None = None
        self._url: str | None = None

    @property
    def url(self) -> str:
        """The base URL of the running server.

        Raises:
            LocalModelError: the server is not running.
        """
        if self._url is None:
            raise LocalModelError("the local model is not running")
        return self._url

    def _command(self) -> list[str]:
        command = module_command("agent.model", "--playbook", str(self.playbook))
        command += ["--host", "127.0.0.1", "--port", "0", "--exit-with-stdin"]
        if self.faults:
            command += ["--faults", ",".join(self.faults)]
        if self.latency_s:
            command += ["--latency", repr(self.latency_s)]
        return command

    def _environment(self) -> dict[str, str]:
        """This process's environment, in which ``-m agent.model`` resolves from any cwd."""
        return with_code_importable(os.environ)

    async def __aenter__(self) -> str:
        """Start the child and wait for its port.

        Raises:
            LocalModelError: the child exited or stayed silent; the message carries
                its last stderr line.
        """
        if self.log_path is not None:
            self._stderr = self.log_path.open("ab")
        else:
            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _stop
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self._command(),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=self._stderr,
                env=self._environment(),
            )
            self._url = await self._wait_ready(self._process)
        except BaseException:
            await self._stop()
            raise
        return self._url

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._stop()

    async def _wait_ready(self, process: asyncio.subprocess.Process) -> str:
        assert process.stdout is not None
        try:
            line = await asyncio.wait_for(process.stdout.readline(), self.start_timeout)
        except TimeoutError as e:
            raise LocalModelError(
                f"the local model printed nothing within {self.start_timeout:g} s"
            ) from e
        text = line.decode(errors="replace").strip()
        if not text.startswith(_READY_PREFIX):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 1)
            raise LocalModelError(f"the local model did not start: {self._last_error_line()}")
        return text.removeprefix(_READY_PREFIX)

    def _last_error_line(self) -> str:
        if self._stderr is None:
            return "no stderr"
        try:
            self._stderr.flush()
            if self.log_path is not None:
                data = self.log_path.read_bytes()
            else:
                self._stderr.seek(0)
                data = self._stderr.read()
        except OSError as e:
            return f"stderr unreadable ({e.strerror})"
        lines = data.decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    async def _stop(self) -> None:
        """SIGTERM, a bounded wait, then SIGKILL; always closes the stderr file."""
        process, self._process, self._url = self._process, None, None
        try:
            if process is not None and process.returncode is None:
                if process.stdin is not None:
                    process.stdin.close()
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
                try:
                    await asyncio.wait_for(process.wait(), self.stop_timeout)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                    await process.wait()
        finally:
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None
