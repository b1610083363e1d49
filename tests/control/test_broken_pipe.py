"""A reader that goes away (``harness … | head``) ends the command quietly, never with a
traceback: the output may be piped anywhere, and one clear line or none is the rule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_a_closed_pipe_ends_the_command_without_a_traceback(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    commands = tmp_path / "commands.jsonl"
    commands.write_text("".join(json.dumps({"cmd": f"ls src/{n}"}) + "\n" for n in range(20000)))
    command = ["policy", "check-bash", "--jsonl", "--project", str(project)]
    with commands.open("rb") as stdin:
        process = subprocess.Popen(
            [sys.executable, "-m", "agent.control", *command],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)  # the reader takes a little, then goes away
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) in (0, 141)
    assert b"Traceback" not in err, err.decode(errors="replace")
