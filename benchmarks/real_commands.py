"""Measure the command policy on shell commands real Claude models issued in public sessions.

Usage: ``.venv/bin/python -m benchmarks.real_commands [--show N] [--unsandboxed] [--bare-spec]``

The corpus (``tests/policy/data/real_commands.jsonl``, described in ``real_commands.md``
beside it) holds commands taken verbatim from public Claude Code transcripts, each judged
by hand ``ordinary`` (work on the project) or ``dangerous`` (should be denied). Each is
judged here as a sandboxed agent's Bash call would be (``PolicyContext.sandboxed``), in a
small project like the policy tests'; the false-denial rate (ordinary commands denied /
ordinary commands), the denied ordinary commands grouped by reason and the dangerous
commands allowed are printed. Why a
benchmark and not only a test: the rate is a figure to watch as the policy changes, and
the reasons say which rule costs real models the most turns.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from agent.core.policy import PolicyContext, judge_command
from common.schemas.policy import PolicySettings

CORPUS = (
    Path(__file__).resolve().parent.parent / "tests" / "policy" / "data" / "real_commands.jsonl"
)
PROJECT_TOKEN = "{project}"
"""Stands for the transcript's project root; replaced by the project folder judged in."""
JUDGEMENTS = ("ordinary", "dangerous")
NODE_TOOLS = ("tsc", "biome")
"""In the transcripts' Node project (``pnpm add -D @biomejs/biome typescript``)."""
VENV_TOOLS = ("pytest", "ruff", "mypy", "flake8", "pre-commit", "uvicorn", "bookminder")
"""In the transcripts' Python venvs (installed there, on the model's PATH)."""
PROJECT_PACKAGES = ("bookminder",)
"""The transcripts' own packages, run as ``python -m bookminder``."""
PROJECT_QUALITY_COMMANDS = ("mise run",)
"""The Go project's tasks (``mise run test``, ``mise run lint``, … from its ``mise.toml``):
a spec for that project names them in ``policy.quality_commands``, as the harness's quality
gates run them too."""
PROJECT_PROGRAMS = ("golangci-lint", "staticcheck", "entire")
"""The Go project's linters (its ``.golangci.yaml``) and the CLI it builds, in
``policy.extra_programs``. ``--bare-spec`` judges without these and the quality commands."""


@dataclass(frozen=True)
class RealCommand:
    """One command of the corpus and the hand judgement it carries."""

    cmd: str
    source: str
    judgement: str
    why: str

    def in_project(self, project: Path) -> str:
        """The command with the transcript's project root rewritten to ``project``."""
        return self.cmd.replace(PROJECT_TOKEN, str(project))


@dataclass(frozen=True)
class Verdict:
    command: RealCommand
    reason: str | None
    """The policy's reason to deny, ``None`` when it allows."""


@dataclass(frozen=True)
class Measurement:
    """What the policy did with the corpus."""

    context: PolicyContext
    verdicts: tuple[Verdict, ...]

    def of(self, judgement: str) -> list[Verdict]:
        return [v for v in self.verdicts if v.command.judgement == judgement]

    @property
    def ordinary_denied(self) -> list[Verdict]:
        return [v for v in self.of("ordinary") if v.reason is not None]

    @property
    def dangerous_allowed(self) -> list[Verdict]:
        return [v for v in self.of("dangerous") if v.reason is None]

    @property
    def false_denial_rate(self) -> float:
        ordinary = self.of("ordinary")
        return len(self.ordinary_denied) / len(ordinary) if ordinary else 0.0


def load_corpus(path: Path = CORPUS) -> list[RealCommand]:
    """Every line of the corpus; a malformed line is a ValueError naming it."""
    commands: list[RealCommand] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            command = RealCommand(row["cmd"], row["source"], row["judgement"], row["why"])
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{path.name} line {number}: {e}") from None
        if command.judgement not in JUDGEMENTS:
            raise ValueError(f"{path.name} line {number}: judgement {command.judgement!r}")
        commands.append(command)
    return commands


def transcript_settings() -> PolicySettings:
    """The spec settings of a project like the transcripts': their own tools declared."""
    return PolicySettings(
        extra_programs=list(PROJECT_PROGRAMS), quality_commands=list(PROJECT_QUALITY_COMMANDS)
    )


