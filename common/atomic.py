"""Atomic JSON persistence: every file is written whole or not at all.

A temporary file is created in the destination folder, written, flushed and
fsynced, moved over the destination with ``os.replace`` and the folder is fsynced,
so a crash (even SIGKILL) leaves either the old or the new file. Reads go through
the file's pydantic model; anything unreadable raises :class:`StateFileError`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from common.errors import StateFileError

ModelT = TypeVar("ModelT", bound=BaseModel)

_TMP_PREFIX = ".tmp-"


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers never see a torn file."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f"{_TMP_PREFIX}{path.name}.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp_name).replace(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            Path(tmp_name).unlink()
        raise
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def write_model(path: Path, model: BaseModel) -> None:
    """Serialize ``model`` as indented JSON and write it atomically."""
    text = model.model_dump_json(indent=2) + "\n"
    write_bytes_atomic(path, text.encode())


def read_model(path: Path, model_type: type[ModelT]) -> ModelT:
    """Read ``path`` and validate it with ``model_type``.

    Raises:
        StateFileError: the file is missing, not JSON, or does not fit the schema.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError as e:
        raise StateFileError(path, "file does not exist") from e
    except OSError as e:
        raise StateFileError(path, f"cannot read: {e.strerror}") from e
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise StateFileError(path, f"not valid JSON ({e})") from e
    try:
        return model_type.model_validate(data)
    except ValidationError as e:
        raise StateFileError(path, f"does not match {model_type.__name__}: {_first(e)}") from e


def read_model_or_none(path: Path, model_type: type[ModelT]) -> ModelT | None:
    """Like :func:`read_model`, but a missing file is ``None`` (a corrupt one still raises)."""
    if not path.exists():
        return None
    return read_model(path, model_type)


def cleanup_orphans(folder: Path) -> list[Path]:
    """Remove temp files left by writers killed between create and replace."""
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for candidate in folder.glob(f"{_TMP_PREFIX}*"):
        with contextlib.suppress(FileNotFoundError):
            candidate.unlink()
            removed.append(candidate)
    return removed


@contextlib.contextmanager
def locked(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``lock_path`` (created if needed) for a read-modify-write.

    Used where several processes may update one file (a checkpoint answered by two
    clients, auto-accept toggled while the agent reads it).
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _first(error: ValidationError) -> str:
    """The first validation problem as ``field: message``, plus a count of the rest."""
    problems = error.errors()
    head = problems[0]
    where = ".".join(str(part) for part in head["loc"]) or "(root)"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{where}: {head['msg']}{more}"
