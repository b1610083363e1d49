"""Whether a spec file is text: the one check the CLI, the daemon and the wizard share.

Why: a binary file (an image, an archive, a file saved in another encoding) was accepted
as a spec; the agent then failed at spec_to_issues, or handed the model a page of
replacement characters. The check stands below every front end (the wizard's spec step
calls :func:`spec_text_problem`, the daemon and ``harness run`` call it through
:func:`common.workspace.setup.validate_spec`), so each refuses with the same one line
before anything starts.
"""

from __future__ import annotations

from pathlib import Path


def spec_text_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a spec, as one line; ``None`` for a readable UTF-8 text file.

    Bytes that are not UTF-8 mark another encoding or a binary, named with the offset of
    the first; a NUL byte in UTF-8 marks a binary file all the same (no editor writes one).
    """
    try:
        data = path.read_bytes()
    except OSError as e:
        return f"spec_file {path} cannot be read ({e.strerror or e})"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return (
            f"spec_file {path} is not UTF-8 text (byte {data[e.start]:#04x} at offset "
            f"{e.start}); a spec is Markdown or plain text"
        )
    nul = data.find(b"\0")
    if nul >= 0:
        return (
            f"spec_file {path} is not a text file (byte 0x00 at offset {nul}); "
            "a spec is Markdown or plain text"
        )
    return None