def measure(commands: list[RealCommand], context: PolicyContext) -> Measurement:
    """Judge every command in ``context``'s project, from its root."""
    project = context.project_dir
    return Measurement(
        context,
        tuple(Verdict(c, judge_command(c.in_project(project), context)) for c in commands),
    )


def reasons(verdicts: list[Verdict], project: Path) -> list[tuple[str, list[Verdict]]]:
    """Denied verdicts grouped by reason (project path folded), most frequent first."""
    groups: dict[str, list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        if verdict.reason is not None:
            groups[verdict.reason.replace(str(project), PROJECT_TOKEN)].append(verdict)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


def _executable(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)


def install_transcript_tools(root: Path) -> None:
    """Give ``root`` what the transcripts' projects had installed, so ``npx tsc`` or
    ``python -m bookminder`` is judged as it ran there, not as a download or a stranger."""
    for tool in NODE_TOOLS:
        _executable(root / "node_modules" / ".bin" / tool)
    for tool in VENV_TOOLS:
        _executable(root / ".venv" / "bin" / tool)
    for package in PROJECT_PACKAGES:
        (root / package).mkdir(exist_ok=True)
        for module in ("__init__.py", "__main__.py"):
            (root / package / module).write_text("")


def make_project(folder: Path) -> Path:
    """A small project like the policy tests' (sources, tests, scripts, a venv, a .git)
    with the transcripts' tools."""
    root = folder / "project"
    for sub in ("src", "tests", "mypkg", "scripts", ".git/hooks"):
        (root / sub).mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('app')\n")
    _executable(root / ".venv" / "bin" / "python")
    install_transcript_tools(root)
    return root


def _one_line(text: str, width: int = 150) -> str:
    flat = text.replace("\n", "⏎")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def report(result: Measurement, project: Path, show: int) -> None:
    ordinary, dangerous = result.of("ordinary"), result.of("dangerous")
    settings = result.context.settings
    mode = "sandboxed" if result.context.sandboxed else "strict (unsandboxed)"
    extra = ", ".join(settings.extra_programs) or "none"
    quality = ", ".join(settings.quality_commands) or "none"
    print(f"{len(result.verdicts)} commands: {len(ordinary)} ordinary, {len(dangerous)} dangerous")
    print(f"context: {mode}; extra_programs: {extra}; quality_commands: {quality}")
    print(
        f"false-denial rate: {len(result.ordinary_denied)}/{len(ordinary)} = "
        f"{result.false_denial_rate:.1%}"
    )
    print(f"dangerous allowed: {len(result.dangerous_allowed)}/{len(dangerous)}")
    print("\nordinary commands denied, by reason:")
    for reason, verdicts in reasons(result.ordinary_denied, project):
        print(f"  {len(verdicts):3d}  {_one_line(reason, 140)}")
        for verdict in verdicts[:show]:
            print(f"         {_one_line(verdict.command.cmd)}")
    if result.dangerous_allowed:
        print("\ndangerous commands allowed:")
        for verdict in result.dangerous_allowed:
            print(f"  {_one_line(verdict.command.cmd)}  ({verdict.command.why})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--show", type=int, default=3, help="example commands per reason")
    parser.add_argument(
        "--unsandboxed", action="store_true", help="judge as an unsandboxed agent (strict rules)"
    )
    parser.add_argument(
        "--bare-spec",
        action="store_true",
        help="judge with default spec settings (no project tools in policy.extra_programs)",
    )
    args = parser.parse_args()
    try:
        commands = load_corpus()
    except (OSError, ValueError) as e:
        raise SystemExit(f"real_commands: {e}") from None
    with tempfile.TemporaryDirectory() as folder:
        project = make_project(Path(folder))
        settings = PolicySettings() if args.bare_spec else transcript_settings()
        context = PolicyContext.for_project(project, settings, sandboxed=not args.unsandboxed)
        try:
            report(measure(commands, context), context.project_dir, args.show)
            programs = Counter(c.cmd.split()[0] for c in commands if c.cmd.split())
            print(f"\nby first word: {programs.most_common(12)}")
        except BrokenPipeError:  # the reader left (``| head``): nothing more to print
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return


if __name__ == "__main__":
    main()
